//! Work is claimed with `FOR UPDATE SKIP LOCKED`: a lease with an owner and an expiry, renewed
//! while the job is worked on, and an attempt number as its fencing token.

use sqlx::types::Json;
use sqlx::Row;

use super::{versioned, Database, DbError, Versioned};
use crate::jobs::record::JobRecord;

/// What a claim makes of the oldest claimable job.
pub enum Claim {
    /// Work on it under the lease.
    Take,
    /// Interrupted too often: written as it now is (failed), without a lease.
    GiveUp,
}

impl Database {
    /// Claims the oldest active job (by when it was made, as `record::made_order` orders them)
    /// of its kind (`local`: the embedded engine's) that nobody holds: never claimed, or its
    /// lease run out or handed back: the job and the claim's attempt number. `decide` makes the
    /// record what it becomes, told how many claims before this one took the job over from a
    /// lease that had run out (this one counts when its lease has too); a job it gives up on is
    /// written without a lease and the next one is looked at.
    pub async fn claim(
        &self,
        local: bool,
        mut decide: impl FnMut(&mut JobRecord, u32) -> Claim,
    ) -> Result<Option<(Versioned, u32)>, DbError> {
        loop {
            let mut tx = self.pool.begin().await?;
            let row = sqlx::query(
                "SELECT record, version, \
                        lapses + (lease_until IS NOT NULL)::int AS lapses FROM jobs \
                 WHERE local = $1 AND status IN ('queued', 'running') \
                   AND (lease_until IS NULL OR lease_until < now()) \
                 ORDER BY split_part(id, ':task_', 2) LIMIT 1 FOR UPDATE SKIP LOCKED",
            )
            .bind(local)
            .fetch_optional(&mut *tx)
            .await?;
            let Some(mut job) = row.as_ref().map(versioned).transpose()? else {
                return Ok(None);
            };
            let lapses: i32 = row.as_ref().map_or(Ok(0), |r| r.try_get("lapses"))?;
            let taken = matches!(decide(&mut job.record, lapses.unsigned_abs()), Claim::Take);
            let row = sqlx::query(
                "UPDATE jobs SET record = $2, status = $3, version = version + 1, \
                   spend_usd = $6, attempt = attempt + 1, lease_owner = $4, \
                   lapses = lapses + (lease_until IS NOT NULL)::int, \
                   lease_until = now() + $5::bigint * interval '1 millisecond' \
                 WHERE id = $1 RETURNING version, attempt",
            )
            .bind(&job.record.sora_job_id)
            .bind(Json(&job.record))
            .bind(job.record.status.name())
            .bind(taken.then_some(&self.owner))
            .bind(if taken {
                self.lease.as_millis() as i64
            } else {
                0
            })
            .bind(crate::jobs::budget::spend(&job.record))
            .fetch_one(&mut *tx)
            .await?;
            job.version = row.try_get("version")?;
            let attempt: i32 = row.try_get("attempt")?;
            Self::event(&mut tx, &job.record, job.version, false).await?;
            tx.commit().await?;
            if taken {
                return Ok(Some((job, attempt.unsigned_abs())));
            }
        }
    }

    /// Extends this replica's lease on a job; `false` when it is no longer this replica's
    /// under that attempt (it ran out and another replica took the job, or it finished).
    pub async fn renew(&self, id: &str, attempt: u32) -> Result<bool, DbError> {
        let renewed = sqlx::query(
            "UPDATE jobs SET lease_until = now() + $4::bigint * interval '1 millisecond' \
             WHERE id = $1 AND lease_owner = $2 AND attempt = $3 \
               AND status IN ('queued', 'running')",
        )
        .bind(id)
        .bind(&self.owner)
        .bind(attempt as i32)
        .bind(self.lease.as_millis() as i64)
        .execute(&self.leasing)
        .await?;
        Ok(renewed.rows_affected() == 1)
    }

    /// Hands back every lease this replica holds (a graceful stop): others take the jobs at once.
    pub async fn release_all(&self) -> Result<(), DbError> {
        sqlx::query(
            "UPDATE jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1",
        )
        .bind(&self.owner)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
