//! What the library shows from saved videos' `.json` metadata (the prompt, and the video it
//! was extended or remixed from), read once and remembered by size and modification time, so
//! the library can be searched by prompt without reading 10,000 files on every listing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::StreamExt;

use crate::storage::{Object, Storage};

/// Metadata files read at once (an S3 round trip each).
const READS_IN_FLIGHT: usize = 16;
/// Metadata larger than this is not read for its prompt.
const MAX_METADATA_BYTES: u64 = 256 * 1024;

/// What a listing takes from one video's metadata.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub prompt: Option<String>,
    /// The library file name or job id it was made from (extend or remix).
    pub parent: Option<String>,
}

type Known = HashMap<String, (i64, u64, Summary)>;

#[derive(Default)]
pub struct Prompts {
    /// Per folder: metadata key to (modified, size, summary).
    folders: Mutex<HashMap<String, Known>>,
}

impl Prompts {
    /// The summaries of these metadata objects of `folder`, by metadata key. Those not known yet
    /// are read for at most `budget`; what is read in that time is kept, the rest is read by
    /// the next call.
    pub async fn of(
        &self,
        storage: &dyn Storage,
        folder: &str,
        metadata: &[Object],
        budget: Duration,
    ) -> HashMap<String, Summary> {
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
                let summary = read_summary(storage, &o.key).await;
                if let Some(known) = self.folders.lock().unwrap().get_mut(folder) {
                    known.insert(o.key.clone(), (o.modified, o.size_bytes, summary));
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
                    .map(|(key, (_, _, summary))| (key.clone(), summary.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

async fn read_summary(storage: &dyn Storage, key: &str) -> Summary {
    let Ok(bytes) = storage.read(key, MAX_METADATA_BYTES).await else {
        return Summary::default();
    };
    let metadata: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let text = |field: &str| {
        metadata
            .get(field)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
            .filter(|p| !p.trim().is_empty())
    };
    Summary {
        prompt: text("prompt"),
        parent: text("parent"),
    }
}
