//! Sequences: a project's cuts. A sequence has a name, a frame rate, a size, a fit and its shots
//! in order; a shot has a label, an optional prompt, its candidate takes (library videos), the
//! chosen take and the in and out points into it. Times are kept in whole frames of the
//! sequence's rate, as editors keep them, so 500 shots add up with no drift; the API speaks
//! seconds (`frames.rs`).
//!
//! Kept in the project's storage (`sequences/{folder}/{id}.json`, never served), so every
//! replica sharing it sees the same sequence. A change names the version it was made from; one
//! made from another version is refused, under the sequence's lock (`locked.rs`), which every
//! replica shares when they share a database: two editors never overwrite each other silently.

pub mod captions;
pub mod export;
pub mod lanes;
pub use studio_core::sequence::frames;
pub mod locked;
pub mod probe;
pub mod timeline;

use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::clock::now;
use crate::database::{Database, DbError};
use crate::engine::Fit;
use crate::project::ProjectFolder;
use crate::storage::{Storage, StorageError};
use export::loudness::Loudness;
use lanes::Lanes;

/// The frame rates a sequence may have; the first is the default.
pub const FPS_OFFERED: [u32; 3] = [24, 25, 30];
/// A sequence's size unless told.
pub const DEFAULT_SIZE: &str = "1280x720";
/// The most shots a sequence holds.
pub const MAX_SHOTS: usize = 500;
/// The most candidate takes a shot holds.
pub const MAX_SHOT_TAKES: usize = 100;
/// The longest name or shot label, in characters.
pub const MAX_LABEL: usize = 200;
/// A stored sequence is at most this large (500 shots of long labels, prompts and takes).
const RECORD_MAX: u64 = 8 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum SequenceError {
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Database(#[from] DbError),
    #[error("sequence {0} cannot be read: {1}")]
    Damaged(String, serde_json::Error),
}

/// A sequence as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sequence {
    pub id: String,
    pub name: String,
    pub fps: u32,
    /// `WxH`.
    pub size: String,
    pub fit: Fit,
    /// The standard an export brings its sound to (off when not told).
    #[serde(default)]
    pub loudness: Loudness,
    /// Music and voice under the shots.
    #[serde(default)]
    pub lanes: Lanes,
    /// How much the music drops under a voice clip, in dB.
    #[serde(default = "lanes::default_duck")]
    pub duck_db: f64,
    /// 1 when made; one more at each change.
    pub version: u64,
    pub shots: Vec<Shot>,
    /// RFC 3339.
    pub updated_at: String,
}

/// One shot of a sequence, its points in frames of the sequence's rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shot {
    pub id: String,
    pub label: String,
    pub prompt: Option<String>,
    /// Library file names, in the order they were added.
    pub takes: Vec<String>,
    /// The chosen take, one of `takes`.
    pub take: Option<String>,
    pub in_frame: u64,
    pub out_frame: u64,
    /// Shown over the shot (`captions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caption: Option<captions::Caption>,
    /// The take's own sound: its gain in dB, or muted.
    #[serde(default)]
    pub gain_db: f64,
    #[serde(default)]
    pub mute: bool,
    /// Where the crop window's centre sits in the take when the take is cropped to another
    /// shape (its centre when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reframe: Option<Reframe>,
    /// How long the shot is meant to be, in frames (a script's import plans it from its
    /// words): the length its takes are made at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_frames: Option<u64>,
}

/// A point of a picture, each side from 0 to 1: (0.5, 0.5) is its centre.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Reframe {
    /// 0 (left) to 1 (right).
    #[schema(minimum = 0, maximum = 1)]
    pub x: f64,
    /// 0 (top) to 1 (bottom).
    #[schema(minimum = 0, maximum = 1)]
    pub y: f64,
}

impl Reframe {
    pub const CENTRE: Reframe = Reframe { x: 0.5, y: 0.5 };

    pub fn is_valid(self) -> bool {
        (0.0..=1.0).contains(&self.x) && (0.0..=1.0).contains(&self.y)
    }
}

impl Sequence {
    /// The sequence's length in frames.
    pub fn frames(&self) -> u64 {
        self.shots.iter().map(|s| s.out_frame - s.in_frame).sum()
    }
}

/// Which shot of which sequence a job is a take of: its video joins the shot's takes when it
/// is saved to the library (and becomes the chosen take if the shot had none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShotLink {
    /// The sequence's id.
    pub sequence: String,
    /// The shot's id.
    pub shot: String,
}

/// Adds the library video `take` to the takes of the shot `link` names (and makes it the
/// chosen take if the shot has none), under the sequence's lock: the sequence at its next
/// version, or `None` when the sequence or shot is gone, already has the take or holds
/// `MAX_SHOT_TAKES` (the video stays in the library either way).
pub async fn join_take(
    storage: &dyn Storage,
    database: Option<&Database>,
    project: &str,
    folder: &ProjectFolder,
    link: &ShotLink,
    take: &str,
) -> Result<Option<Sequence>, SequenceError> {
    locked::changing(database, project, &link.sequence, async {
        let Some(mut sequence) = get(storage, folder, &link.sequence).await? else {
            return Ok(None);
        };
        let Some(shot) = sequence.shots.iter_mut().find(|s| s.id == link.shot) else {
            return Ok(None);
        };
        if shot.takes.iter().any(|t| t == take) {
            return Ok(None);
        }
        if shot.takes.len() >= MAX_SHOT_TAKES {
            tracing::warn!(
                sequence = %link.sequence, shot = %link.shot, take,
                "a shot at its {MAX_SHOT_TAKES} takes did not take another"
            );
            return Ok(None);
        }
        shot.takes.push(take.to_owned());
        shot.take.get_or_insert_with(|| take.to_owned());
        sequence.version += 1;
        sequence.updated_at = now();
        put(storage, folder, &sequence).await?;
        Ok(Some(sequence))
    })
    .await
}

/// A new id: `seq_` or `shot_` and 16 hex digits.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{:016x}", rand::rng().next_u64())
}

/// Whether `id` is one this server could have made (or a client may name a shot with).
pub fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The sequence `id` of the project in `folder`, if there is one.
pub async fn get(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    id: &str,
) -> Result<Option<Sequence>, SequenceError> {
    if !valid_id(id) {
        return Ok(None);
    }
    match storage.read(&folder.sequence(id), RECORD_MAX).await {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| SequenceError::Damaged(id.to_owned(), e)),
        Err(StorageError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Writes `sequence` over what is stored.
pub async fn put(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    sequence: &Sequence,
) -> Result<(), SequenceError> {
    let bytes =
        serde_json::to_vec(sequence).map_err(|e| SequenceError::Damaged(sequence.id.clone(), e))?;
    storage
        .put_bytes(&folder.sequence(&sequence.id), bytes)
        .await?;
    Ok(())
}

/// The project's sequences, most recently changed first.
pub async fn all(
    storage: &dyn Storage,
    folder: &ProjectFolder,
) -> Result<Vec<Sequence>, SequenceError> {
    let mut sequences = Vec::new();
    for object in storage.list(&folder.sequences()).await?.iter() {
        let Some(id) = crate::storage::file_name(&object.key).strip_suffix(".json") else {
            continue;
        };
        if let Some(sequence) = get(storage, folder, id).await? {
            sequences.push(sequence);
        }
    }
    sequences.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    Ok(sequences)
}

/// Removes the sequence `id`.
pub async fn remove(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    id: &str,
) -> Result<(), SequenceError> {
    storage.delete(&folder.sequence(id)).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Fit;
    use crate::storage::LocalStorage;

    #[tokio::test]
    async fn a_shot_at_its_takes_cap_takes_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let storage = LocalStorage::new(dir.path().join("data"), dir.path().join("tmp")).unwrap();
        let takes: Vec<String> = (0..MAX_SHOT_TAKES).map(|n| format!("t{n}.mp4")).collect();
        let sequence = Sequence {
            id: "seq_full".into(),
            name: "Full".into(),
            fps: 24,
            size: DEFAULT_SIZE.into(),
            fit: Fit::Crop,
            loudness: Loudness::Off,
            lanes: Default::default(),
            duck_db: lanes::DUCK_DB,
            version: 1,
            shots: vec![Shot {
                id: "s1".into(),
                label: "Shot 1".into(),
                prompt: None,
                takes: takes[..MAX_SHOT_TAKES - 1].to_vec(),
                take: Some("t0.mp4".into()),
                in_frame: 0,
                out_frame: 24,
                caption: None,
                gain_db: 0.0,
                mute: false,
                reframe: None,
                planned_frames: None,
            }],
            updated_at: now(),
        };
        put(&storage, &ProjectFolder::of("p"), &sequence)
            .await
            .unwrap();
        let link = ShotLink {
            sequence: "seq_full".into(),
            shot: "s1".into(),
        };
        let last = &takes[MAX_SHOT_TAKES - 1];
        let joined = join_take(&storage, None, "p", &ProjectFolder::of("p"), &link, last)
            .await
            .unwrap();
        assert_eq!(joined.unwrap().shots[0].takes.len(), MAX_SHOT_TAKES);
        let refused = join_take(
            &storage,
            None,
            "p",
            &ProjectFolder::of("p"),
            &link,
            "one-more.mp4",
        )
        .await
        .unwrap();
        assert_eq!(refused, None);
        let stored = get(&storage, &ProjectFolder::of("p"), "seq_full")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.shots[0].takes.len(), MAX_SHOT_TAKES);
        assert_eq!(stored.version, 2);
    }
}
