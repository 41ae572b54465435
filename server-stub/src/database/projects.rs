//! The channel replicas tell each other of project changes beyond jobs (picks, review notes).

use sqlx::postgres::PgListener;

use super::{Database, DbError};

/// Where replicas tell each other of project changes beyond jobs.
const PROJECT_CHANNEL: &str = "studio_projects";

impl Database {
    /// Tells every replica's project listener `payload` (at most 8,000 bytes).
    pub async fn announce(&self, payload: &str) -> Result<(), DbError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(PROJECT_CHANNEL)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A listener of what replicas announce.
    pub async fn listen_projects(&self) -> Result<PgListener, DbError> {
        let mut listener = PgListener::connect_with(&self.listening).await?;
        listener.listen(PROJECT_CHANNEL).await?;
        Ok(listener)
    }
}
