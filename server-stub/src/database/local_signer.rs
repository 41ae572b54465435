//! The local Content Credentials signer shared by every replica: the first to start keeps the
//! one it has; the others are given it, so every video the replicas sign names one signer.

use super::{Database, DbError};

impl Database {
    /// The replicas' local signer (its certificate chain and key, in PEM): `ours` when no
    /// replica kept one before.
    pub async fn local_signer(
        &self,
        ours: (Vec<u8>, Vec<u8>),
    ) -> Result<(Vec<u8>, Vec<u8>), DbError> {
        sqlx::query(
            "INSERT INTO local_signer (chain, key) VALUES ($1, $2) ON CONFLICT (one) DO NOTHING",
        )
        .bind(ours.0)
        .bind(ours.1)
        .execute(&self.pool)
        .await?;
        Ok(sqlx::query_as("SELECT chain, key FROM local_signer")
            .fetch_one(&self.pool)
            .await?)
    }
}
