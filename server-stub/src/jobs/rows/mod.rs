//! The job rows, the queue and the stream of job changes in the ground floor's database: reads
//! here; writes (each adding its event in the same transaction) in `writes`, leases on work in
//! `leases`, the numbered events and the listeners they wake in `events`; what rows written
//! before a migration lack, filled in at start, in `backfill`.

mod backfill;
mod events;
mod leases;
mod writes;

use sqlx::types::Json;
use sqlx::Row;

use super::ledger::Spent;
use super::record::JobRecord;
use crate::database::{Database, DbError};

pub use events::Event;
pub use leases::Claim;
pub use writes::{Locked, Written};

/// A record as the database holds it, with its version.
#[derive(Debug, Clone)]
pub struct Versioned {
    pub record: JobRecord,
    pub version: i64,
}

fn versioned(row: &sqlx::postgres::PgRow) -> Result<Versioned, sqlx::Error> {
    Ok(Versioned {
        record: row.try_get::<Json<JobRecord>, _>("record")?.0,
        version: row.try_get("version")?,
    })
}

impl Database {
    /// Every job with its version, what removed jobs spent, and the number of the last event
    /// before them.
    pub async fn load_all(&self) -> Result<(Vec<Versioned>, Vec<Spent>, i64), DbError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            .execute(&mut *tx)
            .await?;
        let last: i64 = sqlx::query_scalar("SELECT coalesce(max(seq), 0) FROM job_events")
            .fetch_one(&mut *tx)
            .await?;
        let jobs = sqlx::query("SELECT record, version FROM jobs ORDER BY id")
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(versioned)
            .collect::<Result<_, _>>()?;
        let removed = sqlx::query_scalar::<_, Json<Spent>>("SELECT entry FROM spend_ledger")
            .fetch_all(&mut *tx)
            .await?
            .into_iter()
            .map(|entry| entry.0)
            .collect();
        tx.commit().await?;
        Ok((jobs, removed, last))
    }

    /// One job as the database has it now.
    pub async fn read(&self, id: &str) -> Result<Option<Versioned>, DbError> {
        let row = sqlx::query("SELECT record, version FROM jobs WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(versioned).transpose()?)
    }
}
