//! What the studio picked of each saved video: `favourite` and a `decision` (approved or
//! rejected). Each field lives in keys of its own under `projects/{p}/picks/`: `{file}.fav`
//! while a favourite, `{file}.approved` or `{file}.rejected` while decided. So one listing of
//! `picks/` reads every pick of a project for the library's list, in local storage and in a
//! bucket alike, and a change of one field writes only that field's keys: two changes of one
//! video at once (a star here, an approval there, on this server or another) never undo each
//! other. Changes of one video on one server take turns; should two servers decide one video
//! at once, the newer decision key wins.
//!
//! One video's pick (to change it, answer it or forget it) is read from its own keys, a few
//! HEADs, never from a listing: a listing kept by this server may be minutes older than another
//! server's change.
//!
//! Picks written before (one key per video, `{file}.fav-approved`, `{file}.no-none`, ...) are
//! still read, and become the per-field keys at the video's next change.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::keyed_lock::KeyedLocks;
use crate::project::ProjectFolder;
use crate::storage::{Object, Storage, StorageError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Approved,
    Rejected,
}

impl Decision {
    /// The last part of its key.
    fn suffix(self) -> &'static str {
        match self {
            Decision::Approved => "approved",
            Decision::Rejected => "rejected",
        }
    }

    fn other(self) -> Decision {
        match self {
            Decision::Approved => Decision::Rejected,
            Decision::Rejected => Decision::Approved,
        }
    }
}

/// The last part of the favourite's key.
const FAVOURITE: &str = "fav";

/// One video's pick; `Pick::default()` is none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct Pick {
    pub favourite: bool,
    pub decision: Option<Decision>,
}

impl Pick {
    /// A pick written whole in one key's last part, as picks were before: `fav-approved`,
    /// `no-none`, ...
    fn parse_whole(state: &str) -> Option<Pick> {
        let (favourite, decision) = state.split_once('-')?;
        Some(Pick {
            favourite: match favourite {
                "fav" => true,
                "no" => false,
                _ => return None,
            },
            decision: match decision {
                "approved" => Some(Decision::Approved),
                "rejected" => Some(Decision::Rejected),
                "none" => None,
                _ => return None,
            },
        })
    }

    fn changed(self, change: Change) -> Pick {
        Pick {
            favourite: change.favourite.unwrap_or(self.favourite),
            decision: change.decision.unwrap_or(self.decision),
        }
    }
}

/// A change: each field left out stays as it is (`decision: null` clears it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Change {
    pub favourite: Option<bool>,
    pub decision: Option<Option<Decision>>,
}

/// What one video's pick keys say.
#[derive(Default)]
struct Keys {
    favourite: bool,
    /// The newest decision key.
    decision: Option<(i64, Decision)>,
    /// Whether any per-field key was seen.
    per_field: bool,
    /// The newest whole-pick key written before per-field keys.
    whole: Option<(i64, Pick)>,
}

impl Keys {
    fn see(&mut self, suffix: &str, modified: i64) {
        let decision = match suffix {
            FAVOURITE => {
                self.favourite = true;
                self.per_field = true;
                return;
            }
            "approved" => Decision::Approved,
            "rejected" => Decision::Rejected,
            whole => {
                if let Some(pick) = Pick::parse_whole(whole) {
                    if self.whole.is_none_or(|(at, _)| modified >= at) {
                        self.whole = Some((modified, pick));
                    }
                }
                return;
            }
        };
        self.per_field = true;
        if self.decision.is_none_or(|(at, _)| modified >= at) {
            self.decision = Some((modified, decision));
        }
    }

    fn pick(&self) -> Pick {
        match self.whole {
            Some((_, pick)) if !self.per_field => pick,
            _ => Pick {
                favourite: self.favourite,
                decision: self.decision.map(|(_, d)| d),
            },
        }
    }
}

/// Every pick of the project in `project`, by video file name.
pub async fn all(
    storage: &dyn Storage,
    project: &ProjectFolder,
) -> Result<HashMap<String, Pick>, StorageError> {
    let folder = project.picks();
    Ok(read(&folder, &storage.list(&folder).await?)
        .into_iter()
        .map(|(name, keys)| (name, keys.pick()))
        .filter(|(_, pick)| *pick != Pick::default())
        .collect())
}

/// The pick of video `name` of the project in `project`, read from its own keys.
pub async fn of(
    storage: &dyn Storage,
    project: &ProjectFolder,
    name: &str,
) -> Result<Pick, StorageError> {
    let prefix = format!("{}{name}.", project.picks());
    Ok(own_keys(storage, &prefix).await?.0.pick())
}

/// Every suffix a video's pick key can have: the per-field ones first, then the whole picks
/// written before them.
const PER_FIELD: [&str; 3] = [FAVOURITE, "approved", "rejected"];
const WHOLE: [&str; 6] = [
    "fav-approved",
    "fav-rejected",
    "fav-none",
    "no-approved",
    "no-rejected",
    "no-none",
];

/// The pick keys that exist for the video whose keys start with `prefix`, by HEAD: the
/// per-field ones, and the whole ones written before them only when there is no per-field key
/// (once a video has per-field keys its whole keys are gone or ignored). Also the keys found.
async fn own_keys(
    storage: &dyn Storage,
    prefix: &str,
) -> Result<(Keys, Vec<Object>), StorageError> {
    let head = |suffixes: &'static [&'static str]| async move {
        let heads = futures_util::future::try_join_all(suffixes.iter().map(|suffix| {
            let key = format!("{prefix}{suffix}");
            async move { storage.head(&key).await }
        }))
        .await?;
        Ok::<_, StorageError>(heads.into_iter().flatten().collect::<Vec<Object>>())
    };
    let mut found = head(&PER_FIELD).await?;
    if found.is_empty() {
        found = head(&WHOLE).await?;
    }
    let mut keys = Keys::default();
    for object in &found {
        keys.see(&object.key[prefix.len()..], object.modified);
    }
    Ok((keys, found))
}

/// The pick keys of each video among the objects of `folder`.
fn read(folder: &str, objects: &[Object]) -> HashMap<String, Keys> {
    let mut videos: HashMap<String, Keys> = HashMap::new();
    for object in objects {
        let Some((name, suffix)) = object.key[folder.len()..].rsplit_once('.') else {
            continue;
        };
        videos
            .entry(name.to_owned())
            .or_default()
            .see(suffix, object.modified);
    }
    videos
}

/// Changes of one video's pick on this server take turns.
static CHANGING: KeyedLocks = KeyedLocks::new();

/// Now, in Unix milliseconds: when a pick was read back after a change.
fn now_millis() -> i64 {
    (time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}

/// Applies `change` to the pick of video `name`; the pick after it.
pub async fn change(
    storage: &dyn Storage,
    project: &ProjectFolder,
    name: &str,
    change: Change,
) -> Result<Pick, StorageError> {
    change_at(storage, project, name, change)
        .await
        .map(|(pick, _)| pick)
}

/// [`change`], and when the pick after it was read back (Unix milliseconds), taken before the
/// video's turn ends: of two changes on this server, the later read has the later time.
pub async fn change_at(
    storage: &dyn Storage,
    project: &ProjectFolder,
    name: &str,
    change: Change,
) -> Result<(Pick, i64), StorageError> {
    let prefix = format!("{}{name}.", project.picks());
    let _turn = CHANGING.lock(&prefix).await;
    let key = |suffix: &str| format!("{prefix}{suffix}");
    // A pick written whole, before per-field keys: written again as per-field keys, whole.
    let (keys, objects) = own_keys(storage, &prefix).await?;
    let whole = keys.whole.is_some();
    let change = if whole {
        let next = keys.pick().changed(change);
        Change {
            favourite: Some(next.favourite),
            decision: Some(next.decision),
        }
    } else {
        change
    };
    match change.favourite {
        Some(true) => drop(storage.put_bytes(&key(FAVOURITE), Vec::new()).await?),
        Some(false) => storage.delete(&key(FAVOURITE)).await?,
        None => {}
    }
    match change.decision {
        Some(Some(decision)) => {
            storage
                .put_bytes(&key(decision.suffix()), Vec::new())
                .await?;
            storage.delete(&key(decision.other().suffix())).await?;
        }
        Some(None) => {
            for decision in [Decision::Approved, Decision::Rejected] {
                storage.delete(&key(decision.suffix())).await?;
            }
        }
        None => {}
    }
    if whole {
        for old in objects
            .iter()
            .filter(|o| Pick::parse_whole(&o.key[prefix.len()..]).is_some())
        {
            storage.delete(&old.key).await?;
        }
    }
    // The fields left as they were are read from the keys themselves, not from a listing that
    // may be older than another server's change.
    let favourite = match change.favourite {
        Some(favourite) => favourite,
        None => storage.head(&key(FAVOURITE)).await?.is_some(),
    };
    let decision = match change.decision {
        Some(decision) => decision,
        None => {
            let mut newest: Option<(i64, Decision)> = None;
            for decision in [Decision::Approved, Decision::Rejected] {
                if let Some(object) = storage.head(&key(decision.suffix())).await? {
                    if newest.is_none_or(|(at, _)| object.modified >= at) {
                        newest = Some((object.modified, decision));
                    }
                }
            }
            newest.map(|(_, d)| d)
        }
    };
    Ok((
        Pick {
            favourite,
            decision,
        },
        now_millis(),
    ))
}

/// Forgets the pick of video `name` (removed from the library).
pub async fn forget(
    storage: &dyn Storage,
    project: &ProjectFolder,
    name: &str,
) -> Result<(), StorageError> {
    let prefix = format!("{}{name}.", project.picks());
    let _turn = CHANGING.lock(&prefix).await;
    for suffix in PER_FIELD.iter().chain(&WHOLE) {
        storage.delete(&format!("{prefix}{suffix}")).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
