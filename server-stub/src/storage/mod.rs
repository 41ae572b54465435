//! Where videos and their metadata are kept. The local folder is the default backend, an
//! S3-compatible bucket the other; both speak in keys such as `projects/{projectId}/{jobId}.mp4`.

#[cfg(test)]
pub mod held;
mod listing_cache;
mod local;
mod local_listings;
mod s3;

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::BoxStream;
use thiserror::Error;

pub use listing_cache::{Freshness, ListingCache};
pub use local::LocalStorage;
pub use s3::{S3Settings, S3Storage};

/// A folder's objects as a listing hands them out: shared, so that a listing kept in memory
/// (100,000 videos are 300,000 objects) goes to every request without being copied.
pub type Objects = Arc<[Object]>;

/// A body streamed in chunks, never held whole.
pub type ByteStream = BoxStream<'static, std::io::Result<Bytes>>;

#[derive(Debug, Error)]
pub enum StorageError {
    #[error("not found: {0}")]
    NotFound(String),
    #[error("invalid key: {0}")]
    InvalidKey(String),
    #[error("larger than {1} bytes: {0}")]
    TooLarge(String, u64),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// One stored object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    pub key: String,
    pub size_bytes: u64,
    /// Unix seconds.
    pub modified: i64,
}

impl Object {
    /// The library's order: newest first, then by key from the end of the alphabet.
    pub fn newest_first(&self, other: &Object) -> std::cmp::Ordering {
        other
            .modified
            .cmp(&self.modified)
            .then_with(|| other.key.cmp(&self.key))
    }
}

#[async_trait]
pub trait Storage: Send + Sync {
    /// Moves a finished local file in under `key`, atomically: readers never see part of it.
    async fn put_file(&self, key: &str, source: &Path) -> Result<Object, StorageError>;
    /// Writes a streamed body under `key`, atomically, holding only a few chunks at a time.
    async fn put_stream(&self, key: &str, body: ByteStream) -> Result<Object, StorageError>;
    /// Writes small bytes (metadata) under `key`, atomically.
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>) -> Result<Object, StorageError>;
    /// Copies one stored object to another key, streaming, atomically.
    async fn copy(&self, from: &str, to: &str) -> Result<Object, StorageError>;
    async fn head(&self, key: &str) -> Result<Option<Object>, StorageError>;
    /// Reads a whole object of at most `max` bytes.
    async fn read(&self, key: &str, max: u64) -> Result<Bytes, StorageError>;
    /// Reads the bytes `range` of an object (within its size).
    async fn read_range(&self, key: &str, range: Range<u64>) -> Result<Bytes, StorageError>;
    /// Removes an object; removing one that is not there is no error.
    async fn delete(&self, key: &str) -> Result<(), StorageError>;
    /// The objects directly under `prefix` (a folder ending in `/`).
    async fn list(&self, prefix: &str) -> Result<Objects, StorageError>;
    /// Another server changed what is directly under `prefix` (a folder ending in `/`): a
    /// listing of it kept here is not answered again.
    fn changed_elsewhere(&self, _prefix: &str) {}
    /// The public address of a key, when the backend has its own (a bucket's public URL);
    /// `None` when this server serves it at `/media/{key}`.
    fn public_url(&self, key: &str) -> Option<String>;
}

/// The last segment of a key: the file name a library lists.
pub fn file_name(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

/// Keys are relative, made of safe segments, and never climb out of the store.
pub fn check_key(key: &str) -> Result<(), StorageError> {
    let ok = !key.is_empty()
        && !key.starts_with('/')
        && key.split('/').all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
        });
    if ok {
        Ok(())
    } else {
        Err(StorageError::InvalidKey(key.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_escape() {
        assert!(check_key("projects/p/local-1:task_01.mp4").is_ok());
        for bad in [
            "",
            "/etc/passwd",
            "a/../b",
            "a//b",
            "a/./b",
            "..",
            "a/b\\c",
            "a/%2e%2e",
            "a/b c",
        ] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
    }
}
