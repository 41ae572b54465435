//! Job records, the queue and the stream of job changes in PostgreSQL (`--database-url`), shared
//! by any number of replicas. Every write names the version it changes (so none is lost), and
//! adds a numbered event in the same transaction; events are numbered under one lock, so their
//! numbers follow the order of the commits, and each commit wakes the replicas' listeners.
//! Work is claimed with `FOR UPDATE SKIP LOCKED`: a lease with an owner and an expiry, renewed
//! while the job is worked on, and an attempt number as its fencing token.

use std::time::Duration;

use futures_util::future::BoxFuture;
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::postgres::{PgListener, PgPool, PgPoolOptions};
use sqlx::types::Json;
use sqlx::{Postgres, Row, Transaction};

use super::record::JobRecord;

/// The channel each commit notifies.
const CHANNEL: &str = "studio_jobs";
/// Where replicas tell each other of project changes beyond jobs (picks, review notes).
const PROJECT_CHANNEL: &str = "studio_projects";
/// The advisory lock taken while an event is numbered.
const EVENTS_LOCK: i64 = 0x5354_5544_494f;
/// The advisory lock every replica's admissions take: the limits and budgets are checked
/// against what is committed, and new jobs added, one admission at a time.
const ADMISSION_LOCK: i64 = 0x5354_5544_4255;
/// Events kept for listeners and subscribers that catch up.
const EVENTS_KEPT: i64 = 100_000;
/// How long a replica waits for the database at start.
const CONNECT_FOR: Duration = Duration::from_secs(60);

/// The migrations in `server-stub/migrations/`, built into the binary: what `sqlx::migrate!`
/// does, without sqlx's macro crates, which built a second, unoptimised sqlx for the compiler
/// on every first start. Versions, descriptions and checksums are the macro's, so a database
/// migrated by either is up to date for the other. A new file in `migrations/` is listed here.
#[derive(Debug)]
struct Embedded;

impl<'s> MigrationSource<'s> for Embedded {
    fn resolve(self) -> BoxFuture<'s, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async {
            Ok(vec![
                Migration::new(
                    1,
                    "jobs".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0001_jobs.sql").into(),
                    false,
                ),
                Migration::new(
                    2,
                    "jobs by month".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0002_jobs_by_month.sql").into(),
                    false,
                ),
            ])
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("database migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// A record as the database holds it, with its version.
#[derive(Debug, Clone)]
pub struct Versioned {
    pub record: JobRecord,
    pub version: i64,
}

/// One numbered change, as every replica reads it.
#[derive(Debug)]
pub struct Event {
    pub seq: i64,
    pub removed: bool,
    pub job: Versioned,
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

/// What a claim makes of the oldest claimable job.
pub enum Claim {
    /// Work on it under the lease.
    Take,
    /// Interrupted too often: written as it now is (failed), without a lease.
    GiveUp,
}

#[derive(Clone)]
pub struct Database {
    pool: PgPool,
    /// This replica's name in leases.
    owner: String,
    lease: Duration,
}

fn versioned(row: &sqlx::postgres::PgRow) -> Result<Versioned, sqlx::Error> {
    Ok(Versioned {
        record: row.try_get::<Json<JobRecord>, _>("record")?.0,
        version: row.try_get("version")?,
    })
}

fn event(row: &sqlx::postgres::PgRow) -> Result<Event, sqlx::Error> {
    Ok(Event {
        seq: row.try_get("seq")?,
        removed: row.try_get("removed")?,
        job: versioned(row)?,
    })
}

impl Database {
    /// Connects (waiting up to a minute for a database that is not up yet) and applies the
    /// embedded migrations.
    pub async fn connect(url: &str, owner: String, lease: Duration) -> Result<Database, DbError> {
        let deadline = tokio::time::Instant::now() + CONNECT_FOR;
        let pool = loop {
            match PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(Duration::from_secs(10))
                .connect(url)
                .await
            {
                Ok(pool) => break pool,
                Err(e) if tokio::time::Instant::now() < deadline => {
                    tracing::warn!(error = %e, "the database is not reachable yet; trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(e) => return Err(e.into()),
            }
        };
        Migrator::new(Embedded).await?.run(&pool).await?;
        Ok(Database { pool, owner, lease })
    }

    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Every job with its version, and the number of the last event before them.
    pub async fn load_all(&self) -> Result<(Vec<Versioned>, i64), DbError> {
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
        tx.commit().await?;
        Ok((jobs, last))
    }

    /// One job as the database has it now.
    pub async fn read(&self, id: &str) -> Result<Option<Versioned>, DbError> {
        let row = sqlx::query("SELECT record, version FROM jobs WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(versioned).transpose()?)
    }

    /// Numbers an event for `record` (in the commit's order) and wakes the listeners.
    async fn event(
        tx: &mut Transaction<'_, Postgres>,
        record: &JobRecord,
        version: i64,
        removed: bool,
    ) -> Result<(), DbError> {
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(EVENTS_LOCK)
            .execute(&mut **tx)
            .await?;
        let seq: i64 = sqlx::query_scalar(
            "INSERT INTO job_events (job_id, project_id, removed, version, record) \
             VALUES ($1, $2, $3, $4, $5) RETURNING seq",
        )
        .bind(&record.sora_job_id)
        .bind(&record.project_id)
        .bind(removed)
        .bind(version)
        .bind(Json(record))
        .fetch_one(&mut **tx)
        .await?;
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(seq.to_string())
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// Adds new jobs (version 1) in one transaction, if `admit` lets them in. Under a lock every
    /// replica's admissions take, the jobs that count are read first: the active ones, and with
    /// `month` every one made in it. When `admit` refuses, nothing is added.
    pub async fn insert_all<E>(
        &self,
        records: &[JobRecord],
        local: bool,
        month: Option<&str>,
        admit: impl Fn(&[JobRecord]) -> Result<(), E>,
    ) -> Result<Result<(), E>, DbError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(ADMISSION_LOCK)
            .execute(&mut *tx)
            .await?;
        let counted: Vec<Json<JobRecord>> = sqlx::query_scalar(
            "SELECT record FROM jobs \
             WHERE status IN ('queued', 'running') OR left(record->>'created_at', 7) = $1",
        )
        .bind(month)
        .fetch_all(&mut *tx)
        .await?;
        let counted: Vec<JobRecord> = counted.into_iter().map(|j| j.0).collect();
        if let Err(refused) = admit(&counted) {
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

    /// Claims the oldest active job of its kind (`local`: the embedded engine's) that nobody
    /// holds: never claimed, or its lease run out or handed back: the job and the claim's attempt number. `decide`
    /// makes the record what it becomes; a job it gives up on is written without a lease and
    /// the next one is looked at.
    pub async fn claim(
        &self,
        local: bool,
        mut decide: impl FnMut(&mut JobRecord) -> Claim,
    ) -> Result<Option<(Versioned, u32)>, DbError> {
        loop {
            let mut tx = self.pool.begin().await?;
            let row = sqlx::query(
                "SELECT record, version FROM jobs \
                 WHERE local = $1 AND status IN ('queued', 'running') \
                   AND (lease_until IS NULL OR lease_until < now()) \
                 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED",
            )
            .bind(local)
            .fetch_optional(&mut *tx)
            .await?;
            let Some(mut job) = row.as_ref().map(versioned).transpose()? else {
                return Ok(None);
            };
            let taken = matches!(decide(&mut job.record), Claim::Take);
            let row = sqlx::query(
                "UPDATE jobs SET record = $2, status = $3, version = version + 1, \
                   attempt = attempt + 1, lease_owner = $4, \
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
        .execute(&self.pool)
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

    /// The events after number `seq`, oldest first, at most `limit`.
    pub async fn events_after(&self, seq: i64, limit: i64) -> Result<Vec<Event>, DbError> {
        sqlx::query(
            "SELECT seq, removed, record, version FROM job_events \
             WHERE seq > $1 ORDER BY seq LIMIT $2",
        )
        .bind(seq)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(event)
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
    }

    /// A project's events after `after` up to `upto`, oldest first; `None` when some of them
    /// have been dropped already.
    pub async fn project_events(
        &self,
        project: &str,
        after: i64,
        upto: i64,
    ) -> Result<Option<Vec<Event>>, DbError> {
        let oldest: Option<i64> = sqlx::query_scalar("SELECT min(seq) FROM job_events")
            .fetch_one(&self.pool)
            .await?;
        if oldest.is_none_or(|oldest| oldest > after + 1) {
            return Ok(None);
        }
        let events = sqlx::query(
            "SELECT seq, removed, record, version FROM job_events \
             WHERE seq > $1 AND seq <= $2 AND project_id = $3 ORDER BY seq",
        )
        .bind(after)
        .bind(upto)
        .bind(project)
        .fetch_all(&self.pool)
        .await?;
        Ok(Some(events.iter().map(event).collect::<Result<_, _>>()?))
    }

    /// Drops events older than the newest `EVENTS_KEPT`.
    pub async fn prune_events(&self) -> Result<(), DbError> {
        sqlx::query("DELETE FROM job_events WHERE seq <= (SELECT max(seq) FROM job_events) - $1")
            .bind(EVENTS_KEPT)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A listener woken by every commit.
    pub async fn listen(&self) -> Result<PgListener, DbError> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(CHANNEL).await?;
        Ok(listener)
    }

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
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(PROJECT_CHANNEL).await?;
        Ok(listener)
    }

    /// Whether the database answers.
    pub async fn ready(&self) -> bool {
        sqlx::query("SELECT 1").execute(&self.pool).await.is_ok()
    }
}
