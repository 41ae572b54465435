//! What the library shows from saved videos' `.json` metadata (the prompt, and the video it
//! was extended or remixed from), read once and remembered by size and modification time, so
//! the library can be searched by prompt without reading 10,000 files on every listing.
//! The folders listed least recently are forgotten past a number of summaries in all.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::sync::Notify;

use crate::storage::{Object, Storage};

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

/// By metadata key, what by key the listings hand out.
type Summaries = HashMap<String, Summary>;

#[derive(Default)]
struct Folder {
    /// Metadata key to (modified, size, summary).
    known: HashMap<String, (i64, u64, Summary)>,
    /// Keys being read now.
    reading: HashSet<String>,
    /// `known` as listings hand it out; made again after a change.
    shown: Option<Arc<Summaries>>,
    /// The metadata of the last listing whose every summary is known: a listing of the same
    /// metadata (most are) skips the bookkeeping, which at 100,000 videos was most of its time.
    settled: Vec<Object>,
    /// When a listing last asked for it.
    used: Option<Instant>,
}

impl Folder {
    fn shown(&mut self) -> Arc<Summaries> {
        self.shown
            .get_or_insert_with(|| {
                Arc::new(
                    self.known
                        .iter()
                        .map(|(key, (_, _, summary))| (key.clone(), summary.clone()))
                        .collect(),
                )
            })
            .clone()
    }

    fn knows(&self, object: &Object) -> bool {
        self.known
            .get(&object.key)
            .is_some_and(|(modified, size, _)| {
                *modified == object.modified && *size == object.size_bytes
            })
    }

    fn learn(&mut self, object: &Object, summary: Summary) {
        self.known.insert(
            object.key.clone(),
            (object.modified, object.size_bytes, summary),
        );
        self.shown = None;
    }
}

type Folders = Arc<Mutex<HashMap<String, Folder>>>;

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

/// Marks `folder` as just used, then forgets the folders used least recently (never one being
/// read) until at most `kept` summaries are left or only `folder` is.
fn trim(folders: &mut HashMap<String, Folder>, folder: &str, kept: usize) {
    if let Some(used) = folders.get_mut(folder) {
        used.used = Some(Instant::now());
    }
    let mut total: usize = folders.values().map(|f| f.known.len()).sum();
    while total > kept {
        let oldest = folders
            .iter()
            .filter(|(name, f)| name.as_str() != folder && f.reading.is_empty())
            .min_by_key(|(_, f)| f.used)
            .map(|(name, _)| name.clone());
        let Some(oldest) = oldest else { break };
        if let Some(forgotten) = folders.remove(&oldest) {
            total -= forgotten.known.len();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::LocalStorage;

    const FOLDER: &str = "projects/p/";

    struct Library {
        _dir: tempfile::TempDir,
        storage: Arc<dyn Storage>,
        prompts: Prompts,
    }

    impl Library {
        fn new() -> Library {
            let dir = tempfile::tempdir().unwrap();
            let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp"));
            Library {
                storage: Arc::new(storage.unwrap()),
                _dir: dir,
                prompts: Prompts::default(),
            }
        }

        /// Writes the metadata file; the object names it as a listing would, by `version`.
        async fn write(&self, name: &str, prompt: &str, version: i64) -> Object {
            let key = format!("{FOLDER}{name}.json");
            let body = format!(r#"{{"prompt": "{prompt}"}}"#).into_bytes();
            self.storage.put_bytes(&key, body).await.unwrap();
            Object {
                key,
                size_bytes: 1,
                modified: version,
            }
        }

        async fn list(&self, metadata: &[Object]) -> Vec<Option<String>> {
            let shown = self
                .prompts
                .of(&self.storage, FOLDER, metadata, Duration::from_secs(5))
                .await;
            metadata
                .iter()
                .map(|o| shown.get(&o.key).and_then(|s| s.prompt.clone()))
                .collect()
        }
    }

    fn prompts(texts: &[&str]) -> Vec<Option<String>> {
        texts.iter().map(|t| Some(t.to_string())).collect()
    }

    #[tokio::test]
    async fn a_listing_reads_each_file_once_and_again_only_when_it_changes() {
        let library = Library::new();
        let a = library.write("a", "first a", 1).await;
        let b = library.write("b", "first b", 1).await;
        assert_eq!(
            library.list(&[a.clone(), b.clone()]).await,
            prompts(&["first a", "first b"])
        );
        // Rewritten behind the listing's back: the same listing answers from memory.
        library.write("a", "second a", 1).await;
        assert_eq!(
            library.list(&[a.clone(), b.clone()]).await,
            prompts(&["first a", "first b"])
        );
        // A listing that shows it changed reads it again.
        let a2 = library.write("a", "second a", 2).await;
        assert_eq!(
            library.list(&[a2, b]).await,
            prompts(&["second a", "first b"])
        );
    }

    #[tokio::test]
    async fn reading_goes_on_behind_a_listing_that_could_not_wait() {
        let library = Library::new();
        let mut metadata = Vec::new();
        for i in 0..40 {
            metadata.push(
                library
                    .write(&format!("v{i}"), &format!("prompt {i}"), 1)
                    .await,
            );
        }
        let list = || {
            library
                .prompts
                .of(&library.storage, FOLDER, &metadata, Duration::ZERO)
        };
        assert!(
            list().await.is_empty(),
            "a listing with no budget waits for no read"
        );
        // No listing waits for them, yet every prompt arrives.
        tokio::time::timeout(Duration::from_secs(10), async {
            while list().await.len() < metadata.len() {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("every prompt read behind the listings");
        let shown = list().await;
        assert_eq!(
            shown[&metadata[39].key].prompt.as_deref(),
            Some("prompt 39")
        );
    }

    #[tokio::test]
    async fn two_listings_at_once_both_wait_for_what_one_of_them_reads() {
        let library = Library::new();
        let a = library.write("a", "a kite", 1).await;
        let (first, second) = tokio::join!(
            library.list(std::slice::from_ref(&a)),
            library.list(std::slice::from_ref(&a))
        );
        assert_eq!(first, prompts(&["a kite"]));
        assert_eq!(
            second,
            prompts(&["a kite"]),
            "the second listing waited for the first's read"
        );
    }

    #[tokio::test]
    async fn the_folders_listed_least_recently_are_forgotten_past_the_limit() {
        let mut library = Library::new();
        library.prompts = Prompts {
            kept: 3,
            ..Prompts::default()
        };
        let a = library.write("a", "first a", 1).await;
        let b = library.write("b", "first b", 1).await;
        library.list(&[a.clone(), b.clone()]).await;
        // Another project's two videos make four summaries, past three: the first is forgotten.
        let other = "projects/q/";
        let mut listed = Vec::new();
        for name in ["c", "d"] {
            let key = format!("{other}{name}.json");
            let body = br#"{"prompt": "elsewhere"}"#.to_vec();
            library.storage.put_bytes(&key, body).await.unwrap();
            listed.push(Object {
                key,
                size_bytes: 1,
                modified: 1,
            });
        }
        let shown = library
            .prompts
            .of(&library.storage, other, &listed, Duration::from_secs(5))
            .await;
        assert_eq!(shown.len(), 2, "the folder listed now is kept whole");
        // Rewritten behind the listing's back, as the first test does: read again, since the
        // folder was forgotten.
        library.write("a", "second a", 1).await;
        assert_eq!(
            library.list(&[a, b]).await,
            prompts(&["second a", "first b"])
        );
    }

    #[tokio::test]
    async fn what_a_listing_no_longer_shows_is_forgotten() {
        let library = Library::new();
        let a = library.write("a", "first a", 1).await;
        let b = library.write("b", "first b", 1).await;
        library.list(&[a.clone(), b.clone()]).await;
        library.list(std::slice::from_ref(&a)).await;
        library.write("b", "second b", 1).await;
        assert_eq!(
            library.list(&[a, b]).await,
            prompts(&["first a", "second b"])
        );
    }

    #[tokio::test]
    async fn one_video_read_alone_forgets_nothing_else() {
        let library = Library::new();
        let a = library.write("a", "first a", 1).await;
        let b = library.write("b", "first b", 1).await;
        library.list(&[a.clone(), b.clone()]).await;
        let one = library
            .prompts
            .one(library.storage.as_ref(), FOLDER, &a)
            .await;
        assert_eq!(one.prompt.as_deref(), Some("first a"));
        let c = library.write("c", "first c", 1).await;
        let one = library
            .prompts
            .one(library.storage.as_ref(), FOLDER, &c)
            .await;
        assert_eq!(one.prompt.as_deref(), Some("first c"));
        // b is still known: not read again.
        library.write("b", "second b", 1).await;
        assert_eq!(
            library.list(&[a, b, c]).await,
            prompts(&["first a", "first b", "first c"])
        );
    }
}
