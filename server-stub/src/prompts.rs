//! The prompts of saved videos, read from their `.json` metadata and remembered (by size and
//! modification time), so the library can be searched by prompt without reading 10,000 files
//! on every listing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::StreamExt;

use crate::storage::{Object, Storage};

/// Metadata files read at once (an S3 round trip each).
const READS_IN_FLIGHT: usize = 16;
/// Metadata larger than this is not read for its prompt.
const MAX_METADATA_BYTES: u64 = 256 * 1024;

type Known = HashMap<String, (i64, u64, Option<String>)>;

#[derive(Default)]
pub struct Prompts {
    /// Per folder: metadata key to (modified, size, prompt).
    folders: Mutex<HashMap<String, Known>>,
}

impl Prompts {
    /// The prompts of these metadata objects of `folder`, by metadata key. Those not known yet
    /// are read for at most `budget`; what is read in that time is kept, the rest is read by
    /// the next call.
    pub async fn of(
        &self,
        storage: &dyn Storage,
        folder: &str,
        metadata: &[Object],
        budget: Duration,
    ) -> HashMap<String, String> {
        let stale: Vec<Object> = {
            let mut folders = self.folders.lock().unwrap();
            let known = folders.entry(folder.to_owned()).or_default();
            // Forget what is no longer there.
            let listed: HashMap<&str, &Object> =
                metadata.iter().map(|o| (o.key.as_str(), o)).collect();
            known.retain(|key, (modified, size, _)| {
                listed
                    .get(key.as_str())
                    .is_some_and(|o| o.modified == *modified && o.size_bytes == *size)
            });
            metadata
                .iter()
                .filter(|o| !known.contains_key(&o.key))
                .cloned()
                .collect()
        };
        let reads = futures_util::stream::iter(stale)
            .map(|o: Object| async move {
                let prompt = read_prompt(storage, &o.key).await;
                if let Some(known) = self.folders.lock().unwrap().get_mut(folder) {
                    known.insert(o.key.clone(), (o.modified, o.size_bytes, prompt));
                }
            })
            .buffer_unordered(READS_IN_FLIGHT)
            .collect::<()>();
        if tokio::time::timeout(budget, reads).await.is_err() {
            tracing::debug!(folder = %folder, "prompts still being read; the next listing has more");
        }
        let folders = self.folders.lock().unwrap();
        folders
            .get(folder)
            .map(|known| {
                known
                    .iter()
                    .filter_map(|(key, (_, _, prompt))| Some((key.clone(), prompt.clone()?)))
                    .collect()
            })
            .unwrap_or_default()
    }
}

async fn read_prompt(storage: &dyn Storage, key: &str) -> Option<String> {
    let bytes = storage.read(key, MAX_METADATA_BYTES).await.ok()?;
    let metadata: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    metadata
        .get("prompt")?
        .as_str()
        .map(str::to_owned)
        .filter(|p| !p.trim().is_empty())
}
