//! A sequence's lock: a change is read, checked against the version it was made from and
//! written while no other change of the same sequence is, on this server (a keyed lock) or on
//! any replica sharing the database (an advisory lock of the sequence's name).

use std::future::Future;

use super::SequenceError;
use crate::database::Database;
use crate::keyed_lock::KeyedLocks;

static CHANGING: KeyedLocks = KeyedLocks::new();

/// Runs `change` holding the lock of the sequence `id` of `project`.
pub async fn changing<T>(
    database: Option<&Database>,
    project: &str,
    id: &str,
    change: impl Future<Output = Result<T, SequenceError>>,
) -> Result<T, SequenceError> {
    let name = format!("sequence:{project}:{id}");
    match database {
        Some(database) => database.exclusively(&name, change).await,
        None => {
            let _turn = CHANGING.lock(&name).await;
            change.await
        }
    }
}
