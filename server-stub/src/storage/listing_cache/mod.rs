//! A bucket's folder listings kept in memory. Listing a library of 10,000 videos at S3 is 30
//! LIST requests one after the other (a video, its metadata and its poster; 1,000 keys a page),
//! which takes seconds. This store keeps each folder's last listing, applies this server's own
//! writes and deletes to it, and answers from it: at once while it is younger than `fresh`,
//! still at once while younger than `stale_at_most` but with a new listing fetched behind it
//! (objects put in the bucket by anyone else appear within one refresh), and by fetching anew
//! when older. Everything but `list` goes straight to the bucket.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use tokio::time::Instant;

use super::{ByteStream, Object, Objects, Storage, StorageError};

/// Folders kept; the least recently listed goes first. About 3 MB for a library of 10,000
/// videos (30,000 objects).
const FOLDERS_KEPT: usize = 32;

/// How long a listing is answered as it is, and how long at most while a new one is fetched.
#[derive(Debug, Clone, Copy)]
pub struct Freshness {
    pub fresh: Duration,
    pub stale_at_most: Duration,
}

impl Default for Freshness {
    fn default() -> Self {
        Freshness {
            fresh: Duration::from_secs(5),
            stale_at_most: Duration::from_secs(300),
        }
    }
}

pub struct ListingCache {
    shared: Arc<Shared>,
}

struct Shared {
    inner: Arc<dyn Storage>,
    folders: Mutex<HashMap<String, Arc<Folder>>>,
    freshness: Freshness,
}

#[derive(Default)]
struct Folder {
    state: Mutex<State>,
    /// One listing of the folder fetched at a time.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    listing: Option<Listing>,
    /// This server's writes (a key and its object, or `None` when deleted) made while a listing
    /// is being fetched: it may or may not include them, so they are applied on top of it.
    during_fetch: Option<Vec<(String, Option<Object>)>>,
    refreshing: bool,
    last_used: Option<Instant>,
}

struct Listing {
    objects: BTreeMap<String, Object>,
    /// `objects` as listings hand them out; made again after a change.
    shown: Option<Objects>,
    /// When the fetch began (what it shows is at least this recent).
    at: Instant,
}

impl Listing {
    fn apply(&mut self, key: String, object: Option<Object>) {
        match object {
            Some(object) => self.objects.insert(key, object),
            None => self.objects.remove(&key),
        };
        self.shown = None;
    }

    fn objects(&mut self) -> Objects {
        self.shown
            .get_or_insert_with(|| self.objects.values().cloned().collect())
            .clone()
    }
}

/// The folder a listing or a key belongs to, without the final `/`.
fn folder_of(key: &str) -> &str {
    key.rsplit_once('/').map_or("", |(folder, _)| folder)
}

impl ListingCache {
    pub fn new(inner: Arc<dyn Storage>, freshness: Freshness) -> ListingCache {
        ListingCache {
            shared: Arc::new(Shared {
                inner,
                folders: Mutex::new(HashMap::new()),
                freshness,
            }),
        }
    }
}

impl Shared {
    /// The folder's entry, made when new (dropping the least recently listed one when full).
    fn folder(&self, name: &str) -> Arc<Folder> {
        let mut folders = self.folders.lock().unwrap();
        if let Some(folder) = folders.get(name) {
            return folder.clone();
        }
        if folders.len() >= FOLDERS_KEPT {
            let oldest = folders
                .iter()
                .min_by_key(|(_, f)| f.state.lock().unwrap().last_used)
                .map(|(name, _)| name.clone());
            if let Some(oldest) = oldest {
                folders.remove(&oldest);
            }
        }
        folders.entry(name.to_owned()).or_default().clone()
    }

    /// Applies one of this server's writes or deletes to the kept listing of its folder.
    fn note(&self, key: &str, object: Option<Object>) {
        let Some(folder) = self.folders.lock().unwrap().get(folder_of(key)).cloned() else {
            return;
        };
        let mut state = folder.state.lock().unwrap();
        if let Some(writes) = &mut state.during_fetch {
            writes.push((key.to_owned(), object.clone()));
        }
        if let Some(listing) = &mut state.listing {
            listing.apply(key.to_owned(), object);
        }
    }

    /// Fetches the folder's listing from the bucket and keeps it; `fresh_enough` lets a caller
    /// that waited behind another fetch take that one's result instead.
    async fn fetch(
        &self,
        name: &str,
        folder: &Folder,
        fresh_enough: bool,
    ) -> Result<Objects, StorageError> {
        let _one_at_a_time = folder.fetching.lock().await;
        let began = Instant::now();
        {
            let mut state = folder.state.lock().unwrap();
            match &mut state.listing {
                Some(listing) if fresh_enough && began - listing.at < self.freshness.fresh => {
                    return Ok(listing.objects());
                }
                _ => state.during_fetch = Some(Vec::new()),
            }
        }
        let fetched = self.inner.list(&format!("{name}/")).await;
        let mut state = folder.state.lock().unwrap();
        let writes = state.during_fetch.take().unwrap_or_default();
        let mut listing = Listing {
            objects: fetched?
                .iter()
                .map(|object| (object.key.clone(), object.clone()))
                .collect(),
            shown: None,
            at: began,
        };
        for (key, object) in writes {
            listing.apply(key, object);
        }
        let objects = listing.objects();
        state.listing = Some(listing);
        Ok(objects)
    }
}

#[async_trait]
impl Storage for ListingCache {
    async fn put_file(&self, key: &str, source: &Path) -> Result<Object, StorageError> {
        let object = self.shared.inner.put_file(key, source).await?;
        self.shared.note(key, Some(object.clone()));
        Ok(object)
    }

    async fn put_stream(&self, key: &str, body: ByteStream) -> Result<Object, StorageError> {
        let object = self.shared.inner.put_stream(key, body).await?;
        self.shared.note(key, Some(object.clone()));
        Ok(object)
    }

    async fn put_bytes(&self, key: &str, bytes: Vec<u8>) -> Result<Object, StorageError> {
        let object = self.shared.inner.put_bytes(key, bytes).await?;
        self.shared.note(key, Some(object.clone()));
        Ok(object)
    }

    async fn copy(&self, from: &str, to: &str) -> Result<Object, StorageError> {
        let object = self.shared.inner.copy(from, to).await?;
        self.shared.note(to, Some(object.clone()));
        Ok(object)
    }

    async fn head(&self, key: &str) -> Result<Option<Object>, StorageError> {
        self.shared.inner.head(key).await
    }

    async fn read(&self, key: &str, max: u64) -> Result<Bytes, StorageError> {
        self.shared.inner.read(key, max).await
    }

    async fn read_range(&self, key: &str, range: Range<u64>) -> Result<Bytes, StorageError> {
        self.shared.inner.read_range(key, range).await
    }

    async fn delete(&self, key: &str) -> Result<(), StorageError> {
        // Noted before and after: a refresh that began in between may still show the object.
        self.shared.note(key, None);
        self.shared.inner.delete(key).await?;
        self.shared.note(key, None);
        Ok(())
    }

    fn changed_elsewhere(&self, prefix: &str) {
        let name = prefix.trim_end_matches('/');
        self.shared.folders.lock().unwrap().remove(name);
    }

    async fn list(&self, prefix: &str) -> Result<Objects, StorageError> {
        let name = prefix.trim_end_matches('/');
        let shared = &self.shared;
        let folder = shared.folder(name);
        let now = Instant::now();
        let (kept, refresh) = {
            let mut state = folder.state.lock().unwrap();
            state.last_used = Some(now);
            let age = state.listing.as_ref().map(|l| now - l.at);
            let refresh = match age {
                Some(age) if age < shared.freshness.fresh => false,
                Some(age) if age < shared.freshness.stale_at_most => {
                    !std::mem::replace(&mut state.refreshing, true)
                }
                _ => {
                    state.listing = None;
                    false
                }
            };
            (state.listing.as_mut().map(Listing::objects), refresh)
        };
        if refresh {
            let (shared, folder, name) = (shared.clone(), folder.clone(), name.to_owned());
            tokio::spawn(async move {
                if let Err(e) = shared.fetch(&name, &folder, false).await {
                    tracing::warn!(folder = %name, error = %e, "a listing could not be refreshed");
                }
                folder.state.lock().unwrap().refreshing = false;
            });
        }
        match kept {
            Some(objects) => Ok(objects),
            None => shared.fetch(name, &folder, true).await,
        }
    }

    fn public_url(&self, key: &str) -> Option<String> {
        self.shared.inner.public_url(key)
    }
}

#[cfg(test)]
mod tests;
