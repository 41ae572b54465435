//! Posters: a small JPEG of each video's first frame, kept beside it (`x.mp4` and `x.jpg`), so
//! a library card shows a picture without loading any video. Made when a video enters storage,
//! and on first request for a video that has none (dropped in by hand, or saved before posters).

mod render;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use thiserror::Error;

use crate::storage::{Storage, StorageError};

/// Videos larger than this are not read for a poster (decoding holds the video in memory).
const MAX_VIDEO_BYTES: u64 = 512 * 1024 * 1024;

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
    /// One poster is made at a time: a public request can cost the server one decode at most.
    making: tokio::sync::Mutex<()>,
    /// Videos whose poster could not be made (not H.264, damaged), not tried again until a
    /// restart.
    failed: Mutex<HashSet<String>>,
}

impl Posters {
    pub fn new(storage: Arc<dyn Storage>) -> Posters {
        Posters {
            storage,
            making: tokio::sync::Mutex::new(()),
            failed: Mutex::new(HashSet::new()),
        }
    }

    /// The JPEG poster of `video_key`, made and stored now when there is none.
    pub async fn ensure(&self, video_key: &str) -> Result<Vec<u8>, PosterError> {
        let key = poster_key(video_key).ok_or(PosterError::NoVideo)?;
        let _one_at_a_time = self.making.lock().await;
        if self.storage.head(&key).await?.is_some() {
            return Ok(self.storage.read(&key, MAX_VIDEO_BYTES).await?.to_vec());
        }
        if self.failed.lock().unwrap().contains(video_key) {
            return Err(PosterError::FailedBefore);
        }
        let made = self.make(video_key, &key).await;
        if let Err(e) = &made {
            if !matches!(e, PosterError::NoVideo | PosterError::Storage(_)) {
                tracing::warn!(video = %video_key, error = %e, "no poster for this video");
                self.failed.lock().unwrap().insert(video_key.to_owned());
            }
        }
        made
    }

    async fn make(&self, video_key: &str, key: &str) -> Result<Vec<u8>, PosterError> {
        let video = match self.storage.read(video_key, MAX_VIDEO_BYTES).await {
            Err(StorageError::NotFound(_)) => return Err(PosterError::NoVideo),
            other => other?,
        };
        let jpeg = tokio::task::spawn_blocking(move || render::poster(&video))
            .await
            .map_err(|e| PosterError::Decode(e.to_string()))??;
        self.storage.put_bytes(key, jpeg.clone()).await?;
        tracing::info!(video = %video_key, bytes = jpeg.len(), "poster made");
        Ok(jpeg)
    }
}
