//! A project's reference images: uploaded pictures and frames grabbed from its videos, kept in
//! storage beside the library (`projects/{project}/references/{id}.{png|jpg|webp}` with a
//! `{id}.json` record), so every replica and the bucket's public URL see the same.

pub mod probe;

use std::sync::Arc;

use image::RgbImage;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use utoipa::ToSchema;

use crate::clock::now;
use crate::frames::{At, FrameError};
use crate::keyed_lock::KeyedLocks;
use crate::project::ProjectFolder;
use crate::storage::{Storage, StorageError};
use probe::ProbeError;

/// The largest video a frame is grabbed from.
pub const MAX_VIDEO_BYTES: u64 = 512 * 1024 * 1024;
/// A project keeps at most this many reference images (each listing reads their records).
pub const MAX_PER_PROJECT: usize = 200;
/// The largest record read back.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

#[derive(Debug, Error)]
pub enum ReferenceError {
    #[error("No such reference image")]
    NotFound,
    #[error(transparent)]
    Probe(#[from] ProbeError),
    #[error("No frame to grab there: {0}")]
    Frame(#[from] FrameError),
    #[error("A project keeps at most {MAX_PER_PROJECT} reference images: remove some first")]
    Full,
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// A moment of a video: `"first"`, `"last"` or seconds from its start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum Moment {
    Named(Named),
    Seconds(f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Named {
    First,
    Last,
}

impl Moment {
    pub fn at(self) -> At {
        match self {
            Moment::Named(Named::First) => At::First,
            Moment::Named(Named::Last) => At::Last,
            Moment::Seconds(s) => At::Seconds(s),
        }
    }
}

/// Where a grabbed frame came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Source {
    /// The library file name or job id it was grabbed from.
    pub from_video: String,
    pub at: Moment,
}

/// A reference image as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Reference {
    /// `ref_` and 26 lowercase letters and digits.
    pub id: String,
    pub width: u32,
    pub height: u32,
    /// `image/png`, `image/jpeg` or `image/webp`.
    pub content_type: String,
    pub size_bytes: u64,
    pub created_at: String,
    /// Null for an upload; the video and moment for a grabbed frame.
    pub source: Option<Source>,
}

impl Reference {
    /// The image's storage key in `project`.
    pub fn key(&self, project: &str) -> String {
        let ext = match self.content_type.as_str() {
            "image/jpeg" => "jpg",
            "image/webp" => "webp",
            _ => "png",
        };
        format!("{}{}.{ext}", folder(project), self.id)
    }
}

/// Whether `id` has the reference id form.
pub fn is_valid_id(id: &str) -> bool {
    id.strip_prefix("ref_").is_some_and(|rest| {
        rest.len() == 26
            && rest
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}

fn folder(project: &str) -> String {
    ProjectFolder::of(project).references()
}

fn record_key(project: &str, id: &str) -> String {
    format!("{}{id}.json", folder(project))
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ReferenceError> + Send + 'static,
) -> Result<T, ReferenceError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ReferenceError::Storage(StorageError::Io(std::io::Error::other(e))))?
}

#[derive(Clone)]
pub struct References {
    storage: Arc<dyn Storage>,
    /// One video is read for its frames at a time: a read holds the whole video in memory.
    frames: Arc<tokio::sync::Semaphore>,
    /// A project's references are added one at a time on this server, so two at once cannot
    /// both take its last place.
    adding: Arc<KeyedLocks>,
}

impl References {
    pub fn new(storage: Arc<dyn Storage>) -> References {
        References {
            storage,
            frames: Arc::new(tokio::sync::Semaphore::new(1)),
            adding: Arc::new(KeyedLocks::new()),
        }
    }

    /// Checks and keeps an uploaded picture.
    pub async fn upload(
        &self,
        project: &str,
        bytes: bytes::Bytes,
    ) -> Result<Reference, ReferenceError> {
        self.offered(project, bytes, None).await
    }

    /// Checks and keeps a picture from `source`: an upload (`None`), or a frame a provider
    /// offered with a finished video.
    pub async fn offered(
        &self,
        project: &str,
        bytes: bytes::Bytes,
        source: Option<Source>,
    ) -> Result<Reference, ReferenceError> {
        let checked = bytes.clone();
        let (format, width, height) = blocking(move || Ok(probe::probe(&checked)?)).await?;
        let reference = Reference {
            id: new_id(),
            width,
            height,
            content_type: probe::content_type(format).into(),
            size_bytes: bytes.len() as u64,
            created_at: now(),
            source,
        };
        self.keep(project, reference, bytes.to_vec()).await
    }

    /// Grabs the frame of the stored video `video_key` at `at` as a PNG reference.
    pub async fn grab(
        &self,
        project: &str,
        video_key: &str,
        source: Source,
    ) -> Result<Reference, ReferenceError> {
        let picture = self.frame(video_key, source.at.at()).await?;
        let (width, height) = picture.dimensions();
        let png = blocking(move || Ok(probe::png(&picture))).await?;
        let reference = Reference {
            id: new_id(),
            width,
            height,
            content_type: "image/png".into(),
            size_bytes: png.len() as u64,
            created_at: now(),
            source: Some(source),
        };
        self.keep(project, reference, png).await
    }

    /// The picture of the stored video `video_key` at `at`.
    pub async fn frame(&self, video_key: &str, at: At) -> Result<RgbImage, ReferenceError> {
        let _turn = self.frames.acquire().await;
        let video = self.storage.read(video_key, MAX_VIDEO_BYTES).await?;
        blocking(move || {
            let size = video.len() as u64;
            Ok(crate::frames::frame_at(
                std::io::Cursor::new(video),
                size,
                at,
            )?)
        })
        .await
    }

    async fn keep(
        &self,
        project: &str,
        reference: Reference,
        bytes: Vec<u8>,
    ) -> Result<Reference, ReferenceError> {
        let _turn = self.adding.lock(project).await;
        let records = self.storage.list(&folder(project)).await?;
        if records.iter().filter(|o| o.key.ends_with(".json")).count() >= MAX_PER_PROJECT {
            return Err(ReferenceError::Full);
        }
        self.storage
            .put_bytes(&reference.key(project), bytes)
            .await?;
        let record = serde_json::to_vec_pretty(&reference).unwrap_or_default();
        self.storage
            .put_bytes(&record_key(project, &reference.id), record)
            .await?;
        tracing::info!(project = %project, reference = %reference.id, "reference image kept");
        Ok(reference)
    }

    /// The project's reference images, newest first.
    pub async fn list(&self, project: &str) -> Result<Vec<Reference>, ReferenceError> {
        let objects = self.storage.list(&folder(project)).await?;
        let mut found = Vec::new();
        for object in objects.iter().filter(|o| o.key.ends_with(".json")) {
            match self.storage.read(&object.key, MAX_RECORD_BYTES).await {
                Ok(bytes) => match serde_json::from_slice::<Reference>(&bytes) {
                    Ok(reference) => found.push(reference),
                    Err(e) => {
                        tracing::warn!(key = %object.key, error = %e, "unreadable reference record")
                    }
                },
                // Removed between the listing and the read.
                Err(StorageError::NotFound(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        found.sort_by(|a, b| b.id.cmp(&a.id));
        Ok(found)
    }

    /// One reference of `project`.
    pub async fn get(&self, project: &str, id: &str) -> Result<Reference, ReferenceError> {
        if !is_valid_id(id) {
            return Err(ReferenceError::NotFound);
        }
        match self
            .storage
            .read(&record_key(project, id), MAX_RECORD_BYTES)
            .await
        {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|_| ReferenceError::NotFound),
            Err(StorageError::NotFound(_)) => Err(ReferenceError::NotFound),
            Err(e) => Err(e.into()),
        }
    }

    /// The picture of one reference of `project`.
    pub async fn picture(&self, project: &str, id: &str) -> Result<RgbImage, ReferenceError> {
        let reference = self.get(project, id).await?;
        let bytes = self
            .storage
            .read(&reference.key(project), probe::MAX_BYTES as u64)
            .await?;
        blocking(move || Ok(probe::decode(&bytes)?)).await
    }

    pub async fn delete(&self, project: &str, id: &str) -> Result<(), ReferenceError> {
        let reference = self.get(project, id).await?;
        self.storage.delete(&reference.key(project)).await?;
        self.storage.delete(&record_key(project, id)).await?;
        Ok(())
    }
}

fn new_id() -> String {
    format!("ref_{}", ulid::Ulid::new().to_string().to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::LocalStorage;

    fn service(dir: &std::path::Path) -> References {
        let storage = LocalStorage::new(dir.join("media"), dir.join("tmp")).unwrap();
        References::new(Arc::new(storage))
    }

    #[tokio::test]
    async fn uploads_are_kept_listed_newest_first_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let refs = service(dir.path());
        let png = bytes::Bytes::from(probe::tests::png_of(120, 80));
        let a = refs.upload("p", png.clone()).await.unwrap();
        let b = refs.upload("p", png).await.unwrap();
        assert!(is_valid_id(&a.id));
        assert_eq!(
            (a.width, a.height, a.content_type.as_str()),
            (120, 80, "image/png")
        );
        let listed = refs.list("p").await.unwrap();
        assert_eq!(listed, vec![b.clone(), a.clone()]);
        assert!(refs.list("other").await.unwrap().is_empty());
        assert!(matches!(
            refs.get("other", &a.id).await,
            Err(ReferenceError::NotFound)
        ));
        assert_eq!(
            refs.picture("p", &a.id).await.unwrap().dimensions(),
            (120, 80)
        );
        refs.delete("p", &a.id).await.unwrap();
        assert_eq!(refs.list("p").await.unwrap(), vec![b]);
        assert!(matches!(
            refs.delete("p", &a.id).await,
            Err(ReferenceError::NotFound)
        ));
    }

    #[tokio::test]
    async fn a_project_keeps_a_bounded_number() {
        let dir = tempfile::tempdir().unwrap();
        let refs = service(dir.path());
        let png = bytes::Bytes::from(probe::tests::png_of(64, 64));
        for _ in 0..MAX_PER_PROJECT {
            refs.upload("p", png.clone()).await.unwrap();
        }
        assert!(matches!(
            refs.upload("p", png.clone()).await,
            Err(ReferenceError::Full)
        ));
        assert!(refs.upload("other", png).await.is_ok(), "per project");
    }

    /// Fails on counting, then keeping, without a turn: 20 uploads at once at 199 references
    /// each counted 199, and the project ended with 219.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn uploads_at_once_never_pass_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let refs = service(dir.path());
        let png = bytes::Bytes::from(probe::tests::png_of(64, 64));
        for _ in 1..MAX_PER_PROJECT {
            refs.upload("p", png.clone()).await.unwrap();
        }
        let uploads = (0..20).map(|_| {
            let (refs, png) = (refs.clone(), png.clone());
            tokio::spawn(async move { refs.upload("p", png).await })
        });
        let kept = futures_util::future::join_all(uploads)
            .await
            .into_iter()
            .filter(|upload| upload.as_ref().unwrap().is_ok())
            .count();
        assert_eq!(kept, 1, "one place was left");
        assert_eq!(refs.list("p").await.unwrap().len(), MAX_PER_PROJECT);
    }

    #[test]
    fn moments_read_as_the_api_writes_them() {
        let read = |s: &str| serde_json::from_str::<Moment>(s).map(Moment::at);
        assert_eq!(read("\"first\"").unwrap(), At::First);
        assert_eq!(read("\"last\"").unwrap(), At::Last);
        assert_eq!(read("2.5").unwrap(), At::Seconds(2.5));
        assert!(read("\"middle\"").is_err());
    }
}
