//! Work is claimed with `FOR UPDATE SKIP LOCKED`: a lease with an owner and an expiry, renewed
//! while the job is worked on, and an attempt number as its fencing token.

use sqlx::types::Json;
use sqlx::Row;

use super::{versioned, Versioned};
use crate::database::{Database, DbError};
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

    /// Hands back every lease this replica holds and leaves the replicas alive (a graceful
    /// stop): others take the jobs at once, and share them without counting this one.
    pub async fn release_all(&self) -> Result<(), DbError> {
        sqlx::query(
            "UPDATE jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1",
        )
        .bind(&self.owner)
        .execute(&self.pool)
        .await?;
        sqlx::query("DELETE FROM replicas WHERE owner = $1")
            .bind(&self.owner)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Says this replica is alive for one more lease (and forgets replicas gone for an hour).
    pub async fn beat(&self) -> Result<(), DbError> {
        let lease = self.lease.as_millis() as i64;
        sqlx::query(
            "INSERT INTO replicas (owner, alive_until)              VALUES ($1, now() + $2::bigint * interval '1 millisecond')              ON CONFLICT (owner) DO UPDATE SET alive_until = EXCLUDED.alive_until",
        )
        .bind(&self.owner)
        .bind(lease)
        .execute(&self.leasing)
        .await?;
        sqlx::query("DELETE FROM replicas WHERE alive_until < now() - interval '1 hour'")
            .execute(&self.leasing)
            .await?;
        Ok(())
    }

    /// Whether this replica follows its share of the active hosted jobs or more: as many as
    /// there are such jobs, held or waiting, divided among the replicas alive (rounded up).
    pub async fn holds_hosted_share(&self) -> Result<bool, DbError> {
        let (mine, active, alive): (i64, i64, i64) = sqlx::query_as(
            "SELECT \
               (SELECT count(*) FROM jobs WHERE NOT local AND status IN ('queued', 'running') \
                  AND lease_owner = $1 AND lease_until > now()), \
               (SELECT count(*) FROM jobs WHERE NOT local AND status IN ('queued', 'running')), \
               (SELECT count(*) FROM replicas WHERE alive_until > now())",
        )
        .bind(&self.owner)
        .fetch_one(&self.leasing)
        .await?;
        let share = active.unsigned_abs().div_ceil(alive.unsigned_abs().max(1));
        Ok(mine.unsigned_abs() >= share.max(1))
    }
}
