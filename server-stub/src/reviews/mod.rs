//! Review links: a share of some of a project's videos, opened by a token that asks no bearer,
//! and the time-coded comments and decisions reviewers leave on it. Everything is kept in the
//! project's storage, so every replica sharing it sees a new note, a revocation or an expiry at
//! once:
//! - `shares/{id}/share.json`: the share (its token only as a hash);
//! - `shares/{id}/notes/{unix ms}-{random}.json`: one comment or decision each, never changed;
//! - `projects/{folder}/shares/{id}`: an empty object, so one listing finds a project's shares.

pub mod token;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use futures_util::stream::{self, StreamExt, TryStreamExt};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::jobs::database::{Database, Posted};
use crate::keyed_lock::KeyedLocks;
use crate::storage::{Storage, StorageError};

/// The most comments and decisions one link takes in a minute.
pub const NOTES_PER_MINUTE: usize = 60;
/// The most comments and decisions one link takes in all: a page view reads every one, so a
/// link left open to the world cannot be filled without end.
pub const NOTES_PER_LINK: usize = 2_000;
/// A share.json or note is at most this large.
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

#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    #[error("at most {NOTES_PER_MINUTE} comments and decisions a minute on one link")]
    TooMany { retry_after: u64 },
    #[error("This review link has taken its {NOTES_PER_LINK} comments and decisions; ask the studio for a new one")]
    Full,
    #[error(transparent)]
    Storage(#[from] StorageError),
}

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

fn unix_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// Now as RFC 3339.
pub fn timestamp() -> String {
    now().format(&Rfc3339).unwrap_or_default()
}

fn share_key(id: &str) -> String {
    format!("shares/{id}/share.json")
}

fn notes_folder(id: &str) -> String {
    format!("shares/{id}/notes/")
}

fn index_folder(project_folder: &str) -> String {
    format!("projects/{project_folder}/shares/")
}

/// The last moment a note id was made of on this server.
static LAST_NOTE_MS: AtomicU64 = AtomicU64::new(0);

/// The shortest client id a post may carry (a note's own random part is shorter, so the two
/// never meet).
pub const CLIENT_ID_MIN: usize = 16;
pub const CLIENT_ID_MAX: usize = 64;

/// Whether `id` may be a post's client id: 16 to 64 letters, digits or `_`.
pub fn is_client_id(id: &str) -> bool {
    (CLIENT_ID_MIN..=CLIENT_ID_MAX).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A new note's id: its moment in milliseconds (later than the last one made here, so the
/// notes of one server sort in the order they came), then the client id its post carried (so
/// a repeat of the post finds it), else randomness.
pub fn note_id(client: Option<&str>) -> String {
    let now = u64::try_from(unix_millis()).unwrap_or(u64::MAX);
    let at = LAST_NOTE_MS
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
            Some(now.max(last + 1))
        })
        .map_or(now, |last| now.max(last + 1));
    match client {
        Some(client) => format!("{at:013}-{client}"),
        None => format!("{at:013}-{:08x}", rand::rng().next_u32()),
    }
}

/// The client id note `id` was posted with, if any.
fn client_of(id: &str) -> Option<&str> {
    id.split_once('-')
        .map(|(_, rest)| rest)
        .filter(|rest| is_client_id(rest))
}

/// What became of a note posted.
#[derive(Debug, PartialEq)]
pub enum Added {
    Kept,
    /// A repeat of a post already kept (the same client id): nothing new is kept, and this is
    /// the note the first one kept.
    Repeat(Note),
}

/// Makes a share of `videos` for `hours`; the share and its token (given out once, never kept).
pub async fn create(
    storage: &dyn Storage,
    project: &str,
    project_folder: &str,
    videos: Vec<String>,
    hours: u32,
    comments: bool,
) -> Result<(Share, String), StorageError> {
    let (token, hash) = token::issue();
    let id = token::id_of(&hash).to_owned();
    let share = Share {
        id: id.clone(),
        project: project.to_owned(),
        hash,
        videos,
        comments,
        created_at: timestamp(),
        expires_at: (now() + time::Duration::hours(i64::from(hours)))
            .format(&Rfc3339)
            .unwrap_or_default(),
    };
    let bytes = serde_json::to_vec(&share).map_err(std::io::Error::other)?;
    storage.put_bytes(&share_key(&id), bytes).await?;
    storage
        .put_bytes(&format!("{}{id}", index_folder(project_folder)), Vec::new())
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
    project_folder: &str,
) -> Result<Vec<Share>, StorageError> {
    let folder = index_folder(project_folder);
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
    project_folder: &str,
    share: &Share,
) -> Result<(), StorageError> {
    storage.delete(&share_key(&share.id)).await?;
    storage
        .delete(&format!("{}{}", index_folder(project_folder), share.id))
        .await?;
    let folder = notes_folder(&share.id);
    for note in storage.list(&folder).await?.iter() {
        storage.delete(&note.key).await?;
    }
    Ok(())
}

/// A share's notes, oldest first.
pub async fn notes(storage: &dyn Storage, id: &str) -> Result<Vec<Note>, StorageError> {
    let mut keys: Vec<String> = storage
        .list(&notes_folder(id))
        .await?
        .iter()
        .map(|o| o.key.clone())
        .collect();
    keys.sort();
    let read: Vec<Option<Note>> = stream::iter(keys)
        .map(|key| async move {
            match storage.read(&key, RECORD_MAX).await {
                Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
                Err(StorageError::NotFound(_)) => Ok(None),
                Err(e) => Err(e),
            }
        })
        .buffered(READS_AT_ONCE)
        .try_collect()
        .await?;
    Ok(read.into_iter().flatten().collect())
}

/// Posts on one link take turns on this server, so two at once cannot both take the 60th
/// place; posts on other links never wait for them.
static POSTING: KeyedLocks = KeyedLocks::new();

/// Keeps a note on a share, unless the link took its 60 notes in the last minute: counted in
/// the database when replicas share one (every replica counts alike), else from the stored
/// notes.
pub async fn add(
    storage: &dyn Storage,
    database: Option<&Database>,
    share: &Share,
    note: &Note,
) -> Result<Added, NoteError> {
    let _turn = POSTING.lock(&share.id).await;
    let folder = notes_folder(&share.id);
    let id = match note {
        Note::Comment(c) => &c.id,
        Note::Decision(d) => &d.id,
    };
    let keep = async {
        // Under the link's lock, on every server: the notes kept so far, read afresh.
        storage.changed_elsewhere(&folder);
        let kept = storage.list(&folder).await?;
        if let Some(client) = client_of(id) {
            let suffix = format!("-{client}.json");
            if let Some(first) = kept.iter().find(|o| o.key.ends_with(&suffix)) {
                let bytes = storage.read(&first.key, RECORD_MAX).await?;
                let note = serde_json::from_slice(&bytes)
                    .map_err(|e| StorageError::Io(std::io::Error::other(e)))?;
                return Ok(Added::Repeat(note));
            }
        }
        if kept.len() >= NOTES_PER_LINK {
            return Err(NoteError::Full);
        }
        let bytes =
            serde_json::to_vec(note).map_err(|e| StorageError::Io(std::io::Error::other(e)))?;
        storage
            .put_bytes(&format!("{folder}{id}.json"), bytes)
            .await?;
        Ok(Added::Kept)
    };
    if let Some(database) = database {
        return match database
            .post_note(&share.id, NOTES_PER_MINUTE, keep)
            .await
            .map_err(|e| StorageError::Io(std::io::Error::other(e)))?
        {
            Posted::Kept(added) => Ok(added),
            Posted::TooMany { retry_after } => Err(NoteError::TooMany { retry_after }),
            Posted::Failed(e) => Err(e),
        };
    }
    let since = unix_millis().saturating_sub(60_000);
    let mut recent: Vec<u128> = storage
        .list(&folder)
        .await?
        .iter()
        .filter_map(|o| o.key[folder.len()..].split('-').next()?.parse().ok())
        .filter(|&at| at > since)
        .collect();
    if recent.len() >= NOTES_PER_MINUTE {
        recent.sort_unstable();
        let free_at = recent[recent.len() - NOTES_PER_MINUTE] + 60_000;
        let wait = free_at.saturating_sub(unix_millis()).div_ceil(1000);
        return Err(NoteError::TooMany {
            retry_after: u64::try_from(wait).unwrap_or(60).max(1),
        });
    }
    keep.await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::LocalStorage;

    fn comment(video: &str) -> Note {
        Note::Comment(ReviewComment {
            id: note_id(None),
            video: video.into(),
            at_seconds: 1.5,
            name: "Ana".into(),
            text: "<b>warmer</b>".into(),
            created_at: timestamp(),
        })
    }

    #[tokio::test]
    async fn a_share_lives_until_revoked_and_keeps_its_notes_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
        let (share, token) = create(&storage, "p", "p", vec!["a.mp4".into()], 72, true)
            .await
            .unwrap();
        assert!(
            !std::fs::read_to_string(dir.path().join("media").join(share_key(&share.id)))
                .unwrap()
                .contains(&token)
        );
        let opened = open(&storage, &token).await.unwrap().unwrap();
        assert_eq!(opened.videos, ["a.mp4"]);
        let first = comment("a.mp4");
        // The form the event stream and the app read: `kind` is `comment` or `decision`.
        let wire = serde_json::to_value(&first).unwrap();
        assert_eq!(wire["kind"], "comment");
        let second = comment("a.mp4");
        add(&storage, None, &share, &first).await.unwrap();
        add(&storage, None, &share, &second).await.unwrap();
        assert_eq!(notes(&storage, &share.id).await.unwrap(), [first, second]);
        assert_eq!(of_project(&storage, "p", "p").await.unwrap().len(), 1);
        assert!(get(&storage, "other", &share.id).await.unwrap().is_none());
        revoke(&storage, "p", &share).await.unwrap();
        assert!(open(&storage, &token).await.unwrap().is_none());
        assert!(of_project(&storage, "p", "p").await.unwrap().is_empty());
        assert!(notes(&storage, &share.id).await.unwrap().is_empty());
    }

    /// Fails on a post repeated after its answer was lost keeping a second note.
    #[tokio::test]
    async fn a_repeated_post_keeps_one_note_and_answers_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
        let (share, _) = create(&storage, "p", "p", vec!["a.mp4".into()], 1, true)
            .await
            .unwrap();
        let with_client = |client: &str| {
            let Note::Comment(mut c) = comment("a.mp4") else {
                unreachable!()
            };
            c.id = note_id(Some(client));
            Note::Comment(c)
        };
        let first = with_client("c0ffee0123456789abcd");
        assert_eq!(
            add(&storage, None, &share, &first).await.unwrap(),
            Added::Kept
        );
        let again = with_client("c0ffee0123456789abcd");
        assert_eq!(
            add(&storage, None, &share, &again).await.unwrap(),
            Added::Repeat(first.clone())
        );
        let other = with_client("c0ffee0123456789abce");
        assert_eq!(
            add(&storage, None, &share, &other).await.unwrap(),
            Added::Kept
        );
        let plain = comment("a.mp4");
        assert_eq!(
            add(&storage, None, &share, &plain).await.unwrap(),
            Added::Kept
        );
        assert_eq!(
            notes(&storage, &share.id).await.unwrap(),
            [first, other, plain]
        );
        assert!(!is_client_id("short") && !is_client_id("has-a-dash-in-it-x"));
    }

    #[tokio::test]
    async fn a_link_takes_sixty_notes_a_minute() {
        let dir = tempfile::tempdir().unwrap();
        let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
        let (share, _) = create(&storage, "p", "p", vec!["a.mp4".into()], 1, true)
            .await
            .unwrap();
        for _ in 0..NOTES_PER_MINUTE {
            add(&storage, None, &share, &comment("a.mp4"))
                .await
                .unwrap();
        }
        match add(&storage, None, &share, &comment("a.mp4")).await {
            Err(NoteError::TooMany { retry_after }) => assert!((1..=60).contains(&retry_after)),
            other => panic!("expected TooMany, got {other:?}"),
        }
    }

    /// Fails on a link with no total: 60 a minute, for as long as it lived.
    #[tokio::test]
    async fn a_link_takes_its_total_and_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
        let (share, _) = create(&storage, "p", "p", vec!["a.mp4".into()], 1, true)
            .await
            .unwrap();
        // The notes of days past, all but the last place taken.
        let folder = notes_folder(&share.id);
        for n in 0..NOTES_PER_LINK - 1 {
            let key = format!("{folder}{:013}-{n:08x}.json", n + 1);
            storage.put_bytes(&key, b"{}".to_vec()).await.unwrap();
        }
        add(&storage, None, &share, &comment("a.mp4"))
            .await
            .unwrap();
        match add(&storage, None, &share, &comment("a.mp4")).await {
            Err(NoteError::Full) => {}
            other => panic!("expected Full, got {other:?}"),
        }
    }

    #[test]
    fn expiry_is_read_from_the_share() {
        let mut share = Share {
            id: "0".repeat(32),
            project: "p".into(),
            hash: String::new(),
            videos: vec![],
            comments: true,
            created_at: timestamp(),
            expires_at: timestamp(),
        };
        assert!(share.expired());
        share.expires_at = (now() + time::Duration::hours(1)).format(&Rfc3339).unwrap();
        assert!(!share.expired());
    }
}
