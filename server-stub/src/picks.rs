//! What the studio picked of each saved video: `favourite` and a `decision` (approved or
//! rejected). A pick lives in the object's key, `projects/{p}/picks/{file}.{state}`, so one
//! listing of `picks/` reads every pick of a project, in local storage and in a bucket alike,
//! and every replica sharing the storage sees the same. A change writes the new key before it
//! removes the old one; should two changes of one video race, the newer key wins.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::storage::{Object, Storage, StorageError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Approved,
    Rejected,
}

/// One video's pick; `Pick::default()` is none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct Pick {
    pub favourite: bool,
    pub decision: Option<Decision>,
}

impl Pick {
    /// The state as the key's last part: `fav-approved`, `no-none`, ...
    fn state(self) -> String {
        let favourite = if self.favourite { "fav" } else { "no" };
        let decision = match self.decision {
            Some(Decision::Approved) => "approved",
            Some(Decision::Rejected) => "rejected",
            None => "none",
        };
        format!("{favourite}-{decision}")
    }

    fn parse(state: &str) -> Option<Pick> {
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
}

/// A change: each field left out stays as it is (`decision: null` clears it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Change {
    pub favourite: Option<bool>,
    pub decision: Option<Option<Decision>>,
}

fn folder(project_folder: &str) -> String {
    format!("projects/{project_folder}/picks/")
}

/// Every pick of the project in `project_folder`, by video file name.
pub async fn all(
    storage: &dyn Storage,
    project_folder: &str,
) -> Result<HashMap<String, Pick>, StorageError> {
    let folder = folder(project_folder);
    Ok(newest(&folder, &storage.list(&folder).await?))
}

/// The newest pick of each video among the objects of `folder`.
fn newest(folder: &str, objects: &[Object]) -> HashMap<String, Pick> {
    let mut newest: HashMap<String, (i64, Pick)> = HashMap::new();
    for object in objects {
        let Some((name, state)) = object.key[folder.len()..].rsplit_once('.') else {
            continue;
        };
        let Some(pick) = Pick::parse(state) else {
            continue;
        };
        let entry = newest.entry(name.to_owned()).or_insert((i64::MIN, pick));
        if object.modified >= entry.0 {
            *entry = (object.modified, pick);
        }
    }
    newest
        .into_iter()
        .map(|(name, (_, pick))| (name, pick))
        .collect()
}

/// Applies `change` to the pick of video `name`; the pick after it.
pub async fn change(
    storage: &dyn Storage,
    project_folder: &str,
    name: &str,
    change: Change,
) -> Result<Pick, StorageError> {
    let folder = folder(project_folder);
    let prefix = format!("{folder}{name}.");
    let objects: Vec<Object> = storage
        .list(&folder)
        .await?
        .iter()
        .filter(|o| o.key.starts_with(&prefix))
        .cloned()
        .collect();
    let current = newest(&folder, &objects).remove(name).unwrap_or_default();
    let next = Pick {
        favourite: change.favourite.unwrap_or(current.favourite),
        decision: change.decision.unwrap_or(current.decision),
    };
    let key = format!("{prefix}{}", next.state());
    if next != Pick::default() {
        storage.put_bytes(&key, Vec::new()).await?;
    }
    for old in objects.iter().filter(|old| old.key != key) {
        storage.delete(&old.key).await?;
    }
    Ok(next)
}

/// Forgets the pick of video `name` (removed from the library).
pub async fn forget(
    storage: &dyn Storage,
    project_folder: &str,
    name: &str,
) -> Result<(), StorageError> {
    let folder = folder(project_folder);
    let prefix = format!("{folder}{name}.");
    for object in storage.list(&folder).await?.iter() {
        if object.key.starts_with(&prefix) {
            storage.delete(&object.key).await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_reads_back() {
        for favourite in [true, false] {
            for decision in [None, Some(Decision::Approved), Some(Decision::Rejected)] {
                let pick = Pick {
                    favourite,
                    decision,
                };
                assert_eq!(Pick::parse(&pick.state()), Some(pick));
            }
        }
        for bad in ["", "fav", "yes-none", "fav-maybe", "fav-approved-x"] {
            assert_eq!(Pick::parse(bad), None, "{bad}");
        }
    }
}
