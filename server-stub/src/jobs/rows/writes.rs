//! New jobs (admitted under one lock every replica takes), and changes and removals that name
//! the version they change, so that none is lost.

use sqlx::types::Json;
use sqlx::Row;
use studio_core::price::cents;

use super::{versioned, Versioned};
use crate::database::{Database, DbError};
use crate::jobs::admission::{daily_seconds, Active, Counting};
use crate::jobs::budget;
use crate::jobs::ledger::Spent;
use crate::jobs::record::JobRecord;

/// The advisory lock every replica's admissions take: the limits and budgets are checked
/// against what is committed, and new jobs added, one admission at a time.
const ADMISSION_LOCK: i64 = 0x5354_5544_4255;

/// What became of a change made under the job's row lock.
pub enum Locked {
    /// Written: the record and its new version.
    Written(Versioned),
    /// The change changed nothing: the record as it is.
    Unchanged(Versioned),
    /// The job has been claimed again since the attempt named: nothing was written.
    Fenced,
}

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
    /// and in the project of the first new one), and as `counting` asks, what the month commits
    /// against the caps (the project's and the studio's, to the cent: the sum of each counted
    /// job's `spend_usd`) and the jobs made that day at the provider. When `admit` refuses,
    /// nothing is added.
    pub(in crate::jobs) async fn insert_all<E>(
        &self,
        records: &[JobRecord],
        local: bool,
        counting: Counting<'_>,
        admit: impl Fn(Active, (f64, f64), u64) -> Result<(), E>,
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
        let committed = match counting.month {
            None => (0.0, 0.0),
            Some(month) => Self::committed(&mut tx, project, month).await?,
        };
        let today_seconds = match counting.today {
            None => 0,
            Some((provider, day)) => {
                let kept: Vec<Json<JobRecord>> = sqlx::query_scalar(
                    "SELECT record FROM jobs WHERE left(record->>'created_at', 7) = left($2, 7) \
                     AND left(record->>'created_at', 10) = $2 AND record->>'provider' = $1",
                )
                .bind(provider)
                .bind(day)
                .fetch_all(&mut *tx)
                .await?;
                let removed: i64 = sqlx::query_scalar(
                    "SELECT coalesce(sum(seconds), 0)::int8 FROM spend_ledger \
                     WHERE provider = $1 AND day = $2",
                )
                .bind(provider)
                .bind(day)
                .fetch_one(&mut *tx)
                .await?;
                daily_seconds(kept.iter().map(|j| &j.0), provider, day)
                    + u64::try_from(removed).unwrap_or(0)
            }
        };
        if let Err(refused) = admit(active, committed, today_seconds) {
            return Ok(Err(refused));
        }
        for record in records {
            sqlx::query(
                "INSERT INTO jobs (id, project_id, status, local, record, version, spend_usd) \
                 VALUES ($1, $2, $3, $4, $5, 1, $6)",
            )
            .bind(&record.sora_job_id)
            .bind(&record.project_id)
            .bind(record.status.name())
            .bind(local)
            .bind(Json(record))
            .bind(budget::spend(record))
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
        let written = Self::update(&mut tx, record, version, attempt).await?;
        if let Written::As(_) = written {
            tx.commit().await?;
        }
        Ok(written)
    }

    /// Changes a job under its row lock: read `FOR UPDATE`, `change` applied, written, in one
    /// transaction. Slower than `write` (other writers of the job wait), so it is the last
    /// resort of a change that lost its optimistic writes to busier writers: it always lands.
    /// `None` when there is no such job.
    pub async fn change_locked(
        &self,
        id: &str,
        attempt: Option<u32>,
        change: impl FnOnce(&mut JobRecord),
    ) -> Result<Option<Locked>, DbError> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query("SELECT record, version, attempt FROM jobs WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let claimed: i32 = row.try_get("attempt")?;
        if attempt.is_some_and(|a| i64::from(a) != i64::from(claimed)) {
            return Ok(Some(Locked::Fenced));
        }
        let Versioned {
            mut record,
            version,
        } = versioned(&row)?;
        let before = record.clone();
        change(&mut record);
        if record == before {
            return Ok(Some(Locked::Unchanged(Versioned { record, version })));
        }
        match Self::update(&mut tx, &record, version, attempt).await? {
            Written::As(version) => {
                tx.commit().await?;
                Ok(Some(Locked::Written(Versioned { record, version })))
            }
            // Neither can happen under the row's lock with the claim just checked.
            Written::Changed | Written::Fenced => Err(DbError::Lost(id.to_owned())),
        }
    }

    /// The update of a write, in its transaction: the record over `version`, its event, and
    /// the lease ended with the job. The caller commits on `As`.
    async fn update(
        tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
        record: &JobRecord,
        version: i64,
        attempt: Option<u32>,
    ) -> Result<Written, DbError> {
        let row = sqlx::query(
            "UPDATE jobs SET record = $2, status = $3, version = version + 1, spend_usd = $5, \
               lease_owner = CASE WHEN $3 IN ('queued', 'running') THEN lease_owner END, \
               lease_until = CASE WHEN $3 IN ('queued', 'running') THEN lease_until END \
             WHERE id = $1 AND version = $4 RETURNING version, attempt",
        )
        .bind(&record.sora_job_id)
        .bind(Json(record))
        .bind(record.status.name())
        .bind(version)
        .bind(budget::spend(record))
        .fetch_optional(&mut **tx)
        .await?;
        let Some(row) = row else {
            return Ok(Written::Changed);
        };
        let claimed: i32 = row.try_get("attempt")?;
        if attempt.is_some_and(|a| i64::from(a) != i64::from(claimed)) {
            return Ok(Written::Fenced);
        }
        let version: i64 = row.try_get("version")?;
        Self::event(tx, record, version, false).await?;
        Ok(Written::As(version))
    }

    /// What `month` commits against the caps, by `project` and by the whole studio, to the
    /// cent: the jobs still active and those made in the month, each at its `spend_usd`, or for
    /// a row written before that column (or by an older replica) from its record.
    async fn committed(
        tx: &mut sqlx::PgConnection,
        project: &str,
        month: &str,
    ) -> Result<(f64, f64), DbError> {
        const COUNTED: &str =
            "(status IN ('queued', 'running') OR left(record->>'created_at', 7) = $1)";
        let (in_project, in_studio): (f64, f64) = sqlx::query_as(&format!(
            "SELECT coalesce(sum(spend_usd) FILTER (WHERE project_id = $2), 0)::float8, \
                    coalesce(sum(spend_usd), 0)::float8 \
             FROM jobs WHERE spend_usd IS NOT NULL AND {COUNTED}"
        ))
        .bind(month)
        .bind(project)
        .fetch_one(&mut *tx)
        .await?;
        let unsummed: Vec<Json<JobRecord>> = sqlx::query_scalar(&format!(
            "SELECT record FROM jobs WHERE spend_usd IS NULL AND {COUNTED}"
        ))
        .bind(month)
        .fetch_all(&mut *tx)
        .await?;
        let (more_in_project, more_in_studio) =
            budget::sums(project, month, unsummed.iter().map(|j| &j.0));
        let (removed_in_project, removed_in_studio): (f64, f64) = sqlx::query_as(
            "SELECT coalesce(sum(spend_usd) FILTER (WHERE project_id = $2), 0)::float8, \
                    coalesce(sum(spend_usd), 0)::float8 \
             FROM spend_ledger WHERE month = $1",
        )
        .bind(month)
        .bind(project)
        .fetch_one(&mut *tx)
        .await?;
        Ok((
            cents(in_project + more_in_project + removed_in_project),
            cents(in_studio + more_in_studio + removed_in_studio),
        ))
    }

    /// Removes a job for good, keeping what it spent in the ledger in the same transaction:
    /// the record as it was removed, if it was there (with `judged`, and its `updated_at` was
    /// still that).
    pub async fn remove(
        &self,
        id: &str,
        judged: Option<&str>,
    ) -> Result<Option<JobRecord>, DbError> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "DELETE FROM jobs WHERE id = $1 \
             AND ($2::text IS NULL OR record->>'updated_at' = $2) RETURNING version, record",
        )
        .bind(id)
        .bind(judged)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let version: i64 = row.try_get("version")?;
        let record = row.try_get::<Json<JobRecord>, _>("record")?.0;
        if let Some(spent) = Spent::of(&record) {
            sqlx::query(
                "INSERT INTO spend_ledger \
                   (job_id, project_id, month, day, provider, spend_usd, seconds, entry) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (job_id) DO NOTHING",
            )
            .bind(id)
            .bind(&spent.project_id)
            .bind(budget::month_of(&spent.line.created_at))
            .bind(spent.line.created_at.get(..10).unwrap_or_default())
            .bind(&spent.provider)
            .bind(spent.line.spent())
            .bind(if spent.counts_seconds {
                i32::try_from(spent.line.seconds).unwrap_or(i32::MAX)
            } else {
                0
            })
            .bind(Json(&spent))
            .execute(&mut *tx)
            .await?;
        }
        Self::event(&mut tx, &record, version + 1, true).await?;
        tx.commit().await?;
        Ok(Some(record))
    }
}
