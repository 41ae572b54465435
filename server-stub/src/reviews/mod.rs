//! Review links: a share of some of a project's videos, opened by a token that asks no bearer,
//! and the time-coded comments and decisions reviewers leave on it. Everything is kept in the
//! project's storage, so every replica sharing it sees a new note, a revocation or an expiry at
//! once:
//! - `shares/{id}/share.json`: the share (its token only as a hash);
//! - `shares/{id}/notes.json`: its comments and decisions, oldest first (see [`notes`]);
//! - `projects/{folder}/shares/{id}`: an empty object, so one listing finds a project's shares.

mod notes;
pub mod token;

use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::project::ProjectFolder;
use crate::storage::{Storage, StorageError};

pub use notes::{
    add, is_client_id, note_id, notes, Added, NoteError, NOTES_PER_LINK, NOTES_PER_MINUTE,
};

/// A share.json is at most this large.
const RECORD_MAX: u64 = 64 * 1024;
/// Notes read at once when a share is shown.
const READS_AT_ONCE: usize = 16;

/// A share as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Share {
    pub id: String,
    pub project: String,
    /// The hex SHA-256 of the token.
    pub hash: String,
    /// The shared videos' file names.
    pub videos: Vec<String>,
    /// Whether reviewers may comment (they may always decide).
    pub comments: bool,
    /// The name the page shows as its heading (links made before titles have none).
    #[serde(default)]
    pub title: Option<String>,
    pub created_at: String,
    pub expires_at: String,
}

impl Share {
    pub fn expired(&self) -> bool {
        OffsetDateTime::parse(&self.expires_at, &Rfc3339).is_ok_and(|at| at <= now())
    }
}

/// A reviewer's comment at a moment of a video.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ReviewComment {
    pub id: String,
    /// The video's file name.
    pub video: String,
    /// Where in the video, in seconds.
    pub at_seconds: f64,
    pub name: String,
    pub text: String,
    pub created_at: String,
}

/// A reviewer's verdict on a video.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approved,
    ChangesRequested,
}

/// A reviewer's decision on a video.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ReviewDecision {
    pub id: String,
    pub video: String,
    pub decision: Verdict,
    pub name: String,
    pub created_at: String,
}

/// One note of a share, as stored and as pushed to the studio.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Note {
    Comment(ReviewComment),
    Decision(ReviewDecision),
}

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// Now as RFC 3339.
pub use crate::clock::now as timestamp;

fn share_key(id: &str) -> String {
    format!("shares/{id}/share.json")
}

/// Makes a share of `videos` for `hours`; the share and its token (given out once, never kept).
pub async fn create(
    storage: &dyn Storage,
    project: &str,
    folder: &ProjectFolder,
    videos: Vec<String>,
    hours: u32,
    comments: bool,
    title: Option<String>,
) -> Result<(Share, String), StorageError> {
    let (token, hash) = token::issue();
    let id = token::id_of(&hash).to_owned();
    let share = Share {
        id: id.clone(),
        project: project.to_owned(),
        hash,
        videos,
        comments,
        title,
        created_at: timestamp(),
        expires_at: (now() + time::Duration::hours(i64::from(hours)))
            .format(&Rfc3339)
            .unwrap_or_default(),
    };
    let bytes = serde_json::to_vec(&share).map_err(std::io::Error::other)?;
    notes::start(storage, &id).await?;
    storage.put_bytes(&share_key(&id), bytes).await?;
    storage
        .put_bytes(&format!("{}{id}", folder.shares()), Vec::new())
        .await?;
    Ok((share, token))
}

async fn read_share(storage: &dyn Storage, id: &str) -> Result<Option<Share>, StorageError> {
    match storage.read(&share_key(id), RECORD_MAX).await {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
        Err(StorageError::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The live share a token opens: none for a malformed, unknown, revoked or expired token.
pub async fn open(storage: &dyn Storage, token: &str) -> Result<Option<Share>, StorageError> {
    let Some((id, hash)) = token::share_id(token) else {
        return Ok(None);
    };
    Ok(read_share(storage, &id)
        .await?
        .filter(|share| token::same(&share.hash, &hash) && !share.expired()))
}

/// The share `id` of `project` (expired or not).
pub async fn get(
    storage: &dyn Storage,
    project: &str,
    id: &str,
) -> Result<Option<Share>, StorageError> {
    if !token::is_id(id) {
        return Ok(None);
    }
    Ok(read_share(storage, id)
        .await?
        .filter(|share| share.project == project))
}

/// Every share of a project, newest first.
pub async fn of_project(
    storage: &dyn Storage,
    project: &str,
    folder: &ProjectFolder,
) -> Result<Vec<Share>, StorageError> {
    let folder = folder.shares();
    let ids: Vec<String> = storage
        .list(&folder)
        .await?
        .iter()
        .map(|o| o.key[folder.len()..].to_owned())
        .filter(|id| token::is_id(id))
        .collect();
    let mut shares: Vec<Share> = stream::iter(ids)
        .map(|id| async move { get(storage, project, &id).await })
        .buffer_unordered(READS_AT_ONCE)
        .try_filter_map(|share| async move { Ok(share) })
        .try_collect()
        .await?;
    shares.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    Ok(shares)
}

/// Ends a share: its link is dead from the first deletion on; its notes go with it.
pub async fn revoke(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    share: &Share,
) -> Result<(), StorageError> {
    storage.delete(&share_key(&share.id)).await?;
    storage
        .delete(&format!("{}{}", folder.shares(), share.id))
        .await?;
    notes::forget(storage, &share.id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_is_read_from_the_share() {
        let mut share = Share {
            id: "0".repeat(32),
            project: "p".into(),
            hash: String::new(),
            videos: vec![],
            comments: true,
            title: None,
            created_at: timestamp(),
            expires_at: timestamp(),
        };
        assert!(share.expired());
        share.expires_at = (now() + time::Duration::hours(1)).format(&Rfc3339).unwrap();
        assert!(!share.expired());
    }
}
