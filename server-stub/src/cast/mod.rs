//! A project's cast: characters, props and locations, each with the reference pictures that
//! keep its look from shot to shot. Kept in storage (`cast/{folder}/{id}.json`, never served);
//! every change runs under the project's cast lock, on any replica sharing the database, so a
//! name is never taken twice (case aside). Prompts mention members as `@Name` (`mentions.rs`).

pub mod mentions;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::clock::now;
use crate::database::{self, Database, DbError};
use crate::project::ProjectFolder;
use crate::storage::{Storage, StorageError};
pub use studio_core::cast::Kind;
use studio_core::cast::{same_name, MAX_NAME, MAX_REFERENCES};

/// A project keeps at most this many members (each listing reads their records).
pub const MAX_PER_PROJECT: usize = 200;
/// The longest description, in characters.
pub const MAX_DESCRIPTION: usize = 2000;
/// The largest record read back.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum CastError {
    #[error("No such cast member")]
    NotFound,
    /// The member breaks a rule: the message names it (422).
    #[error("{0}")]
    Invalid(String),
    /// Another member has the name, as it spells it (409).
    #[error("The cast already has {0}: names are unique regardless of case")]
    Taken(String),
    #[error("A project keeps at most {MAX_PER_PROJECT} cast members: remove some first")]
    Full,
    #[error("cast member {0} cannot be read: {1}")]
    Damaged(String, serde_json::Error),
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Database(#[from] DbError),
}

/// A member as kept and answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Member {
    /// `cast_` and 26 lowercase letters and digits.
    pub id: String,
    /// One word of letters, digits, `-` or `_`: what prompts mention as `@Name`.
    pub name: String,
    pub kind: Kind,
    pub description: Option<String>,
    /// Ids of the project's reference images, in the order they are sent.
    pub references: Vec<String>,
    /// RFC 3339.
    pub created_at: String,
    pub updated_at: String,
}

/// What a member is made from: a create, or the whole of a change.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub name: String,
    pub kind: Kind,
    pub description: Option<String>,
    pub references: Vec<String>,
}

impl Draft {
    /// The draft as kept: its rules checked (the references' existence is the caller's),
    /// its description trimmed (blank is none) and each reference once.
    pub fn checked(mut self) -> Result<Draft, CastError> {
        if !studio_core::cast::is_valid_name(&self.name) {
            return Err(CastError::Invalid(format!(
                "name must be one word of 1 to {MAX_NAME} letters, digits, - or _"
            )));
        }
        self.description = self
            .description
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty());
        if self
            .description
            .as_ref()
            .is_some_and(|d| d.chars().count() > MAX_DESCRIPTION)
        {
            return Err(CastError::Invalid(format!(
                "description must be at most {MAX_DESCRIPTION} characters"
            )));
        }
        let mut seen = std::collections::HashSet::new();
        self.references.retain(|r| seen.insert(r.clone()));
        if self.references.len() > MAX_REFERENCES {
            return Err(CastError::Invalid(format!(
                "a cast member has at most {MAX_REFERENCES} reference images, not {}",
                self.references.len()
            )));
        }
        Ok(self)
    }
}

fn record_key(folder: &ProjectFolder, id: &str) -> String {
    format!("{}{id}.json", folder.cast())
}

fn is_valid_id(id: &str) -> bool {
    id.strip_prefix("cast_").is_some_and(|rest| {
        rest.len() == 26
            && rest
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}

/// The member `id` of the project in `folder`, if there is one.
pub async fn get(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    id: &str,
) -> Result<Option<Member>, CastError> {
    if !is_valid_id(id) {
        return Ok(None);
    }
    match storage
        .read(&record_key(folder, id), MAX_RECORD_BYTES)
        .await
    {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| CastError::Damaged(id.to_owned(), e)),
        Err(StorageError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The project's cast, by name (case aside).
pub async fn list(storage: &dyn Storage, folder: &ProjectFolder) -> Result<Vec<Member>, CastError> {
    let mut members = Vec::new();
    for object in storage.list(&folder.cast()).await?.iter() {
        let Some(id) = crate::storage::file_name(&object.key).strip_suffix(".json") else {
            continue;
        };
        if let Some(member) = get(storage, folder, id).await? {
            members.push(member);
        }
    }
    members.sort_by_key(|m| m.name.to_lowercase());
    Ok(members)
}

/// Runs `work` on the project's cast, read afresh, while no other change of it runs.
async fn locked<T>(
    storage: &dyn Storage,
    database: Option<&Database>,
    folder: &ProjectFolder,
    work: impl AsyncFnOnce(Vec<Member>) -> Result<T, CastError>,
) -> Result<T, CastError> {
    let name = format!("cast:{}", folder.name());
    database::exclusively(database, &name, async {
        storage.changed_elsewhere(&folder.cast());
        let members = list(storage, folder).await?;
        work(members).await
    })
    .await
}

async fn put(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    member: &Member,
) -> Result<(), CastError> {
    let bytes = serde_json::to_vec(member).map_err(|e| CastError::Damaged(member.id.clone(), e))?;
    storage
        .put_bytes(&record_key(folder, &member.id), bytes)
        .await?;
    Ok(())
}

/// Adds `draft` (checked: `Draft::checked`) to the cast: refused when its name is taken or
/// the cast holds `MAX_PER_PROJECT` members.
pub async fn create(
    storage: &dyn Storage,
    database: Option<&Database>,
    folder: &ProjectFolder,
    draft: Draft,
) -> Result<Member, CastError> {
    locked(storage, database, folder, async |members: Vec<Member>| {
        if let Some(taken) = members.iter().find(|m| same_name(&m.name, &draft.name)) {
            return Err(CastError::Taken(taken.name.clone()));
        }
        let mut made = add(storage, folder, &members, vec![draft]).await?;
        Ok(made.remove(0))
    })
    .await
}

/// Writes a member of each of `drafts` beside `members` (refused past `MAX_PER_PROJECT`).
async fn add(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    members: &[Member],
    drafts: Vec<Draft>,
) -> Result<Vec<Member>, CastError> {
    if members.len() + drafts.len() > MAX_PER_PROJECT {
        return Err(CastError::Full);
    }
    let at = now();
    let mut made = Vec::with_capacity(drafts.len());
    for draft in drafts {
        let member = Member {
            id: format!("cast_{}", ulid::Ulid::new().to_string().to_lowercase()),
            name: draft.name,
            kind: draft.kind,
            description: draft.description,
            references: draft.references,
            created_at: at.clone(),
            updated_at: at.clone(),
        };
        put(storage, folder, &member).await?;
        made.push(member);
    }
    Ok(made)
}

/// Changes member `id` to `draft` (checked: `Draft::checked`), its name still its own (case
/// aside).
pub async fn update(
    storage: &dyn Storage,
    database: Option<&Database>,
    folder: &ProjectFolder,
    id: &str,
    draft: Draft,
) -> Result<Member, CastError> {
    locked(storage, database, folder, async |members: Vec<Member>| {
        let current = members
            .iter()
            .find(|m| m.id == id)
            .ok_or(CastError::NotFound)?;
        if let Some(other) = members
            .iter()
            .find(|m| m.id != id && same_name(&m.name, &draft.name))
        {
            return Err(CastError::Taken(other.name.clone()));
        }
        let member = Member {
            name: draft.name,
            kind: draft.kind,
            description: draft.description,
            references: draft.references,
            updated_at: now(),
            ..current.clone()
        };
        put(storage, folder, &member).await?;
        Ok(member)
    })
    .await
}

/// Removes member `id`. Jobs made with its pictures keep them: their inputs name the pictures.
pub async fn remove(
    storage: &dyn Storage,
    database: Option<&Database>,
    folder: &ProjectFolder,
    id: &str,
) -> Result<(), CastError> {
    locked(storage, database, folder, async |members: Vec<Member>| {
        if !members.iter().any(|m| m.id == id) {
            return Err(CastError::NotFound);
        }
        storage.delete(&record_key(folder, id)).await?;
        Ok(())
    })
    .await
}

/// Adds a character of each of `names` the cast does not have yet (case aside), with no
/// pictures: the members added. The cast is read only when there are names to add.
pub async fn add_characters(
    storage: &dyn Storage,
    database: Option<&Database>,
    folder: &ProjectFolder,
    names: &[String],
) -> Result<Vec<Member>, CastError> {
    let missing = |members: &[Member]| -> Vec<Draft> {
        names
            .iter()
            .filter(|n| !members.iter().any(|m| same_name(&m.name, n)))
            .map(|name| Draft {
                name: name.clone(),
                kind: Kind::Character,
                description: None,
                references: Vec::new(),
            })
            .collect()
    };
    if names.is_empty() {
        return Ok(Vec::new());
    }
    locked(storage, database, folder, async |members: Vec<Member>| {
        let drafts = missing(&members);
        add(storage, folder, &members, drafts).await
    })
    .await
}
