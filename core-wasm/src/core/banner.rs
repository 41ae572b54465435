//! The dashboard's one error banner: which failure it shows, in the spec's words.

use crate::error::CoreError;
use crate::snapshot::Banner;

pub const BANNER_ASSETS: &str = "Failed to load assets";
pub const BANNER_DASHBOARD: &str = "Failed to load dashboard data";
pub const BANNER_CREATE: &str = "Failed to create generation job";
pub const BANNER_CHECK: &str = "Failed to check job status";
pub const BANNER_SAVE: &str = "Failed to save video to library";
pub const BANNER_CANCEL: &str = "Failed to cancel generation job";
pub const BANNER_REMOVE: &str = "Failed to remove generation job";
pub const BANNER_DELETE: &str = "Failed to delete video from library";
pub const BANNER_REFERENCE: &str = "Failed to update reference images";
pub const BANNER_PICK: &str = "Failed to mark video";
pub const BANNER_SHARE: &str = "Failed to share videos";
pub const BANNER_REVOKE: &str = "Failed to revoke review link";
pub const BANNER_DOWNLOAD: &str = "Failed to download videos";

/// A failure the user is told about, by what they were doing.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Stored data could not be read or written (the text says what was kept where).
    Storage(String),
    Assets(CoreError),
    Create(CoreError),
    Check(CoreError),
    Save(CoreError),
    Cancel(CoreError),
    Remove(CoreError),
    Delete(CoreError),
    /// Adding or removing a reference image.
    Reference(CoreError),
    /// Starring, approving or rejecting a video.
    Pick(CoreError),
    /// Making a review link.
    Share(CoreError),
    Revoke(CoreError),
    /// Downloading the selected videos as a ZIP.
    Download(CoreError),
}

impl Failure {
    pub fn message(&self) -> &'static str {
        match self {
            Failure::Storage(_) => BANNER_DASHBOARD,
            Failure::Assets(_) => BANNER_ASSETS,
            Failure::Create(_) => BANNER_CREATE,
            Failure::Check(_) => BANNER_CHECK,
            Failure::Save(_) => BANNER_SAVE,
            Failure::Cancel(_) => BANNER_CANCEL,
            Failure::Remove(_) => BANNER_REMOVE,
            Failure::Delete(_) => BANNER_DELETE,
            Failure::Reference(_) => BANNER_REFERENCE,
            Failure::Pick(_) => BANNER_PICK,
            Failure::Share(_) => BANNER_SHARE,
            Failure::Revoke(_) => BANNER_REVOKE,
            Failure::Download(_) => BANNER_DOWNLOAD,
        }
    }

    pub fn banner(&self) -> Banner {
        let detail = match self {
            Failure::Storage(text) => text.clone(),
            Failure::Assets(e)
            | Failure::Create(e)
            | Failure::Check(e)
            | Failure::Save(e)
            | Failure::Cancel(e)
            | Failure::Remove(e)
            | Failure::Delete(e)
            | Failure::Reference(e)
            | Failure::Pick(e)
            | Failure::Share(e)
            | Failure::Revoke(e)
            | Failure::Download(e) => e.to_string(),
        };
        Banner {
            message: self.message().to_owned(),
            detail: Some(detail),
        }
    }
}
