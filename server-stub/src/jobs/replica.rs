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
//! twice). Writes by a worker carry its attempt number: one that lost its lease is discarded.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, Notify};
use tokio_util::sync::DropGuard;

use super::budget;
use super::database::{self, Claim, Database, Event, Versioned, Written};
use super::events::{Change, Start};
use super::record::{JobRecord, Status};
use super::running::job_span;
use super::{interrupted, now, Backend, JobError, JobService, Limits};
use crate::providers::{Catalog, Maker};
use crate::storage::Storage;
use tracing::Instrument;

/// How often the events are read even without a notification.
const CATCH_UP_EVERY: Duration = Duration::from_secs(1);
/// Events read at a time.
const EVENTS_AT_ONCE: i64 = 1000;
/// How often a change is made again when another replica's write came first.
const WRITE_TRIES: usize = 5;
/// Events replayed from the database at most; a subscriber further behind gets every job.
const REPLAY_AT_MOST: u64 = 4096;
/// How often old events are dropped from the database.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

pub struct Replica {
    db: Database,
    /// The version of each record held in memory.
    versions: Mutex<HashMap<String, i64>>,
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
    pub async fn remove(&self, record: &JobRecord) -> Result<(), JobError> {
        self.db.remove(record).await?;
        self.versions.lock().unwrap().remove(&record.sora_job_id);
        Ok(())
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
        let (jobs, seen) = db.load_all().await?;
        let replica = Replica {
            db,
            versions: Mutex::new(HashMap::new()),
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
        service.inner.events.start_at(seen as u64);
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

    /// The stream of a project's job changes for a subscriber that last saw `last` (its
    /// Last-Event-ID): what it missed, or every job as it is. A replica that started after
    /// `last` reads what was missed from the database's events, while it still has them all.
    pub async fn subscribe(
        &self,
        project: &str,
        last: Option<u64>,
    ) -> (Start, broadcast::Receiver<Arc<Change>>) {
        let (start, receiver) = self.inner.events.subscribe(project, last);
        let (Start::Snapshot { seq }, Some(last), Some(replica)) = (&start, last, self.replica())
        else {
            return (start, receiver);
        };
        if last >= *seq || seq - last > REPLAY_AT_MOST {
            return (start, receiver);
        }
        match replica
            .db
            .project_events(project, last as i64, *seq as i64)
            .await
        {
            Ok(Some(events)) => {
                let missed = events
                    .into_iter()
                    .map(|e| {
                        Arc::new(Change {
                            seq: e.seq as u64,
                            record: e.job.record,
                            removed: e.removed,
                        })
                    })
                    .collect();
                (Start::Missed(missed), receiver)
            }
            Ok(None) => (start, receiver),
            Err(e) => {
                tracing::warn!(error = %e, "missed job events could not be read");
                (start, receiver)
            }
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
        let Some(replica) = self.replica() else {
            return false;
        };
        let id = job.record.sora_job_id.clone();
        let mut records = self.inner.records.lock().unwrap();
        let mut versions = replica.versions.lock().unwrap();
        if versions.get(&id).is_some_and(|&held| held >= job.version) {
            return false;
        }
        versions.insert(id.clone(), job.version);
        records.insert(id, job.record);
        true
    }

    /// Adds new jobs to the database in one transaction, then to memory (unless their events
    /// got there first). With a cap, the database counts what is committed under a lock every
    /// replica takes, so replicas admitting at the same moment never pass it together.
    pub(super) async fn insert_shared(
        &self,
        replica: &Replica,
        records: &[JobRecord],
        local: bool,
        caps: budget::Caps,
    ) -> Result<(), JobError> {
        let Some(first) = records.first() else {
            return Ok(());
        };
        let month = budget::month_of(&first.created_at).to_owned();
        let estimate: f64 = records
            .iter()
            .map(|r| r.estimate.as_ref().map_or(0.0, |e| e.usd))
            .sum();
        let project = first.project_id.clone();
        let check = move |jobs: &[JobRecord]| budget::check(caps, &project, &month, estimate, jobs);
        let within = caps.any().then_some(&check as &database::Check);
        replica
            .db
            .insert_all(records, local, budget::month_of(&first.created_at), within)
            .await?
            .map_err(JobError::OverBudget)?;
        for record in records {
            self.keep(Versioned {
                record: record.clone(),
                version: 1,
            });
        }
        Ok(())
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
    fn held(&self, replica: &Replica, id: &str) -> Option<(JobRecord, i64)> {
        let records = self.inner.records.lock().unwrap();
        let versions = replica.versions.lock().unwrap();
        records.get(id).cloned().zip(versions.get(id).copied())
    }

    /// Puts memory back to what the database has (after a write that came second).
    async fn reload(&self, replica: &Replica, id: &str) -> Result<(), JobError> {
        replica.versions.lock().unwrap().remove(id);
        match replica.db.read(id).await? {
            Some(job) => {
                self.keep(job);
            }
            None => {
                self.inner.records.lock().unwrap().remove(id);
            }
        }
        Ok(())
    }

    /// Changes a record: `f` is applied to a copy of the record held, which is written over its
    /// version and only then held in memory, so no one is told of a change the database does
    /// not have. When another replica wrote first, the record is read again and `f` applied
    /// again; a worker's change after its lease passed to another replica is discarded.
    pub(super) async fn change_shared(
        &self,
        replica: &Replica,
        id: &str,
        mut f: impl FnMut(&mut JobRecord),
    ) -> Option<JobRecord> {
        self.refresh_if_missing(id).await;
        for _ in 0..WRITE_TRIES {
            let _one_at_a_time = replica.writing.lock().await;
            let (mut record, version) = self.held(replica, id)?;
            let before = record.clone();
            f(&mut record);
            if record == before {
                return Some(record);
            }
            record.updated_at = now();
            let fence = self.inner.switches.fence(id);
            let written = match replica.db.write(&record, version, fence).await {
                Ok(written) => written,
                Err(e) => {
                    tracing::error!(job = %id, error = %e, "a job change could not be written");
                    return None;
                }
            };
            match written {
                Written::As(version) => {
                    replica.dirty.lock().unwrap().remove(id);
                    self.keep(Versioned {
                        record: record.clone(),
                        version,
                    });
                    return Some(record);
                }
                Written::Changed => {}
                Written::Fenced => {
                    tracing::warn!(job = %id, "a change from a lost lease was discarded");
                    let _ = self.reload(replica, id).await;
                    return None;
                }
            }
            if let Err(e) = self.reload(replica, id).await {
                tracing::error!(job = %id, error = %e, "a job could not be read again");
                return None;
            }
        }
        tracing::error!(job = %id, "the job kept changing elsewhere; this change was dropped");
        None
    }

    /// Writes the record as it stands in memory (a change made in memory only, such as
    /// progress) over the version held. When another replica wrote first, memory is put back
    /// to the database's record and `Conflict` returned; a worker's write after its lease
    /// passed to another replica is discarded (`Fenced`).
    pub(super) async fn write_shared(&self, replica: &Replica, id: &str) -> Result<(), JobError> {
        let _one_at_a_time = replica.writing.lock().await;
        replica.dirty.lock().unwrap().remove(id);
        let Some((record, version)) = self.held(replica, id) else {
            return Ok(());
        };
        let fence = self.inner.switches.fence(id);
        let written = replica.db.write(&record, version, fence).await?;
        if let Written::As(version) = written {
            let mut versions = replica.versions.lock().unwrap();
            let held = versions.entry(id.to_owned()).or_insert(version);
            *held = (*held).max(version);
            return Ok(());
        }
        self.reload(replica, id).await?;
        Err(if let Written::Fenced = written {
            tracing::warn!(job = %id, "a write from a lost lease was discarded");
            JobError::Fenced
        } else {
            JobError::Conflict
        })
    }

    /// Writes records changed in memory only (progress), the newest state of each.
    async fn flush_changes(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        loop {
            tokio::select! {
                () = replica.flush.notified() => {}
                () = self.inner.stop.cancelled() => return,
            }
            let ids: Vec<String> = replica.dirty.lock().unwrap().drain().collect();
            for id in ids {
                match self.write_shared(replica, &id).await {
                    Ok(()) | Err(JobError::Conflict | JobError::Fenced) => {}
                    Err(e) => tracing::warn!(job = %id, error = %e, "progress not written"),
                }
            }
        }
    }

    /// Applies every event, in order, as it is committed (and drops old ones now and then).
    async fn follow_events(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        let mut listener = None;
        // At start too: servers restarted more often than hourly still bound the table.
        let mut pruned: Option<tokio::time::Instant> = None;
        loop {
            if pruned.is_none_or(|at| at.elapsed() > PRUNE_EVERY) {
                pruned = Some(tokio::time::Instant::now());
                if let Err(e) = replica.db.prune_events().await {
                    tracing::warn!(error = %e, "old job events could not be dropped");
                }
            }
            if listener.is_none() {
                listener = replica
                    .db
                    .listen()
                    .await
                    .inspect_err(|e| tracing::warn!(error = %e, "not listening for job events"))
                    .ok();
            }
            let woken = async {
                match &mut listener {
                    Some(l) => l.recv().await.map(drop).map_err(drop),
                    None => Err(()),
                }
            };
            tokio::select! {
                got = woken => if got.is_err() {
                    listener = None;
                    tokio::select! {
                        () = tokio::time::sleep(CATCH_UP_EVERY) => {}
                        () = self.inner.stop.cancelled() => return,
                    }
                },
                () = tokio::time::sleep(CATCH_UP_EVERY) => {}
                () = self.inner.stop.cancelled() => return,
            }
            loop {
                let after = replica.seen.load(Ordering::SeqCst);
                match replica.db.events_after(after, EVENTS_AT_ONCE).await {
                    Ok(events) => {
                        let full = events.len() as i64 == EVENTS_AT_ONCE;
                        for event in events {
                            self.take(replica, event);
                        }
                        if !full {
                            break;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "job events could not be read");
                        break;
                    }
                }
            }
        }
    }

    /// Applies one event: memory, the event stream, and this replica's work on the job.
    fn take(&self, replica: &Replica, event: Event) {
        replica.seen.store(event.seq, Ordering::SeqCst);
        let Event { seq, removed, job } = event;
        let id = job.record.sora_job_id.clone();
        self.inner
            .events
            .publish_numbered(seq as u64, &job.record, removed);
        let record = job.record.clone();
        let newer = if removed {
            let mut versions = replica.versions.lock().unwrap();
            let newer = versions.get(&id).is_none_or(|&held| held < job.version);
            if newer {
                versions.remove(&id);
                self.inner.records.lock().unwrap().remove(&id);
            }
            newer
        } else {
            self.keep(job)
        };
        if !newer {
            return;
        }
        // Cancelled or removed: this replica stops working on it. (A job taken over by another
        // replica is noticed when the lease cannot be renewed, and its writes are fenced.)
        if (removed || !record.status.is_active()) && self.inner.switches.fence(&id).is_some() {
            self.inner.switches.trip(&id);
        }
        if record.status == Status::Queued {
            replica.work.notify_waiters();
        }
    }

    /// Waits for work: a queued job, a lease that runs out, or the stop.
    async fn idle(&self, replica: &Replica) {
        tokio::select! {
            () = replica.work.notified() => {}
            () = tokio::time::sleep(CATCH_UP_EVERY) => {}
            () = self.inner.stop.cancelled() => {}
        }
    }

    /// One engine worker: claims and renders local jobs, one at a time.
    async fn claim_local(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        while !self.stopping() {
            let Ok(permit) = self.inner.workers.clone().acquire_owned().await else {
                return;
            };
            let claimed = replica
                .db
                .claim(true, |r| {
                    if r.status == Status::Running && !interrupted(r) {
                        return Claim::GiveUp;
                    }
                    r.status = Status::Running;
                    r.attempts += 1;
                    r.progress = 0;
                    Claim::Take
                })
                .await;
            match claimed {
                Ok(Some((job, attempt))) => {
                    let (id, record) = (job.record.sora_job_id.clone(), job.record.clone());
                    let span = job_span(&record);
                    let held = self.hold(replica, job, attempt);
                    self.render(&id, record, held.switch.clone())
                        .instrument(span)
                        .await;
                }
                Ok(_) => {
                    drop(permit);
                    self.idle(replica).await;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "no work could be claimed");
                    drop(permit);
                    self.idle(replica).await;
                }
            }
        }
    }

    /// Claims hosted jobs and follows each until it ends or this replica stops.
    async fn claim_hosted(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        while !self.stopping() {
            let claimed = replica.db.claim(false, |_| Claim::Take).await;
            match claimed {
                Ok(Some((job, attempt))) => {
                    let id = job.record.sora_job_id.clone();
                    let maker = self.inner.catalog.get(&job.record.model).cloned();
                    let span = job_span(&job.record);
                    let held = self.hold(replica, job, attempt);
                    let service = self.clone();
                    self.background(
                        async move {
                            match maker {
                                Some(maker @ Maker::Hosted { .. }) => {
                                    service.run_hosted(&id, maker).await
                                }
                                _ => {
                                    let message = "The model is no longer offered by this server";
                                    service.fail(&id, message.into()).await;
                                    service.inner.switches.disarm(&id);
                                }
                            }
                            drop(held);
                        }
                        .instrument(span),
                    );
                }
                Ok(None) => self.idle(replica).await,
                Err(e) => {
                    tracing::warn!(error = %e, "no hosted job could be claimed");
                    self.idle(replica).await;
                }
            }
        }
    }

    /// Holds a claimed job: in memory, with its switch fenced by the attempt and its lease
    /// renewed until the switch is dropped by the work.
    fn hold(&self, replica: &Replica, job: Versioned, attempt: u32) -> Held {
        let id = job.record.sora_job_id.clone();
        self.keep(job);
        let switch = self.inner.switches.arm(&id, &self.inner.stop);
        switch.attempt.store(attempt, Ordering::SeqCst);
        let renewing = tokio_util::sync::CancellationToken::new();
        let service = self.clone();
        let every = replica.db.lease() / 3;
        let until = renewing.clone();
        self.background(async move {
            let Some(replica) = service.replica() else {
                return;
            };
            loop {
                tokio::select! {
                    () = tokio::time::sleep(every) => {}
                    () = until.cancelled() => return,
                }
                match replica.db.renew(&id, attempt).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(job = %id, "the lease was lost; stopping work on it");
                        service.inner.switches.trip(&id);
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(job = %id, error = %e, "the lease could not be renewed")
                    }
                }
            }
        });
        Held {
            switch,
            _renewing: renewing.drop_guard(),
        }
    }

    /// Writes what is still only in memory and hands this replica's leases back (a graceful
    /// stop): other replicas take the jobs over at once.
    pub(super) async fn hand_back(&self, replica: &Replica) {
        let ids: Vec<String> = replica.dirty.lock().unwrap().drain().collect();
        for id in ids {
            let _ = self.write_shared(replica, &id).await;
        }
        if let Err(e) = replica.db.release_all().await {
            tracing::warn!(error = %e, "leases not handed back; they run out by themselves");
        }
    }
}

/// A claimed job's switch, and its lease, renewed until this is dropped.
struct Held {
    switch: Arc<super::cancel::Switch>,
    _renewing: DropGuard,
}
