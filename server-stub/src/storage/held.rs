//! For tests: a local store that holds one kind of call until the test lets it go (to force an
//! interleaving), counts the bytes read by range, whole reads and listings, and refuses whole
//! reads of videos (everything reads them by range).

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use bytes::Bytes;
use tokio::sync::Semaphore;

use super::{ByteStream, LocalStorage, Object, Objects, Storage, StorageError};

/// Which calls wait for a permit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    ReadRange,
    Delete,
}

pub struct HeldStorage {
    inner: LocalStorage,
    held: Held,
    /// Permits for the held calls: none holds them all.
    pub gate: Semaphore,
    /// Held calls waiting now.
    pub waiting: AtomicU64,
    /// Bytes read by range.
    pub read: AtomicU64,
    /// Objects read whole.
    pub whole_reads: AtomicU64,
    /// Folders listed.
    pub listings: AtomicU64,
}

impl HeldStorage {
    /// A store in `dir/media` whose `held` calls wait for one of `permits`.
    pub fn new(dir: &Path, held: Held, permits: usize) -> HeldStorage {
        HeldStorage {
            inner: LocalStorage::new(dir.join("media"), dir.join("tmp")).unwrap(),
            held,
            gate: Semaphore::new(permits),
            waiting: AtomicU64::new(0),
            read: AtomicU64::new(0),
            whole_reads: AtomicU64::new(0),
            listings: AtomicU64::new(0),
        }
    }

    async fn turn(&self, call: Held) {
        if call == self.held {
            self.waiting.fetch_add(1, Ordering::SeqCst);
            drop(self.gate.acquire().await.unwrap());
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

#[async_trait]
impl Storage for HeldStorage {
    async fn put_file(&self, key: &str, source: &Path) -> Result<Object, StorageError> {
        self.inner.put_file(key, source).await
    }
    async fn put_stream(&self, key: &str, body: ByteStream) -> Result<Object, StorageError> {
        self.inner.put_stream(key, body).await
    }
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>) -> Result<Object, StorageError> {
        self.inner.put_bytes(key, bytes).await
    }
    async fn copy(&self, from: &str, to: &str) -> Result<Object, StorageError> {
        self.inner.copy(from, to).await
    }
    async fn head(&self, key: &str) -> Result<Option<Object>, StorageError> {
        self.inner.head(key).await
    }
    async fn read(&self, key: &str, max: u64) -> Result<Bytes, StorageError> {
        assert!(!key.ends_with(".mp4"), "a video is never read whole");
        self.whole_reads.fetch_add(1, Ordering::Relaxed);
        self.inner.read(key, max).await
    }
    async fn read_range(&self, key: &str, range: Range<u64>) -> Result<Bytes, StorageError> {
        self.turn(Held::ReadRange).await;
        self.read
            .fetch_add(range.end - range.start, Ordering::Relaxed);
        self.inner.read_range(key, range).await
    }
    async fn delete(&self, key: &str) -> Result<(), StorageError> {
        self.turn(Held::Delete).await;
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str) -> Result<Objects, StorageError> {
        self.listings.fetch_add(1, Ordering::Relaxed);
        self.inner.list(prefix).await
    }
    fn public_url(&self, key: &str) -> Option<String> {
        self.inner.public_url(key)
    }
}
