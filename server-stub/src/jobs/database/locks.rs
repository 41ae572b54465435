//! Work that one replica at a time does on a thing named by the caller.

use std::future::Future;

use super::{Database, DbError};

impl Database {
    /// Runs `work` while holding the advisory lock of `name`, which any replica taking the same
    /// name waits for; the lock ends with the transaction, so a replica that dies mid-work
    /// frees it.
    pub async fn exclusively<T, E: From<DbError>>(
        &self,
        name: &str,
        work: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        let mut tx = self.pool.begin().await.map_err(DbError::from)?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind(name)
            .execute(&mut *tx)
            .await
            .map_err(DbError::from)?;
        let done = work.await;
        tx.commit().await.map_err(DbError::from)?;
        done
    }
}
