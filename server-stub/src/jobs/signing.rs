//! A render's Content Credentials: the video the engine made (a take, an edit of another, or
//! a sequence's cut) is signed before it is stored, with its parent or its shots' takes as
//! ingredients read from storage as the signing reads them.

use std::path::{Path, PathBuf};

use super::record::JobRecord;
use super::{now, JobService};
use crate::credentials::{Facts, Ingredient, Made, Signing};
use crate::sequences::export::take_reader::TakeReader;
use crate::storage::file_name;

impl JobService {
    /// The file to store for job `id`'s render at `out`: a signed copy beside it (`out` is
    /// then removed), or `out` itself when signing is off.
    pub(super) async fn signed(
        &self,
        id: &str,
        record: &JobRecord,
        out: &Path,
    ) -> Result<PathBuf, String> {
        let Some(signing) = self.inner.limits.signing.clone() else {
            return Ok(out.to_owned());
        };
        let facts = facts(id, record, &signing);
        let keys: Vec<String> = match (&record.export, &record.parent_key) {
            (Some(cut), _) => {
                let mut keys: Vec<String> = Vec::new();
                for shot in &cut.shots {
                    if !keys.contains(&shot.key) {
                        keys.push(shot.key.clone());
                    }
                }
                keys
            }
            (None, Some(parent)) => vec![parent.clone()],
            (None, None) => Vec::new(),
        };
        let mut ingredients = Vec::with_capacity(keys.len());
        for key in keys {
            let size = match self.inner.storage.head(&key).await {
                Ok(Some(object)) => object.size_bytes,
                // A take removed since is named by no ingredient.
                _ => continue,
            };
            ingredients.push(Ingredient {
                title: file_name(&key).to_owned(),
                source: Box::new(TakeReader::stored(
                    self.inner.storage.clone(),
                    self.inner.runtime.clone(),
                    key,
                    size,
                )),
            });
        }
        let signed = out.with_extension("signed.mp4");
        let (source, dest) = (out.to_owned(), signed.clone());
        let outcome =
            tokio::task::spawn_blocking(move || signing.sign(&facts, &source, &dest, ingredients))
                .await
                .map_err(|e| e.to_string())
                .and_then(|signed| signed.map_err(|e| e.to_string()));
        let _ = tokio::fs::remove_file(if outcome.is_ok() { out } else { &signed }).await;
        outcome.map(|()| signed)
    }
}

/// How job `id`'s video was made, as its manifest says.
fn facts(id: &str, record: &JobRecord, signing: &Signing) -> Facts {
    let made = if record.export.is_some() {
        Made::Cut
    } else if record.parent_key.is_some() {
        Made::Edited {
            provider: record.provider.clone(),
            model: record.model.clone(),
        }
    } else {
        Made::Generated {
            provider: record.provider.clone(),
            model: record.model.clone(),
        }
    };
    Facts {
        made,
        job: id.to_owned(),
        title: format!("{id}.mp4"),
        when: now(),
        prompt: (signing.records_prompts() && record.export.is_none())
            .then(|| record.prompt.clone()),
    }
}
