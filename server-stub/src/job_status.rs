//! A job's status: what the job service keeps and the metrics count, in a module of its own so
//! that both read it without the metrics reaching into the job service.

use serde::{Deserialize, Serialize};

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Queued,
    Running,
    Done,
    Error,
}

impl Status {
    /// The status as the API and the database name it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Done => "done",
            Status::Error => "error",
        }
    }

    /// Queued or running: still to finish.
    pub fn is_active(self) -> bool {
        matches!(self, Status::Queued | Status::Running)
    }
}
