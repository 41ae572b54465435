//! What can go wrong in a command, as types. The console gets these as `Error` objects with a
//! `code`; the dashboard turns the ones it shows into the spec's banner at the edge
//! (`core::banner`).

use thiserror::Error;

use crate::api::ApiError;
use crate::store::StoreError;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CoreError {
    #[error("No project is open")]
    NoProject,
    #[error("The prompt is empty")]
    EmptyPrompt,
    #[error("Unknown model {0}")]
    UnknownModel(String),
    #[error("{0} is already in progress")]
    Busy(String),
    #[error("{0} is not a stored job")]
    UnknownJob(String),
    #[error("{id} cannot be {action}")]
    NotAllowed { id: String, action: &'static str },
    #[error("No video with key {0} is in the library")]
    UnknownAsset(String),
    #[error("Unknown order {0}: use newest, oldest or largest")]
    UnknownSort(String),
    #[error("{0} is not a reference image of this project")]
    UnknownReference(String),
    #[error("Unknown moment {0}: use \"first\", \"last\" or seconds from the start")]
    BadMoment(String),
    #[error("Unknown {kind} {name}")]
    UnknownName { kind: &'static str, name: String },
    /// The chosen model does not take this input: the text says which.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Api(#[from] ApiError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("Failed to load {url}: {reason}")]
    Config { url: String, reason: String },
}

impl CoreError {
    /// A stable name for scripts: `error.code` in the console.
    pub fn code(&self) -> &'static str {
        match self {
            CoreError::NoProject => "no-project",
            CoreError::EmptyPrompt => "empty-prompt",
            CoreError::UnknownModel(_) => "unknown-model",
            CoreError::Busy(_) => "busy",
            CoreError::UnknownJob(_) => "unknown-job",
            CoreError::NotAllowed { .. } => "not-allowed",
            CoreError::UnknownAsset(_) => "unknown-asset",
            CoreError::UnknownSort(_) => "unknown-sort",
            CoreError::UnknownReference(_) => "unknown-reference",
            CoreError::BadMoment(_) => "bad-moment",
            CoreError::UnknownName { .. } => "unknown-name",
            CoreError::Refused(_) => "refused",
            CoreError::Api(crate::api::ApiError::OverBudget(_)) => "over-budget",
            CoreError::Api(_) => "api",
            CoreError::Store(_) => "storage",
            CoreError::Config { .. } => "config",
        }
    }
}
