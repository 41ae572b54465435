//! Posters: a small JPEG of each video's first frame, kept beside it (`x.mp4` and `x.jpg`), so
//! a library card shows a picture without loading any video. Made when a video enters storage,
//! and on first request for a video that has none (dropped in by hand, or saved before posters).

mod render;
mod sparse;

pub use sparse::Sparse;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use thiserror::Error;

use crate::keyed_lock::KeyedLocks;
use crate::storage::{Storage, StorageError};

/// The largest poster read back from storage.
const MAX_POSTER_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum PosterError {
    #[error("no such video")]
    NoVideo,
    #[error("not an H.264 MP4: {0}")]
    Unsupported(String),
    #[error("the first frame could not be decoded: {0}")]
    Decode(String),
    #[error("an earlier attempt failed")]
    FailedBefore,
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// The poster key of a video key (`….mp4` to `….jpg`).
pub fn poster_key(video_key: &str) -> Option<String> {
    video_key
        .strip_suffix(".mp4")
        .map(|stem| format!("{stem}.jpg"))
}

pub struct Posters {
    storage: Arc<dyn Storage>,
    /// One request makes a given poster; others for it wait for that one.
    making: KeyedLocks,
    /// One poster is decoded at a time: a public request can cost the server one decode at
    /// most. Reading a poster that exists never waits for it.
    decoding: tokio::sync::Mutex<()>,
    /// Videos whose poster could not be made (not H.264, damaged), not tried again until a
    /// restart.
    failed: Mutex<HashSet<String>>,
}

impl Posters {
    pub fn new(storage: Arc<dyn Storage>) -> Posters {
        Posters {
            storage,
            making: KeyedLocks::new(),
            decoding: tokio::sync::Mutex::new(()),
            failed: Mutex::new(HashSet::new()),
        }
    }

    /// The JPEG poster of `video_key`, made and stored now when there is none.
    pub async fn ensure(&self, video_key: &str) -> Result<Vec<u8>, PosterError> {
        let key = poster_key(video_key).ok_or(PosterError::NoVideo)?;
        if let Some(stored) = self.stored(&key).await? {
            return Ok(stored);
        }
        let _this_poster = self.making.lock(&key).await;
        // Made while this request waited for its turn.
        if let Some(stored) = self.stored(&key).await? {
            return Ok(stored);
        }
        if self.failed.lock().unwrap().contains(video_key) {
            return Err(PosterError::FailedBefore);
        }
        let made = {
            let _one_decode = self.decoding.lock().await;
            self.make(video_key, &key).await
        };
        if let Err(e) = &made {
            if !matches!(e, PosterError::NoVideo | PosterError::Storage(_)) {
                tracing::warn!(video = %video_key, error = %e, "no poster for this video");
                self.failed.lock().unwrap().insert(video_key.to_owned());
            }
        }
        made
    }

    /// The poster at `key`, if it is stored.
    async fn stored(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        match self.storage.read(key, MAX_POSTER_BYTES).await {
            Ok(bytes) => Ok(Some(bytes.to_vec())),
            Err(StorageError::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Reads the video's boxes and first frame by range (never the whole video), decodes the
    /// frame off the async threads and stores the JPEG.
    async fn make(&self, video_key: &str, key: &str) -> Result<Vec<u8>, PosterError> {
        let storage = self.storage.as_ref();
        let size = storage
            .head(video_key)
            .await?
            .ok_or(PosterError::NoVideo)?
            .size_bytes;
        let mut video = sparse::Sparse::boxes(storage, video_key, size).await?;
        let boxes = video.clone();
        let (start, length) = blocking(move || render::first_frame(boxes, size)).await?;
        video.fetch(storage, video_key, start, length).await?;
        let jpeg = blocking(move || {
            let size = video.size();
            render::poster(video, size)
        })
        .await?;
        self.storage.put_bytes(key, jpeg.clone()).await?;
        tracing::info!(video = %video_key, bytes = jpeg.len(), "poster made");
        Ok(jpeg)
    }
}

/// Parsing and decoding, off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, PosterError> + Send + 'static,
) -> Result<T, PosterError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| PosterError::Decode(e.to_string()))?
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::storage::held::{Held, HeldStorage};

    #[tokio::test]
    async fn a_poster_reads_the_boxes_and_the_first_frame_only() {
        let dir = tempfile::tempdir().unwrap();
        let made = dir.path().join("v.mp4");
        let spec = crate::engine::VideoSpec {
            seconds: 4,
            width: 640,
            height: 360,
            fps: 24,
        };
        crate::engine::render_clip("waves on a shore", &spec, &made).unwrap();
        let storage = Arc::new(HeldStorage::new(
            dir.path(),
            Held::ReadRange,
            tokio::sync::Semaphore::MAX_PERMITS,
        ));
        let video = storage.put_file("previews/v.mp4", &made).await.unwrap();
        let posters = Posters::new(storage.clone());
        let jpeg = posters.ensure("previews/v.mp4").await.unwrap();
        assert_eq!(&jpeg[..2], &[0xff, 0xd8]);
        let read = storage.read.load(Ordering::Relaxed);
        assert!(
            read * 2 < video.size_bytes,
            "{read} of {} bytes read",
            video.size_bytes
        );
        assert!(storage.head("previews/v.jpg").await.unwrap().is_some());
        assert_eq!(
            posters.ensure("previews/v.mp4").await.unwrap(),
            jpeg,
            "kept"
        );
    }

    /// Fails on one lock for every poster request: a stored poster waited for another
    /// video's poster to be made (on S3, each miss read up to 4 MB under that lock).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stored_poster_never_waits_for_one_being_made() {
        let dir = tempfile::tempdir().unwrap();
        let made = dir.path().join("v.mp4");
        let spec = crate::engine::VideoSpec {
            seconds: 1,
            width: 320,
            height: 180,
            fps: 24,
        };
        crate::engine::render_clip("a kite", &spec, &made).unwrap();
        let storage = Arc::new(HeldStorage::new(dir.path(), Held::ReadRange, 0));
        storage.put_file("previews/v.mp4", &made).await.unwrap();
        storage
            .put_bytes("previews/w.jpg", b"a stored poster".to_vec())
            .await
            .unwrap();
        let posters = Arc::new(Posters::new(storage.clone()));
        let making = tokio::spawn({
            let posters = posters.clone();
            async move { posters.ensure("previews/v.mp4").await }
        });
        while storage.waiting.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        // v's poster is being made (its reads held); w's is read meanwhile.
        let stored = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            posters.ensure("previews/w.mp4"),
        )
        .await
        .expect("a stored poster waited for another being made");
        assert_eq!(stored.unwrap(), b"a stored poster");
        storage
            .gate
            .add_permits(tokio::sync::Semaphore::MAX_PERMITS);
        let jpeg = making.await.unwrap().unwrap();
        assert_eq!(&jpeg[..2], &[0xff, 0xd8]);
    }
}
