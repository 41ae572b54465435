//! Every change to a job is a numbered event, written in the same transaction as the change:
//! events are numbered under one lock, so their numbers follow the order of the commits, and
//! each commit wakes the replicas' listeners. Replicas and event streams read them to catch up.

use sqlx::postgres::PgListener;
use sqlx::types::Json;
use sqlx::{Postgres, Row, Transaction};

use super::{versioned, Versioned};
use crate::database::{Database, DbError};
use crate::jobs::record::JobRecord;

/// The channel each commit notifies.
const CHANNEL: &str = "studio_jobs";
/// The advisory lock taken while an event is numbered.
const EVENTS_LOCK: i64 = 0x5354_5544_494f;
/// Events kept for listeners and subscribers that catch up.
const EVENTS_KEPT: i64 = 100_000;

/// One numbered change, as every replica reads it.
#[derive(Debug)]
pub struct Event {
    pub seq: i64,
    pub removed: bool,
    pub job: Versioned,
}

fn event(row: &sqlx::postgres::PgRow) -> Result<Event, sqlx::Error> {
    Ok(Event {
        seq: row.try_get("seq")?,
        removed: row.try_get("removed")?,
        job: versioned(row)?,
    })
}

impl Database {
    /// Numbers an event for `record` (in the commit's order) and wakes the listeners.
    pub(super) async fn event(
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
        let mut listener = PgListener::connect_with(&self.listening).await?;
        listener.listen(CHANNEL).await?;
        Ok(listener)
    }
}
