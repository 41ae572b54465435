//! New jobs (admitted under one lock every replica takes), and changes and removals that name
//! the version they change, so that none is lost.

use sqlx::types::Json;
use sqlx::Row;

use super::{Database, DbError};
use crate::jobs::admission::Active;
use crate::jobs::record::JobRecord;

/// The advisory lock every replica's admissions take: the limits and budgets are checked
/// against what is committed, and new jobs added, one admission at a time.
const ADMISSION_LOCK: i64 = 0x5354_5544_4255;

/// What became of a write.
pub enum Written {
    /// Written: the new version.
    As(i64),
    /// The job changed since the version named (or is gone).
    Changed,
    /// The job has been claimed again since the attempt named: the write was discarded.
    Fenced,
}

impl Database {
    /// Adds new jobs (version 1) in one transaction, if `admit` lets them in. Under a lock every
    /// replica's admissions take, what counts is read first: how many jobs are active (in all,
    /// and in the project of the first new one), and with `month` the jobs a cap or a daily
    /// budget counts (every active one, and every one made in it). When `admit` refuses,
    /// nothing is added.
    pub(in crate::jobs) async fn insert_all<E>(
        &self,
        records: &[JobRecord],
        local: bool,
        month: Option<&str>,
        admit: impl Fn(Active, &[JobRecord]) -> Result<(), E>,
    ) -> Result<Result<(), E>, DbError> {
        let project = records.first().map_or("", |r| r.project_id.as_str());
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(ADMISSION_LOCK)
            .execute(&mut *tx)
            .await?;
        let (all, in_project): (i64, i64) = sqlx::query_as(
            "SELECT count(*), count(*) FILTER (WHERE project_id = $1) FROM jobs \
             WHERE status IN ('queued', 'running')",
        )
        .bind(project)
        .fetch_one(&mut *tx)
        .await?;
        let active = Active {
            all: usize::try_from(all).unwrap_or(usize::MAX),
            in_project: usize::try_from(in_project).unwrap_or(usize::MAX),
        };
        let dated: Vec<JobRecord> = match month {
            None => Vec::new(),
            Some(month) => sqlx::query_scalar::<_, Json<JobRecord>>(
                "SELECT record FROM jobs \
                 WHERE status IN ('queued', 'running') OR left(record->>'created_at', 7) = $1",
            )
            .bind(month)
            .fetch_all(&mut *tx)
            .await?
            .into_iter()
            .map(|j| j.0)
            .collect(),
        };
        if let Err(refused) = admit(active, &dated) {
            return Ok(Err(refused));
        }
        for record in records {
            sqlx::query(
                "INSERT INTO jobs (id, project_id, status, local, record, version) \
                 VALUES ($1, $2, $3, $4, $5, 1)",
            )
            .bind(&record.sora_job_id)
            .bind(&record.project_id)
            .bind(record.status.name())
            .bind(local)
            .bind(Json(record))
            .execute(&mut *tx)
            .await?;
            Self::event(&mut tx, record, 1, false).await?;
        }
        tx.commit().await?;
        Ok(Ok(()))
    }

    /// Writes `record` over version `version`, by the worker of claim `attempt` when given (the
    /// fencing token: a worker whose job was claimed again since writes nothing). A finished
    /// job's lease ends with it.
    pub async fn write(
        &self,
        record: &JobRecord,
        version: i64,
        attempt: Option<u32>,
    ) -> Result<Written, DbError> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "UPDATE jobs SET record = $2, status = $3, version = version + 1, \
               lease_owner = CASE WHEN $3 IN ('queued', 'running') THEN lease_owner END, \
               lease_until = CASE WHEN $3 IN ('queued', 'running') THEN lease_until END \
             WHERE id = $1 AND version = $4 RETURNING version, attempt",
        )
        .bind(&record.sora_job_id)
        .bind(Json(record))
        .bind(record.status.name())
        .bind(version)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(Written::Changed);
        };
        let claimed: i32 = row.try_get("attempt")?;
        if attempt.is_some_and(|a| i64::from(a) != i64::from(claimed)) {
            return Ok(Written::Fenced);
        }
        let version: i64 = row.try_get("version")?;
        Self::event(&mut tx, record, version, false).await?;
        tx.commit().await?;
        Ok(Written::As(version))
    }

    /// Removes a job for good.
    pub async fn remove(&self, record: &JobRecord) -> Result<(), DbError> {
        let mut tx = self.pool.begin().await?;
        let version: Option<i64> =
            sqlx::query_scalar("DELETE FROM jobs WHERE id = $1 RETURNING version")
                .bind(&record.sora_job_id)
                .fetch_optional(&mut *tx)
                .await?;
        if let Some(version) = version {
            Self::event(&mut tx, record, version + 1, true).await?;
            tx.commit().await?;
        }
        Ok(())
    }
}
