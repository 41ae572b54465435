//! A review link's comments and decisions. They are kept in one object, `shares/{id}/notes.json`
//! (a JSON array, oldest first), so a page view reads them all with one GET, whatever their
//! number; a post reads it, adds its note and writes it back, under the link's lock (the
//! database's when replicas share one, else this server's). Notes are never changed once kept.
//!
//! Links made before kept a note per object, `shares/{id}/notes/{unix ms}-{random}.json`: they
//! are still read (a listing and a GET each), and become the one object at the link's next post.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use futures_util::stream::{self, StreamExt, TryStreamExt};
use rand::RngCore;

use super::{Note, Share};
use crate::database::{Database, Posted};
use crate::keyed_lock::KeyedLocks;
use crate::storage::{Storage, StorageError};

/// The most comments and decisions one link takes in a minute.
pub const NOTES_PER_MINUTE: usize = 60;
/// The most comments and decisions one link takes in all: a page view reads every one, so a
/// link left open to the world cannot be filled without end.
pub const NOTES_PER_LINK: usize = 2_000;
/// A note as stored is at most this large: 80 characters of name and 2,000 of text, each up to
/// 6 bytes once escaped, and the fields around them.
const NOTE_MAX: u64 = 16 * 1024;
/// A link's notes object is at most this large (32 MB).
const NOTES_MAX: u64 = NOTE_MAX * NOTES_PER_LINK as u64;
/// A link's old-style notes read at once.
const READS_AT_ONCE: usize = 16;

#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    #[error("at most {NOTES_PER_MINUTE} comments and decisions a minute on one link")]
    TooMany { retry_after: u64 },
    #[error("This review link has taken its {NOTES_PER_LINK} comments and decisions; ask the studio for a new one")]
    Full,
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// What became of a note posted.
#[derive(Debug, PartialEq)]
pub enum Added {
    Kept,
    /// A repeat of a post already kept (the same client id): nothing new is kept, and this is
    /// the note the first one kept.
    Repeat(Note),
}

impl Note {
    fn id(&self) -> &str {
        match self {
            Note::Comment(c) => &c.id,
            Note::Decision(d) => &d.id,
        }
    }

    /// The moment (Unix milliseconds) its id was made at.
    fn millis(&self) -> Option<u128> {
        self.id().split('-').next()?.parse().ok()
    }
}

fn notes_key(id: &str) -> String {
    format!("shares/{id}/notes.json")
}

fn old_notes_folder(id: &str) -> String {
    format!("shares/{id}/notes/")
}

fn unix_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// The last moment a note id was made of on this server.
static LAST_NOTE_MS: AtomicU64 = AtomicU64::new(0);

/// The shortest client id a post may carry (a note's own random part is shorter, so the two
/// never meet).
const CLIENT_ID_MIN: usize = 16;
const CLIENT_ID_MAX: usize = 64;

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

/// A new link's notes: none.
pub(super) async fn start(storage: &dyn Storage, id: &str) -> Result<(), StorageError> {
    storage.put_bytes(&notes_key(id), b"[]".to_vec()).await?;
    Ok(())
}

/// A link's notes, oldest first, and whether they are still kept the old way.
async fn read(storage: &dyn Storage, id: &str) -> Result<(Vec<Note>, bool), StorageError> {
    match storage.read(&notes_key(id), NOTES_MAX).await {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(|notes| (notes, false))
            .map_err(|e| StorageError::Io(std::io::Error::other(e))),
        Err(StorageError::NotFound(_)) => Ok((read_old(storage, id).await?, true)),
        Err(e) => Err(e),
    }
}

/// A link's notes kept one per object, oldest first.
async fn read_old(storage: &dyn Storage, id: &str) -> Result<Vec<Note>, StorageError> {
    let mut keys: Vec<String> = storage
        .list(&old_notes_folder(id))
        .await?
        .iter()
        .map(|o| o.key.clone())
        .collect();
    keys.sort();
    let read: Vec<Option<Note>> = stream::iter(keys)
        .map(|key| async move {
            match storage.read(&key, NOTE_MAX).await {
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

/// A share's notes, oldest first: one GET.
pub async fn notes(storage: &dyn Storage, id: &str) -> Result<Vec<Note>, StorageError> {
    Ok(read(storage, id).await?.0)
}

/// Removes a link's notes (the link is revoked).
pub(super) async fn forget(storage: &dyn Storage, id: &str) -> Result<(), StorageError> {
    storage.delete(&notes_key(id)).await?;
    remove_old(storage, id).await
}

async fn remove_old(storage: &dyn Storage, id: &str) -> Result<(), StorageError> {
    for note in storage.list(&old_notes_folder(id)).await?.iter() {
        storage.delete(&note.key).await?;
    }
    Ok(())
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
    let keep = |kept: Vec<Note>, old: bool| async move {
        if let Some(client) = client_of(note.id()) {
            if let Some(first) = kept.iter().find(|k| client_of(k.id()) == Some(client)) {
                return Ok(Added::Repeat(first.clone()));
            }
        }
        if kept.len() >= NOTES_PER_LINK {
            return Err(NoteError::Full);
        }
        let mut kept = kept;
        kept.push(note.clone());
        let bytes =
            serde_json::to_vec(&kept).map_err(|e| StorageError::Io(std::io::Error::other(e)))?;
        storage.put_bytes(&notes_key(&share.id), bytes).await?;
        if old {
            // They are in the one object now; left behind, they would only take room.
            if let Err(e) = remove_old(storage, &share.id).await {
                tracing::warn!(share = %share.id, error = %e, "old review notes not removed");
            }
        }
        Ok(Added::Kept)
    };
    if let Some(database) = database {
        // Under the link's lock, on every server: the notes kept so far, read afresh.
        let keep = async {
            let (kept, old) = read(storage, &share.id).await?;
            keep(kept, old).await
        };
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
    let (kept, old) = read(storage, &share.id).await?;
    let since = unix_millis().saturating_sub(60_000);
    let mut recent: Vec<u128> = kept
        .iter()
        .filter_map(Note::millis)
        .filter(|&at| at > since)
        .collect();
    if recent.len() >= NOTES_PER_MINUTE {
        recent.sort_unstable();
        let free_at = recent[recent.len() - NOTES_PER_MINUTE] + 60_000;
        let wait = free_at.saturating_sub(unix_millis()).div_ceil(1000);
        return Err(NoteError::TooMany {
            // Ids made faster than one a millisecond run ahead of the clock: never past the minute.
            retry_after: u64::try_from(wait).unwrap_or(60).clamp(1, 60),
        });
    }
    keep(kept, old).await
}

#[cfg(test)]
mod tests;
