//! A sequence's lock: a change is read, checked against the version it was made from and
//! written while no other change of the same sequence is, on this server or on any replica
//! sharing the database (`database::exclusively`).

use std::future::Future;

use super::SequenceError;
use crate::database::Database;

/// Runs `change` holding the lock of the sequence `id` of `project`.
pub async fn changing<T>(
    database: Option<&Database>,
    project: &str,
    id: &str,
    change: impl Future<Output = Result<T, SequenceError>>,
) -> Result<T, SequenceError> {
    crate::database::exclusively(database, &format!("sequence:{project}:{id}"), change).await
}
