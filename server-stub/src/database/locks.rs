//! Work that one replica at a time does on a thing named by the caller.
//!
//! The lock is PostgreSQL's session advisory lock, held by a connection of its own and outside
//! any transaction: the work under it (storage reads and writes, which may take longer than a
//! lease) leaves no transaction idle for PostgreSQL to end midway, and holds none of the work
//! pool's connections, so Cancels and creates go on meanwhile. Closing that connection frees
//! the lock: at the end of the work, or when a replica dies or drops the work midway.

use std::future::Future;

use sqlx::{ConnectOptions, Connection};

use super::{Database, DbError};

impl Database {
    /// Runs `work` while holding the advisory lock of `name`, which any replica taking the same
    /// name waits for.
    pub async fn exclusively<T, E: From<DbError>>(
        &self,
        name: &str,
        work: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        // At most `LOCK_CONNECTIONS` locks held or awaited at once by this replica; the rest
        // wait here, holding no connection.
        let _turn = self.locking.acquire().await;
        let mut connection = self.lock_options.connect().await.map_err(DbError::from)?;
        sqlx::query("SELECT pg_advisory_lock(hashtextextended($1, 0))")
            .bind(name)
            .execute(&mut connection)
            .await
            .map_err(DbError::from)?;
        let done = work.await;
        if let Err(e) = connection.close().await {
            tracing::warn!(lock = name, error = %e, "a lock's connection did not close cleanly; the database frees its lock as the connection ends");
        }
        done
    }
}

/// Local locks by name, for a server without a database (its only replica).
static LOCAL: crate::keyed_lock::KeyedLocks = crate::keyed_lock::KeyedLocks::new();

/// Runs `work` while no other work named `name` runs: on this server (a keyed lock) or, with
/// a `database`, on any replica sharing it (its advisory lock).
pub async fn exclusively<T, E: From<DbError>>(
    database: Option<&Database>,
    name: &str,
    work: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    match database {
        Some(database) => database.exclusively(name, work).await,
        None => {
            let _turn = LOCAL.lock(name).await;
            work.await
        }
    }
}
