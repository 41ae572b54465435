//! One of several replicas sharing a PostgreSQL database. Each keeps every job in memory, so
//! reads (the status polls) are answered from memory as with files; every commit, its own or
//! another replica's, reaches it as a numbered event through LISTEN/NOTIFY (and a catch-up
//! every second, for a notification missed while the connection was down), which updates the
//! memory and feeds the event streams, in the same order on every replica.
//!
//! Work is claimed from the database: each engine worker takes the oldest queued local job, and
//! one claimer takes hosted jobs to follow, each under a lease renewed while it is worked on. A
//! replica that dies stops renewing; once its leases run out, others take its jobs over (a
//! render starts again, a hosted job is followed again from its saved provider id, never sent
//! twice). Every write of a worker carries its own claim's attempt number: one whose lease has
//! passed to another replica is discarded, however late it wakes. A user's change carries none.
//!
//! Here: joining, and holding versioned records in memory. Writing them is in `writes.rs`,
//! following the events in `following.rs`, claiming work under leases in `claims.rs`.

mod claims;
mod following;
mod writes;

use std::collections::HashSet;
use std::sync::atomic::AtomicI64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use crate::database::Database;
use crate::jobs::record::JobRecord;
use crate::jobs::rows::Versioned;
use crate::jobs::{Backend, JobError, JobService, Limits};
use crate::providers::Catalog;
use crate::storage::Storage;

/// How often the events are read even without a notification.
const CATCH_UP_EVERY: Duration = Duration::from_secs(1);

pub struct Replica {
    db: Database,
    /// Records changed in memory only (progress), written soon by the flusher.
    dirty: Mutex<HashSet<String>>,
    /// Held while this replica writes a record, so that its own writes never race each other.
    writing: tokio::sync::Mutex<()>,
    flush: Notify,
    /// Woken when a job is queued: the workers look for work.
    work: Notify,
    /// The number of the last event applied.
    seen: AtomicI64,
}

impl Replica {
    /// Removes a job for good (with `judged`, only if its `updated_at` is still that): the
    /// record removed (as the database last had it), if it was removed.
    pub async fn remove(
        &self,
        record: &JobRecord,
        judged: Option<&str>,
    ) -> Result<Option<JobRecord>, JobError> {
        Ok(self.db.remove(&record.sora_job_id, judged).await?)
    }

    /// Marks a record changed in memory, to be written soon.
    pub fn soon(&self, id: &str) {
        self.dirty.lock().unwrap().insert(id.to_owned());
        self.flush.notify_one();
    }
}

impl JobService {
    /// Joins the replicas sharing `db`: loads every job, then follows the events, claims work
    /// and sweeps old jobs like a single server does.
    pub async fn start_shared(
        data: std::path::PathBuf,
        storage: Arc<dyn Storage>,
        catalog: Catalog,
        limits: Limits,
        db: Database,
    ) -> Result<JobService, JobError> {
        let (jobs, removed, seen) = db.load_all().await?;
        if let Err(e) = db.beat().await {
            tracing::warn!(error = %e, "could not say this replica is alive");
        }
        let filler = db.clone();
        let replica = Replica {
            db,
            dirty: Mutex::default(),
            writing: tokio::sync::Mutex::new(()),
            flush: Notify::new(),
            work: Notify::new(),
            seen: AtomicI64::new(seen),
        };
        let workers = limits.workers.max(1);
        let service = JobService::new(
            Backend::Shared(Box::new(replica)),
            &data,
            storage,
            catalog,
            limits,
        )?;
        for job in jobs {
            service.keep(job);
        }
        for spent in removed {
            let id = spent.line.job_id.clone();
            service.inner.ledger.add(&id, spent);
        }
        service.inner.events.start_at(seen as u64);
        let beating = service.clone();
        service.background(async move { beating.beat().await });
        let events = service.clone();
        service.background(async move { events.follow_events().await });
        let flusher = service.clone();
        service.background(async move { flusher.flush_changes().await });
        let claimer = service.clone();
        service.background(async move { claimer.claim_hosted().await });
        for _ in 0..workers {
            let worker = service.clone();
            service.background(async move { worker.claim_local().await });
        }
        service.sweep_in_background();
        service.background(async move {
            match filler.fill_spend().await {
                Ok(0) => {}
                Ok(rows) => tracing::info!(
                    rows,
                    "filled in the spend of jobs finished before it was kept"
                ),
                Err(error) => tracing::warn!(%error, "could not fill in the spend of older jobs"),
            }
        });
        Ok(service)
    }

    /// Whether the database (when replicas share one) and the storage answer; the part that
    /// does not, otherwise.
    pub async fn ready(&self) -> Result<(), &'static str> {
        if let Some(replica) = self.replica() {
            if !replica.db.ready().await {
                return Err("database");
            }
        }
        match self.inner.storage.head("readyz").await {
            Ok(_) => Ok(()),
            Err(_) => Err("storage"),
        }
    }

    /// The database replicas share, when there is one.
    pub fn database(&self) -> Option<Database> {
        self.replica().map(|r| r.db.clone())
    }

    fn replica(&self) -> Option<&Replica> {
        match &self.inner.backend {
            Backend::Shared(replica) => Some(replica),
            Backend::Files(_) => None,
        }
    }

    /// Holds `job` in memory unless a newer version is held already; whether it was newer.
    fn keep(&self, job: Versioned) -> bool {
        if self.replica().is_none() {
            return false;
        }
        let id = job.record.sora_job_id.clone();
        let mut records = self.inner.records.lock().unwrap();
        if records
            .versions
            .get(&id)
            .is_some_and(|&held| held >= job.version)
        {
            return false;
        }
        records.versions.insert(id.clone(), job.version);
        records.insert(id, job.record);
        true
    }

    /// Reads a job from the database into memory (a job created at another replica a moment
    /// ago, or one about to be saved). Nothing to do when records are files.
    pub async fn refresh(&self, id: &str) {
        let Some(replica) = self.replica() else {
            return;
        };
        match replica.db.read(id).await {
            Ok(Some(job)) => {
                self.keep(job);
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(job = %id, error = %e, "a job could not be read"),
        }
    }

    pub(super) async fn refresh_if_missing(&self, id: &str) {
        if self.replica().is_some() && !self.inner.records.lock().unwrap().contains_key(id) {
            self.refresh(id).await;
        }
    }

    /// The record held in memory and its version.
    fn held(&self, id: &str) -> Option<(JobRecord, i64)> {
        let records = self.inner.records.lock().unwrap();
        records
            .get(id)
            .cloned()
            .zip(records.versions.get(id).copied())
    }

    /// Puts memory back to what the database has (after a write that came second).
    async fn reload(&self, replica: &Replica, id: &str) -> Result<(), JobError> {
        self.inner.records.lock().unwrap().versions.remove(id);
        match replica.db.read(id).await? {
            Some(job) => {
                self.keep(job);
            }
            None => {
                self.inner.records.lock().unwrap().forget(id);
            }
        }
        Ok(())
    }
}
