//! What a take's own file says of it: its frame rate and its length in its own frames, read
//! from its header by range (its boxes, never its pictures). A take whose header cannot be read
//! is taken to run at the sequence's rate, for the length its metadata gives, if any.

use super::frames;
use super::timeline::{Rate, SourceFile};
use crate::project::ProjectFolder;
use crate::storage::Storage;

/// The library video `name` of the project's `folder`, as its header (else its metadata, at
/// `fps`) says.
pub async fn take_file(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    name: &str,
    fps: u32,
) -> Option<SourceFile> {
    match from_header(storage, &folder.file(name)).await {
        Some(source) => Some(source),
        None => {
            let seconds = from_metadata(storage, folder, name).await?;
            Some(SourceFile {
                rate: Rate::whole(fps),
                frames: frames::of_seconds(seconds, fps),
            })
        }
    }
}

async fn from_header(storage: &dyn Storage, key: &str) -> Option<SourceFile> {
    let size = storage.head(key).await.ok()??.size_bytes;
    let video = crate::poster::Sparse::boxes(storage, key, size)
        .await
        .ok()?;
    let info = tokio::task::spawn_blocking(move || crate::frames::track_info(video, size))
        .await
        .ok()?
        .ok()?;
    Some(SourceFile {
        rate: Rate::of_track(info.timescale, info.frame_ticks)?,
        frames: Some(u64::from(info.frames)),
    })
}

/// How long the library video `name` is, in seconds, when its metadata says.
async fn from_metadata(storage: &dyn Storage, folder: &ProjectFolder, name: &str) -> Option<f64> {
    let stem = name.strip_suffix(".mp4")?;
    let bytes = storage
        .read(&folder.companion(stem, "json"), 64 * 1024)
        .await
        .ok()?;
    let metadata: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    metadata.get("seconds")?.as_f64()
}
