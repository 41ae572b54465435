//! What the job service refuses, and why.

use thiserror::Error;

use super::budget;
use crate::database::DbError;
use crate::storage::StorageError;

#[derive(Debug, Error)]
pub enum JobError {
    #[error("job not found")]
    NotFound,
    #[error("the job is not finished")]
    NotFinished,
    #[error("the job has already finished")]
    Finished,
    /// Asked to copy again a video whose copy is not pending.
    #[error("the job has no copy pending")]
    NoCopyPending,
    #[error("unknown model {0}")]
    UnknownModel(String),
    /// Inputs the model does not take, or a source it cannot use: the message says which.
    #[error("{0}")]
    Invalid(String),
    /// A reference image or video that is not in the job's project.
    #[error("{0}")]
    NoSuchInput(String),
    /// Over a limit: the message says which; try again after `retry_after` seconds.
    #[error("{message}")]
    Busy { message: String, retry_after: u64 },
    /// It would take spending past a monthly cap.
    #[error("{0}")]
    OverBudget(budget::OverBudget),
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Database(#[from] DbError),
    /// The record changed at another replica since this one read it; it has been read again.
    #[error("the job changed meanwhile")]
    Conflict,
    /// Written by a worker whose lease has gone to another replica: discarded.
    #[error("the job's lease has passed to another replica")]
    Fenced,
}
