//! What the library shows from saved videos' `.json` metadata (the prompt, and the video it
//! was extended or remixed from), read once and remembered by size and modification time, so
//! the library can be searched by prompt without reading 10,000 files on every listing.
//! The folders listed least recently are forgotten past a number of summaries in all.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::sync::Notify;

use crate::storage::{Object, Storage};

mod folder;
#[cfg(test)]
mod tests;

use folder::{trim, Folder, Summaries};

/// Metadata files read at once (an S3 round trip each).
const READS_IN_FLIGHT: usize = 16;
/// Metadata larger than this is not read for its prompt.
const MAX_METADATA_BYTES: u64 = 256 * 1024;
/// Summaries remembered in all (a library of 100,000 videos holds about 40 MB of them); past
/// this, the folders listed least recently are forgotten, and read again when next listed.
const SUMMARIES_KEPT: usize = 250_000;

/// What a listing takes from one video's metadata.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub prompt: Option<String>,
    /// The library file name or job id it was made from (extend or remix).
    pub parent: Option<String>,
}

type Folders = Arc<Mutex<HashMap<String, Folder>>>;

/// Cloned handles share one memory.
#[derive(Clone)]
pub struct Prompts {
    folders: Folders,
    /// Woken whenever a summary is learned, for listings waiting on reads.
    learned: Arc<Notify>,
    /// The most summaries remembered in all.
    kept: usize,
}

impl Default for Prompts {
    fn default() -> Prompts {
        Prompts {
            folders: Folders::default(),
            learned: Arc::default(),
            kept: SUMMARIES_KEPT,
        }
    }
}

impl Prompts {
    /// The summaries of a listing's metadata objects of `folder`, by metadata key; what is no
    /// longer listed is forgotten. Those not known yet are read, and the listing waits for
    /// them at most `budget`: what is read by then is in its answer, and the reading goes on
    /// behind it, so that a library of 100,000 can be searched by prompt soon after a start.
    /// What another listing is reading is waited for alike: a listing beside it (a browser's
    /// page of the newest videos while another reloads the whole library) would otherwise
    /// answer without them. A zero budget waits for nothing.
    pub async fn of<O: Borrow<Object>>(
        &self,
        storage: &Arc<dyn Storage>,
        folder: &str,
        metadata: &[O],
        budget: Duration,
    ) -> Arc<Summaries> {
        let metadata = || metadata.iter().map(Borrow::borrow);
        let (stale, mut unknown) = {
            let mut folders = self.folders.lock().unwrap();
            let known = folders.entry(folder.to_owned()).or_default();
            if metadata().eq(known.settled.iter()) {
                known.used = Some(Instant::now());
                return known.shown();
            }
            known.settled.clear();
            let listed: HashMap<&str, &Object> = metadata().map(|o| (o.key.as_str(), o)).collect();
            let before = known.known.len();
            known.known.retain(|key, (modified, size, _)| {
                listed
                    .get(key.as_str())
                    .is_some_and(|o| o.modified == *modified && o.size_bytes == *size)
            });
            if known.known.len() != before {
                known.shown = None;
            }
            let unknown: Vec<Object> = metadata().filter(|o| !known.knows(o)).cloned().collect();
            let stale: Vec<Object> = unknown
                .iter()
                .filter(|o| !known.reading.contains(&o.key))
                .cloned()
                .collect();
            known.reading.extend(stale.iter().map(|o| o.key.clone()));
            (stale, unknown)
        };
        if !stale.is_empty() {
            tokio::spawn(read(
                storage.clone(),
                self.folders.clone(),
                self.learned.clone(),
                folder.to_owned(),
                stale,
            ));
        }
        // A zero budget answers at once; a timer of zero would still yield to the reads.
        if !unknown.is_empty() && !budget.is_zero() {
            let deadline = tokio::time::Instant::now() + budget;
            loop {
                let learned = self.learned.notified();
                tokio::pin!(learned);
                learned.as_mut().enable();
                {
                    let mut folders = self.folders.lock().unwrap();
                    let known = folders.entry(folder.to_owned()).or_default();
                    unknown.retain(|o| !known.knows(o));
                }
                if unknown.is_empty() {
                    break;
                }
                if tokio::time::timeout_at(deadline, learned).await.is_err() {
                    tracing::debug!(folder = %folder, "prompts still being read behind the listing");
                    break;
                }
            }
        }
        let mut folders = self.folders.lock().unwrap();
        let known = folders.entry(folder.to_owned()).or_default();
        if metadata().all(|o| known.knows(o)) {
            known.settled = metadata().cloned().collect();
        }
        let shown = known.shown();
        trim(&mut folders, folder, self.kept);
        shown
    }

    /// The summary of one video's metadata, from memory when it is the same file, else read
    /// (and remembered) now; nothing else of the folder is forgotten.
    pub async fn one(&self, storage: &dyn Storage, folder: &str, object: &Object) -> Summary {
        let known = self
            .folders
            .lock()
            .unwrap()
            .get(folder)
            .filter(|f| f.knows(object))
            .and_then(|f| f.known.get(&object.key))
            .map(|(_, _, summary)| summary.clone());
        if let Some(summary) = known {
            return summary;
        }
        let summary = read_summary(storage, &object.key).await;
        let mut folders = self.folders.lock().unwrap();
        folders
            .entry(folder.to_owned())
            .or_default()
            .learn(object, summary.clone());
        trim(&mut folders, folder, self.kept);
        summary
    }
}

/// Reads these metadata objects of `folder`, a few at a time, and learns each summary.
async fn read(
    storage: Arc<dyn Storage>,
    folders: Folders,
    learned: Arc<Notify>,
    folder: String,
    stale: Vec<Object>,
) {
    let (storage, folders, learned, folder) = (&storage, &folders, &learned, &folder);
    futures_util::stream::iter(stale)
        .map(|o: Object| async move {
            let summary = read_summary(storage.as_ref(), &o.key).await;
            {
                let mut folders = folders.lock().unwrap();
                let known = folders.entry(folder.clone()).or_default();
                known.reading.remove(&o.key);
                known.learn(&o, summary);
            }
            learned.notify_waiters();
        })
        .buffer_unordered(READS_IN_FLIGHT)
        .collect::<()>()
        .await;
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
