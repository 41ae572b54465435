//! A project's id, checked once where a request names it, and where the project lives in
//! storage, with every key it has. Its folder is the project id itself
//! when the id is in the cleaned form (a-z, 0-9 and '-'), else `_` and a digest of it, so that
//! no id reaches outside its folder or makes an unsafe key. Keys are built here: handlers never
//! format one.

use std::fmt;
use std::ops::Deref;

use sha2::{Digest, Sha256};

/// A project id as the client defines it (`studio_core::project_id`): not blank, at most 100
/// characters, no control characters. Deserialized from a request's path, it is checked there:
/// a handler that takes one never sees an invalid id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct ProjectId(String);

#[derive(Debug, thiserror::Error)]
#[error("project id must be 1 to 100 characters, not blank, with no control characters")]
pub struct InvalidProjectId;

impl ProjectId {
    pub fn parse(id: &str) -> Result<ProjectId, InvalidProjectId> {
        ProjectId::try_from(id.to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The project's folder in storage.
    pub fn folder(&self) -> ProjectFolder {
        ProjectFolder::of(&self.0)
    }
}

impl TryFrom<String> for ProjectId {
    type Error = InvalidProjectId;

    fn try_from(id: String) -> Result<ProjectId, InvalidProjectId> {
        if studio_core::project_id::is_valid(&id) {
            Ok(ProjectId(id))
        } else {
            Err(InvalidProjectId)
        }
    }
}

impl From<ProjectId> for String {
    fn from(id: ProjectId) -> String {
        id.0
    }
}

impl Deref for ProjectId {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ProjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A project's folder in storage.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProjectFolder(String);

impl ProjectFolder {
    /// The folder of the project with id `project_id`.
    pub fn of(project_id: &str) -> ProjectFolder {
        if studio_core::project_id::is_clean(project_id) {
            return ProjectFolder(project_id.to_owned());
        }
        let digest = Sha256::digest(project_id.as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        ProjectFolder(format!("_{hex}"))
    }

    /// The folder's name.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// The library's folder: its videos, each with its `.json` metadata and `.jpg` poster.
    pub fn library(&self) -> String {
        format!("projects/{}/", self.0)
    }

    /// A file of the library: a video (`{id}.mp4`), or its metadata or poster by whole name.
    pub fn file(&self, name: &str) -> String {
        format!("projects/{}/{name}", self.0)
    }

    /// A library video's companion: its metadata (`json`) or poster (`jpg`), by the video's
    /// name without `.mp4`.
    pub fn companion(&self, stem: &str, extension: &str) -> String {
        format!("projects/{}/{stem}.{extension}", self.0)
    }

    /// The picks' keys (`{file}.fav`, `{file}.approved`, ...).
    pub fn picks(&self) -> String {
        format!("projects/{}/picks/", self.0)
    }

    /// The reference pictures.
    pub fn references(&self) -> String {
        format!("projects/{}/references/", self.0)
    }

    /// The sounds a project brings (music, voice-over), each with its `.json` record.
    pub fn sounds(&self) -> String {
        format!("projects/{}/sounds/", self.0)
    }

    /// An empty object per review link, so one listing finds the project's links.
    pub fn shares(&self) -> String {
        format!("projects/{}/shares/", self.0)
    }

    /// The project's monthly budget (beside the projects, not served).
    pub fn budget(&self) -> String {
        format!("budgets/{}.json", self.0)
    }

    /// The sequences, one `.json` each.
    pub fn sequences(&self) -> String {
        format!("sequences/{}/", self.0)
    }

    /// The cast, one `.json` per member (not served).
    pub fn cast(&self) -> String {
        format!("cast/{}/", self.0)
    }

    /// Sequence `id`.
    pub fn sequence(&self, id: &str) -> String {
        format!("sequences/{}/{id}.json", self.0)
    }
}

impl fmt::Display for ProjectFolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_valid_project_id_gets_a_safe_folder() {
        assert_eq!(ProjectFolder::of("my-project-1-").name(), "my-project-1-");
        for id in ["My Project", "a/b", "..", "Été", &"é".repeat(100)] {
            assert!(studio_core::project_id::is_valid(id), "{id}");
            let folder = ProjectFolder::of(id);
            assert!(
                folder.name().starts_with('_') && folder.name().len() == 33,
                "{folder}"
            );
            assert!(crate::storage::check_key(&folder.file("v.mp4")).is_ok());
        }
        assert_ne!(ProjectFolder::of("a/b"), ProjectFolder::of("a b"));
        for bad in ["", "  ", "a\nb", &"x".repeat(101)] {
            assert!(!studio_core::project_id::is_valid(bad), "{bad:?}");
        }
        let folder = ProjectFolder::of("p");
        assert_eq!(folder.file("v.mp4"), "projects/p/v.mp4");
        assert_eq!(folder.companion("v", "json"), "projects/p/v.json");
        assert_eq!(folder.sequence("seq_1"), "sequences/p/seq_1.json");
    }
}
