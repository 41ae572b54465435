//! A video's Content Credentials: the video the engine made (a take, an edit of another, or a
//! sequence's cut) is signed before it is stored, with its parent or its shots' takes as
//! ingredients read from storage as the signing reads them; a hosted provider's video is
//! signed once its copy is stored, its own manifest (when it came with one) kept as the parent.

use std::path::{Path, PathBuf};

use super::record::JobRecord;
use super::{now, JobService};
use crate::credentials::{carries_manifest, Facts, Ingredient, Made, Signing};
use crate::sequences::export::take_reader::TakeReader;
use crate::storage::{file_name, Object};

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

impl JobService {
    /// Signs the provider's video job `id` copied to `object` in place: the stored object as it
    /// then stands. A file that is not an MP4, or one whose signing fails, stays as the
    /// provider sent it (logged): a paid-for video is never lost for want of a signature.
    pub(super) async fn signed_copy(&self, id: &str, object: Object) -> Object {
        let Some(signing) = self.inner.limits.signing.clone() else {
            return object;
        };
        let Some(record) = self.get(id) else {
            return object;
        };
        match self.sign_copy(id, &record, &signing, &object).await {
            Ok(Some(signed)) => signed,
            Ok(None) => {
                tracing::info!(job = %id, "the provider's file is not an MP4: stored unsigned");
                object
            }
            Err(e) => {
                tracing::warn!(job = %id, error = %e, "the provider's video could not be signed: stored unsigned");
                object
            }
        }
    }

    async fn sign_copy(
        &self,
        id: &str,
        record: &JobRecord,
        signing: &std::sync::Arc<Signing>,
        object: &Object,
    ) -> Result<Option<Object>, String> {
        let storage = &self.inner.storage;
        let reader = || {
            TakeReader::stored(
                storage.clone(),
                self.inner.runtime.clone(),
                object.key.clone(),
                object.size_bytes,
            )
        };
        let mut first = reader();
        let carried = tokio::task::spawn_blocking(move || carries_manifest(&mut first))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        let Some(provider_signed) = carried else {
            return Ok(None);
        };
        let mut facts = facts(id, record, signing);
        let signing = signing.clone();
        let mut ingredients = Vec::new();
        if provider_signed {
            facts.made = Made::Copied {
                provider: record.provider.clone(),
                model: record.model.clone(),
            };
            ingredients.push(Ingredient {
                title: format!(
                    "{}/{}.mp4",
                    record.provider,
                    record
                        .provider_job_id
                        .clone()
                        .unwrap_or_else(|| id.to_owned())
                ),
                source: Box::new(reader()),
            });
        }
        let dest = self
            .inner
            .scratch
            .join(format!("{}.signed.mp4", ulid::Ulid::new()));
        let (mut source, out) = (reader(), dest.clone());
        let signed = tokio::task::spawn_blocking(move || {
            signing.sign_stream(&facts, &mut source, &out, ingredients)
        })
        .await
        .map_err(|e| e.to_string())
        .and_then(|signed| signed.map_err(|e| e.to_string()));
        let stored = match signed {
            Ok(()) => storage
                .put_file(&object.key, &dest)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        let _ = tokio::fs::remove_file(&dest).await;
        stored.map(Some)
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
