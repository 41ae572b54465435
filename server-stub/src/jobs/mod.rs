//! The job service: admits jobs within its limits, runs them (on a bounded pool of workers with
//! the embedded engine, or at a hosted provider followed by one poller per job), keeps their
//! records (files in the data folder, written off the async threads, or rows in PostgreSQL
//! shared by several replicas), saves finished videos to a project's library, and removes
//! finished records and previews once they are old.

pub mod budget;
mod cancel;
pub mod cost;

pub mod database;
pub mod events;
mod hosted;
pub mod inputs;
mod persist;
pub mod record;
mod replica;
mod sources;
pub mod spend;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use thiserror::Error;
use tokio::sync::Semaphore;

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::engine::{self, EngineError, VideoSpec};
use crate::poster::{poster_key, Posters};
use crate::providers::{Catalog, Maker};
use crate::references::References;
use crate::storage::{Storage, StorageError};
use database::DbError;
use persist::RecordDir;
use record::{JobRecord, Status};
use replica::Replica;

/// A job interrupted this many times (crashes mid-render) is marked error, not retried again.
const MAX_ATTEMPTS: u32 = 3;
/// What a client refused for too many active jobs is told to wait (one poll interval).
const BUSY_RETRY_SECONDS: u64 = 20;
/// How often old finished jobs are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// The bounds on the work the service takes on.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Jobs rendered at the same time by the embedded engine.
    pub workers: u32,
    /// Queued and running jobs one project may have.
    pub active_per_project: usize,
    /// Queued and running jobs in all.
    pub active: usize,
    /// Submissions to hosted providers in flight at once.
    pub hosted_submissions: usize,
    /// Seconds of video each named provider may be asked for per UTC day (unnamed: no limit).
    pub daily_seconds: HashMap<String, u64>,
    /// Finished jobs (records and previews) are removed this long after their last change;
    /// `None` keeps them.
    pub retention: Option<Duration>,
    /// The most the whole studio may spend in a calendar month (UTC), in USD.
    pub monthly_usd: Option<f64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            workers: 1,
            active_per_project: 10,
            active: 50,
            hosted_submissions: 4,
            daily_seconds: HashMap::new(),
            retention: Some(Duration::from_secs(30 * 86_400)),
            monthly_usd: None,
        }
    }
}

#[derive(Debug, Error)]
pub enum JobError {
    #[error("job not found")]
    NotFound,
    #[error("the job is not finished")]
    NotFinished,
    #[error("the job has already finished")]
    Finished,
    #[error("unknown model {0}")]
    UnknownModel(String),
    /// Inputs the model does not take, or a source it cannot use: the message says which.
    #[error("{0}")]
    Invalid(String),
    /// A reference image or video that is not in the job's project.
    #[error("{0}")]
    NoSuchInput(String),
    /// Over a limit: the message says which; try again after `retry_after` seconds.
    #[error("{message}")]
    Busy { message: String, retry_after: u64 },
    /// It would take spending past a monthly cap.
    #[error("{0}")]
    OverBudget(budget::OverBudget),
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Database(#[from] DbError),
    /// The record changed at another replica since this one read it; it has been read again.
    #[error("the job changed meanwhile")]
    Conflict,
    /// Written by a worker whose lease has gone to another replica: discarded.
    #[error("the job's lease has passed to another replica")]
    Fenced,
}

/// Where the records are kept.
enum Backend {
    /// One JSON file per job in the data folder: one server.
    Files(RecordDir),
    /// Rows in PostgreSQL, shared by every replica.
    Shared(Box<Replica>),
}

/// What a client asks for.
#[derive(Default)]
pub struct NewJob {
    pub project_id: String,
    pub prompt: String,
    pub model: Option<String>,
    pub spec: VideoSpec,
    pub inputs: Vec<inputs::Input>,
    pub fit: engine::Fit,
    /// The seed asked for (the first take's, with takes); none lets the server choose.
    pub seed: Option<u32>,
}

/// At most this many takes of one shot in one request.
pub const MAX_TAKES: u32 = 8;

#[derive(Clone)]
pub struct JobService {
    inner: Arc<Inner>,
}

struct Inner {
    records: Mutex<HashMap<String, JobRecord>>,
    backend: Backend,
    storage: Arc<dyn Storage>,
    posters: Posters,
    references: References,
    prompts: crate::prompts::Prompts,
    catalog: Catalog,
    scratch: PathBuf,
    workers: Arc<Semaphore>,
    submissions: Semaphore,
    limits: Limits,
    /// Held while a record is written, so the last write is of the newest state.
    writing: Mutex<()>,
    stopping: AtomicBool,
    /// Cancelled with `stopping` set: wakes pollers waiting between two polls.
    stop: CancellationToken,
    switches: cancel::Switches,
    events: events::Events,
    /// Cancelled when the server begins to stop: event streams end.
    closing: CancellationToken,
    saving: tokio::sync::Mutex<()>,
    /// The runtime the service was started on, where its work runs (`background`).
    runtime: tokio::runtime::Handle,
}

fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// How long ago an RFC 3339 time was (zero when it cannot be read or is in the future).
fn age(at: &str) -> Duration {
    time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
        .ok()
        .and_then(|t| Duration::try_from(time::OffsetDateTime::now_utc() - t).ok())
        .unwrap_or_default()
}

/// A local job found running after its worker stopped (a crash, or a lease that ran out):
/// queued again, or failed once interrupted `MAX_ATTEMPTS` times. `true` when it runs again.
fn interrupted(record: &mut JobRecord) -> bool {
    record.updated_at = now();
    if record.attempts >= MAX_ATTEMPTS {
        record.status = Status::Error;
        record.error = Some(format!("Interrupted {MAX_ATTEMPTS} times; not retried"));
        false
    } else {
        record.status = Status::Queued;
        record.progress = 0;
        true
    }
}

/// Seconds until the next 00:00 UTC, when daily budgets renew.
fn seconds_to_utc_midnight() -> u64 {
    let now = time::OffsetDateTime::now_utc();
    let passed =
        u64::from(now.hour()) * 3600 + u64::from(now.minute()) * 60 + u64::from(now.second());
    86_400 - passed
}

/// The span a job's work runs in: every line logged while it runs names the job and its
/// project (fields of each JSON log line with `STUDIO_LOG_FORMAT=json`).
fn job_span(record: &JobRecord) -> tracing::Span {
    tracing::info_span!("job", job = %record.sora_job_id, project = %record.project_id)
}

pub fn preview_key(id: &str) -> String {
    format!("previews/{id}.mp4")
}

pub fn library_key(project: &str, id: &str) -> String {
    format!("projects/{}/{id}.mp4", record::project_folder(project))
}

impl JobService {
    /// Opens the records in `data/jobs`, resumes queued and interrupted jobs, and starts.
    pub fn start(
        data: PathBuf,
        storage: Arc<dyn Storage>,
        catalog: Catalog,
        limits: Limits,
    ) -> Result<JobService, JobError> {
        let disk = RecordDir::open(data.join("jobs"))?;
        let mut records = disk.load_all()?;
        for record in &mut records {
            // A hosted job keeps running at its provider: its poller simply starts again.
            if record.status == Status::Running && record.provider_job_id.is_none() {
                if interrupted(record) {
                    tracing::warn!(job = %record.sora_job_id, "resuming a job cut off by a stop");
                }
                disk.write(record)?;
            }
        }
        let service = JobService::new(Backend::Files(disk), &data, storage, catalog, limits)?;
        let resume: Vec<String> = records
            .iter()
            .filter(|r| r.status.is_active())
            .map(|r| r.sora_job_id.clone())
            .collect();
        service
            .inner
            .records
            .lock()
            .unwrap()
            .extend(records.into_iter().map(|r| (r.sora_job_id.clone(), r)));
        for id in resume {
            service.spawn(id);
        }
        service.sweep_in_background();
        Ok(service)
    }

    fn new(
        backend: Backend,
        data: &std::path::Path,
        storage: Arc<dyn Storage>,
        catalog: Catalog,
        limits: Limits,
    ) -> Result<JobService, JobError> {
        let scratch = data.join("tmp");
        std::fs::create_dir_all(&scratch)?;
        Ok(JobService {
            inner: Arc::new(Inner {
                records: Mutex::new(HashMap::new()),
                backend,
                posters: Posters::new(storage.clone()),
                references: References::new(storage.clone()),
                prompts: Default::default(),
                storage,
                catalog,
                scratch,
                workers: Arc::new(Semaphore::new(limits.workers.max(1) as usize)),
                submissions: Semaphore::new(limits.hosted_submissions.max(1)),
                limits,
                writing: Mutex::new(()),
                stopping: AtomicBool::new(false),
                stop: CancellationToken::new(),
                switches: cancel::Switches::default(),
                events: events::Events::default(),
                closing: CancellationToken::new(),
                saving: tokio::sync::Mutex::new(()),
                runtime: tokio::runtime::Handle::current(),
            }),
        })
    }

    /// Runs `task` on the service's own runtime, the one `shutdown` is awaited on. Requests
    /// are served on single-threaded runtimes of their own (`crate::serve`): work a request
    /// starts runs here, spread over the cores, not on the serving thread that took it.
    fn background(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        self.inner.runtime.spawn(task);
    }

    fn sweep_in_background(&self) {
        if let Some(retention) = self.inner.limits.retention {
            let sweeper = self.clone();
            self.background(async move { sweeper.sweep_every(retention).await });
        }
    }

    pub fn posters(&self) -> &Posters {
        &self.inner.posters
    }

    pub fn references(&self) -> &References {
        &self.inner.references
    }

    pub fn prompts(&self) -> &crate::prompts::Prompts {
        &self.inner.prompts
    }

    pub fn storage(&self) -> &Arc<dyn Storage> {
        &self.inner.storage
    }

    pub fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }

    /// Admits a job within the limits, records it durably, and starts it.
    pub async fn create(&self, new: NewJob) -> Result<JobRecord, JobError> {
        let mut takes = self.create_takes(new, 1).await?;
        Ok(takes.remove(0))
    }

    /// Admits `count` takes of one shot together (each counted against every limit, all or
    /// none), each with its own seed: the asked seed and the ones after it, or for the
    /// embedded engine's takes without one, a random start. A single job without a seed is
    /// the prompt's own scene (seed 0) on the engine, and the provider's choice elsewhere.
    pub async fn create_takes(&self, new: NewJob, count: u32) -> Result<Vec<JobRecord>, JobError> {
        let model = new
            .model
            .clone()
            .unwrap_or_else(|| self.inner.catalog.default_model().to_owned());
        let maker = self
            .inner
            .catalog
            .get(&model)
            .ok_or_else(|| JobError::UnknownModel(model.clone()))?;
        // What the inputs name must exist (404) before the model's rules are applied (422).
        let lineage = self.lineage(&new).await?;
        inputs::check(&model, &maker.inputs(), &new.inputs).map_err(JobError::Invalid)?;
        lineage
            .check_source(&model, maker.provider_name(), &new.inputs)
            .map_err(JobError::Invalid)?;
        let at = now();
        let local = matches!(maker, Maker::Local);
        // A seed is kept only where it is used: the engine, or a provider whose contract takes one.
        let first_seed = match (new.seed, count, local) {
            _ if !maker.seeds() => None,
            (Some(seed), _, _) => Some(seed),
            (None, 1, true) => Some(0),
            (None, 1, false) => None,
            (None, _, _) => Some(rand::random()),
        };
        let spec = maker.fit(&lineage.spec);
        let estimate = self
            .inner
            .catalog
            .price(&model)
            .and_then(|price| cost::Estimate::of(price, &spec));
        let caps = budget::Caps {
            project: budget::get(self.inner.storage.as_ref(), &new.project_id)
                .await?
                .map(|b| b.monthly_usd),
            studio: self.inner.limits.monthly_usd,
        };
        if caps.any() && estimate.is_none() {
            return Err(JobError::Invalid(format!(
                "The model {model} has no known price and a monthly budget applies: \
                 give it a price in STUDIO_PRICES"
            )));
        }
        let template = JobRecord {
            sora_job_id: String::new(),
            project_id: new.project_id,
            prompt: new.prompt,
            provider: maker.provider_name().into(),
            spec,
            estimate,
            inputs: new.inputs,
            fit: new.fit,
            parent: lineage.parent,
            parent_key: lineage.parent_key,
            parent_prompt: lineage.parent_prompt,
            parent_remote: lineage.parent_remote,
            seed: None,
            take: None,
            provider_usage: None,
            last_frame_reference: None,
            progress_estimated: maker.estimates_progress(),
            model,
            status: Status::Queued,
            progress: 0,
            preview_key: None,
            provider_job_id: None,
            submit_started_at: None,
            error: None,
            attempts: 0,
            created_at: at.clone(),
            updated_at: at,
        };
        let mut takes: Vec<JobRecord> = (0..count)
            .map(|take| JobRecord {
                sora_job_id: record::new_id(&template.model),
                seed: first_seed.map(|seed| seed.wrapping_add(take)),
                ..template.clone()
            })
            .collect();
        if count > 1 {
            let shot = takes[0].sora_job_id.clone();
            for (index, record) in (1..).zip(takes.iter_mut()) {
                record.take = Some(record::Take {
                    shot: shot.clone(),
                    index,
                    count,
                });
            }
        }
        if let Backend::Shared(replica) = &self.inner.backend {
            self.admit(&self.inner.records.lock().unwrap(), &template, count, caps)?;
            self.insert_shared(replica, &takes, local, caps).await?;
            return Ok(takes);
        }
        {
            let mut records = self.inner.records.lock().unwrap();
            self.admit(&records, &template, count, caps)?;
            for record in &takes {
                records.insert(record.sora_job_id.clone(), record.clone());
                self.inner.events.publish(record, false);
            }
        }
        // All are kept before any starts, so a failure leaves none behind.
        for record in &takes {
            if let Err(e) = self.persist(&record.sora_job_id).await {
                for unkept in &takes {
                    if let Err(e) = self.forget(unkept).await {
                        tracing::warn!(job = %unkept.sora_job_id, error = %e, "an unkept take could not be removed");
                    }
                }
                return Err(e);
            }
        }
        for record in &takes {
            self.spawn(record.sora_job_id.clone());
        }
        Ok(takes)
    }

    /// Refuses `count` new jobs like `new` over the active-job limits, their provider's daily
    /// budget or a monthly cap.
    fn admit(
        &self,
        records: &HashMap<String, JobRecord>,
        new: &JobRecord,
        count: u32,
        caps: budget::Caps,
    ) -> Result<(), JobError> {
        budget::check(
            caps,
            &new.project_id,
            budget::month_of(&new.created_at),
            new.estimate.as_ref().map_or(0.0, |e| e.usd) * f64::from(count),
            records.values(),
        )
        .map_err(JobError::OverBudget)?;
        let count = count as usize;
        let limits = &self.inner.limits;
        let active: Vec<&JobRecord> = records
            .values()
            .filter(|r| matches!(r.status, Status::Queued | Status::Running))
            .collect();
        let in_project = active
            .iter()
            .filter(|r| r.project_id == new.project_id)
            .count();
        if in_project + count > limits.active_per_project {
            return Err(JobError::Busy {
                message: format!(
                    "This project already has {in_project} jobs queued or running; \
                     start more when some have finished"
                ),
                retry_after: BUSY_RETRY_SECONDS,
            });
        }
        if active.len() + count > limits.active {
            return Err(JobError::Busy {
                message: format!(
                    "The server already has {} jobs queued or running; try again shortly",
                    active.len()
                ),
                retry_after: BUSY_RETRY_SECONDS,
            });
        }
        if let Some(&budget) = limits.daily_seconds.get(&new.provider) {
            let today = &new.created_at[..new.created_at.len().min(10)];
            let spent: u64 = records
                .values()
                .filter(|r| r.provider == new.provider && r.created_at.starts_with(today))
                .filter(|r| r.status != Status::Error || r.submit_started_at.is_some())
                .map(|r| u64::from(r.spec.seconds))
                .sum();
            if spent + u64::from(new.spec.seconds) * count as u64 > budget {
                return Err(JobError::Busy {
                    message: format!(
                        "Today's budget of {budget} s of video at {} is spent ({spent} s); \
                         it renews at 00:00 UTC",
                        new.provider
                    ),
                    retry_after: seconds_to_utc_midnight(),
                });
            }
        }
        Ok(())
    }

    /// The Prometheus exposition, with the job gauges counted from the records now.
    pub fn metrics_text(&self) -> String {
        let now = now();
        let month = budget::month_of(&now);
        let jobs: Vec<crate::metrics::JobCount> = self
            .inner
            .records
            .lock()
            .unwrap()
            .values()
            .map(|r| crate::metrics::JobCount {
                status: r.status,
                provider: r.provider.clone(),
                committed_usd: budget::committed(r, month),
            })
            .collect();
        crate::metrics::get().render(&jobs)
    }

    /// The jobs (of `project`, or all) made from `from` to `to`, as spend lines.
    pub fn spend_lines(
        &self,
        project: Option<&str>,
        from: time::Date,
        to: time::Date,
    ) -> Vec<spend::Line> {
        spend::lines(
            self.inner.records.lock().unwrap().values(),
            project,
            from,
            to,
        )
    }

    /// What counts against this month's budgets now: of `project`, and of the whole studio.
    pub fn committed(&self, project: &str) -> (f64, f64) {
        let now = now();
        let records = self.inner.records.lock().unwrap();
        budget::totals(project, budget::month_of(&now), records.values())
    }

    /// The studio's monthly cap, if any.
    pub fn studio_cap(&self) -> Option<f64> {
        self.inner.limits.monthly_usd
    }

    pub fn get(&self, id: &str) -> Option<JobRecord> {
        self.read(id, JobRecord::clone)
    }

    /// Looks at a record in place (the status path builds its answer without a copy of it).
    pub fn read<T>(&self, id: &str, look: impl FnOnce(&JobRecord) -> T) -> Option<T> {
        self.inner.records.lock().unwrap().get(id).map(look)
    }

    /// A project's jobs, newest first.
    pub fn list(&self, project: &str) -> Vec<JobRecord> {
        let mut jobs: Vec<JobRecord> = self
            .inner
            .records
            .lock()
            .unwrap()
            .values()
            .filter(|r| r.project_id == project)
            .cloned()
            .collect();
        jobs.sort_by(|a, b| b.sora_job_id.cmp(&a.sora_job_id));
        jobs
    }

    /// Changes a record in memory only (progress, which a restart does not need; replicas
    /// sharing a database are told soon after).
    fn update(&self, id: &str, f: impl FnOnce(&mut JobRecord)) -> Option<JobRecord> {
        let (record, changed) = self.apply(id, f)?;
        if let (true, Backend::Shared(replica)) = (changed, &self.inner.backend) {
            replica.soon(id);
        }
        Some(record)
    }

    /// Applies `f` to the record in memory: the record, and whether `f` changed it (a change is
    /// stamped, and told to the event stream here when records are files; the replicas'
    /// listeners tell it otherwise).
    fn apply(&self, id: &str, f: impl FnOnce(&mut JobRecord)) -> Option<(JobRecord, bool)> {
        let mut records = self.inner.records.lock().unwrap();
        let record = records.get_mut(id)?;
        let before = record.clone();
        f(record);
        if *record == before {
            return Some((before, false));
        }
        record.updated_at = now();
        if let Backend::Files(_) = &self.inner.backend {
            self.inner.events.publish(record, false);
        }
        Some((record.clone(), true))
    }

    /// Changes a record in memory and where it is kept; a failed write is logged. `None` when
    /// there is no such job, or (with a shared database) the change could not be written or
    /// came from a worker that lost the job's lease.
    async fn change(&self, id: &str, f: impl FnMut(&mut JobRecord)) -> Option<JobRecord> {
        if let Backend::Shared(replica) = &self.inner.backend {
            return self.change_shared(replica, id, f).await;
        }
        let (record, changed) = self.apply(id, f)?;
        if changed {
            if let Err(e) = self.persist(id).await {
                tracing::error!(job = %id, error = %e, "could not persist job record");
            }
        }
        Some(record)
    }

    /// Writes the record as it now stands in memory to where it is kept. On disk: on a blocking
    /// thread, one write at a time, each of the newest state, so the disk never ends on an
    /// older one.
    async fn persist(&self, id: &str) -> Result<(), JobError> {
        if let Backend::Shared(replica) = &self.inner.backend {
            return self.write_shared(replica, id).await;
        }
        let id = id.to_owned();
        self.on_disk(move |service, disk| match service.get(&id) {
            Some(record) => disk.write(&record),
            None => Ok(()),
        })
        .await
    }

    /// Runs `f` on the record folder on a blocking thread, one writer at a time (nothing to do
    /// when the records are in a database).
    async fn on_disk(
        &self,
        f: impl FnOnce(&JobService, &RecordDir) -> std::io::Result<()> + Send + 'static,
    ) -> Result<(), JobError> {
        let service = self.clone();
        tokio::task::spawn_blocking(move || {
            let _one_writer = service.inner.writing.lock().unwrap();
            match &service.inner.backend {
                Backend::Files(disk) => f(&service, disk),
                Backend::Shared(_) => Ok(()),
            }
        })
        .await
        .map_err(std::io::Error::other)??;
        Ok(())
    }

    fn spawn(&self, id: String) {
        let service = self.clone();
        let Some((model, span)) = self.read(&id, |r| (r.model.clone(), job_span(r))) else {
            return;
        };
        match self.inner.catalog.get(&model).cloned() {
            None => {
                let message = format!("The model {model} is no longer offered by this server");
                self.background(async move { service.fail(&id, message).await }.instrument(span));
                return;
            }
            Some(maker @ Maker::Hosted { .. }) => {
                self.background(
                    async move { service.run_hosted(&id, maker).await }.instrument(span),
                );
                return;
            }
            Some(Maker::Local) => {}
        }
        self.background(
            async move {
                let Ok(_permit) = service.inner.workers.clone().acquire_owned().await else {
                    return;
                };
                if service.stopping() {
                    return;
                }
                service.run(&id).await;
            }
            .instrument(span),
        );
    }

    async fn run(&self, id: &str) {
        let switch = self.inner.switches.arm(id, &self.inner.stop);
        let mut queued = false;
        let Some(record) = self
            .change(id, |r| {
                queued = r.status == Status::Queued;
                if queued {
                    r.status = Status::Running;
                    r.attempts += 1;
                    r.progress = 0;
                }
            })
            .await
            .filter(|_| queued)
        else {
            // Cancelled while it waited for a worker.
            self.inner.switches.disarm(id);
            return;
        };
        self.render(id, record, switch).await;
    }

    /// Renders a job this server has claimed, into the holding area.
    async fn render(&self, id: &str, record: JobRecord, switch: Arc<cancel::Switch>) {
        tracing::info!(job = %id, prompt = %record.prompt, "rendering");
        let out = self
            .inner
            .scratch
            .join(format!("{}.mp4", ulid::Ulid::new()));
        let service = self.clone();
        let job_id = id.to_owned();
        let target = out.clone();
        let shot = self.shot(&record).await;
        let rendered = tokio::task::spawn_blocking(move || {
            let shot = shot?;
            let mut last = 0;
            engine::render_video(
                &record.prompt,
                &record.spec,
                &shot,
                &target,
                &switch.flag,
                |done, total| {
                    let percent = (u64::from(done) * 100 / u64::from(total)) as u8;
                    if percent != last {
                        last = percent;
                        service.update(&job_id, |r| r.progress = percent.min(99));
                    }
                },
            )
        })
        .await
        .unwrap_or_else(|e| Err(EngineError::Encode(format!("worker panicked: {e}"))));
        let outcome = match rendered {
            Ok(()) => self
                .inner
                .storage
                .put_file(&preview_key(id), &out)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let _ = tokio::fs::remove_file(&out).await;
        self.inner.switches.disarm(id);
        match outcome {
            Ok(object) => {
                tracing::info!(job = %id, bytes = object.size_bytes, "done");
                self.done(id, object.key).await;
            }
            Err(_) if self.stopping() => {
                tracing::info!(job = %id, "stopped; will resume at next start");
                self.change(id, |r| {
                    if r.status.is_active() {
                        r.status = Status::Queued;
                        r.progress = 0;
                    }
                })
                .await;
            }
            Err(e) => self.fail(id, e).await,
        }
    }

    /// Copies a finished job's video into the project's library with its `.json` metadata.
    /// Saving again returns the same key and writes nothing twice.
    pub async fn save(&self, id: &str, project: &str, prompt: &str) -> Result<String, JobError> {
        self.refresh(id).await;
        let record = self.get(id).ok_or(JobError::NotFound)?;
        let Some(preview) = record
            .preview_key
            .clone()
            .filter(|_| record.status == Status::Done)
        else {
            return Err(JobError::NotFinished);
        };
        let _one_at_a_time = self.inner.saving.lock().await;
        let key = library_key(project, id);
        let storage = &self.inner.storage;
        let object = match storage.head(&key).await? {
            None => storage.copy(&preview, &key).await?,
            // A copy cut short by a crash or a full disk is repaired from the preview.
            Some(saved) => match storage.head(&preview).await? {
                Some(source) if source.size_bytes != saved.size_bytes => {
                    tracing::warn!(job = %id, key = %key, saved = saved.size_bytes, source = source.size_bytes, "repairing a damaged saved video");
                    storage.copy(&preview, &key).await?
                }
                _ => saved,
            },
        };
        if let (Some(from), Some(to)) = (poster_key(&preview), poster_key(&key)) {
            if storage.head(&to).await?.is_none() {
                match storage.copy(&from, &to).await {
                    // A preview from before posters: the library's poster is made on request.
                    Err(StorageError::NotFound(_)) => {}
                    other => {
                        other?;
                    }
                }
            }
        }
        let meta_key = format!("{}.json", key.strip_suffix(".mp4").unwrap_or(&key));
        if storage.head(&meta_key).await?.is_none() {
            let prompt = if prompt.trim().is_empty() {
                record.prompt.as_str()
            } else {
                prompt
            };
            let mut metadata = json!({
                "prompt": prompt,
                "model": record.model,
                "provider": record.provider,
                "seconds": record.spec.seconds,
                "size": record.spec.size(),
                "fps": record.spec.fps,
                "codec": "h264",
                "container": "mp4",
                "duration": record.spec.seconds,
                "size_bytes": object.size_bytes,
                "created_at": now(),
                "job_created_at": record.created_at,
                "sora_job_id": id,
                "project_id": project,
                "provider_job_id": record.provider_job_id,
                "inputs": record.inputs,
                "fit": record.fit,
                "parent": record.parent,
                "seed": record.seed,
                "provider_usage": record.provider_usage,
                "cost": cost::of(&record),
            });
            // Frame rate and codec are known facts only for what the embedded engine made.
            if record.provider != "local" {
                if let Some(fields) = metadata.as_object_mut() {
                    fields.remove("fps");
                    fields.remove("codec");
                }
            }
            storage
                .put_bytes(
                    &meta_key,
                    serde_json::to_vec_pretty(&metadata).unwrap_or_default(),
                )
                .await?;
        }
        Ok(key)
    }

    /// Marks a job done with its preview (and the preview's poster), unless it has finished
    /// already (a cancel).
    async fn done(&self, id: &str, preview_key: String) {
        self.done_with(id, preview_key, |_| {}).await;
    }

    /// [`Self::done`], with `also` changing the record in the same write.
    async fn done_with(&self, id: &str, preview_key: String, also: impl Fn(&mut JobRecord)) {
        if let Err(e) = self.inner.posters.ensure(&preview_key).await {
            tracing::warn!(job = %id, error = %e, "the preview has no poster");
        }
        self.change(id, |r| {
            if r.status.is_active() {
                r.status = Status::Done;
                r.progress = 100;
                r.preview_key = Some(preview_key.clone());
                also(r);
                crate::metrics::get().finished(&r.provider, r.status, age(&r.created_at));
            }
        })
        .await;
    }

    /// Marks a job failed with `message`, unless it has finished already (a cancel).
    async fn fail(&self, id: &str, message: String) {
        self.change(id, |r| {
            if r.status.is_active() {
                tracing::error!(job = %id, error = %message, "failed");
                r.status = Status::Error;
                r.error = Some(message.clone());
                crate::metrics::get().finished(&r.provider, r.status, age(&r.created_at));
            }
        })
        .await;
    }

    /// Removes finished jobs whose last change is older than `retention`, with their previews
    /// (a saved video is in the library and stays), now and every hour until the stop.
    async fn sweep_every(&self, retention: Duration) {
        loop {
            self.sweep(retention).await;
            tokio::select! {
                () = tokio::time::sleep(SWEEP_EVERY) => {}
                () = self.inner.stop.cancelled() => return,
            }
        }
    }

    async fn sweep(&self, retention: Duration) {
        let now = now();
        let expired: Vec<JobRecord> = self
            .inner
            .records
            .lock()
            .unwrap()
            .values()
            .filter(|r| matches!(r.status, Status::Done | Status::Error))
            .filter(|r| age(&r.updated_at) > retention)
            // What a job cost counts against this month's budgets until the month is over.
            .filter(|r| budget::month_of(&r.created_at) != budget::month_of(&now))
            .cloned()
            .collect();
        for record in expired {
            if let Err(e) = self.forget(&record).await {
                tracing::warn!(job = %record.sora_job_id, error = %e, "an expired job could not be removed");
            }
        }
    }

    /// Removes a finished job's preview and record, in memory and on disk.
    async fn forget(&self, record: &JobRecord) -> Result<(), JobError> {
        if let Some(key) = &record.preview_key {
            if let Some(poster) = poster_key(key) {
                self.inner.storage.delete(&poster).await?;
            }
            self.inner.storage.delete(key).await?;
        }
        let id = record.sora_job_id.clone();
        if let Backend::Shared(replica) = &self.inner.backend {
            replica.remove(record).await?;
            self.inner.records.lock().unwrap().remove(&id);
            return Ok(());
        }
        {
            let mut records = self.inner.records.lock().unwrap();
            if let Some(removed) = records.remove(&id) {
                self.inner.events.publish(&removed, true);
            }
        }
        self.on_disk(move |_, disk| disk.remove(&id)).await
    }

    fn stopping(&self) -> bool {
        self.inner.stopping.load(Ordering::SeqCst)
    }

    /// Resolves when the server begins to stop: open event streams end then, so that a
    /// graceful stop does not wait for them.
    pub fn closing(&self) -> tokio_util::sync::WaitForCancellationFutureOwned {
        self.inner.closing.clone().cancelled_owned()
    }

    /// Ends the open event streams (the first step of a stop).
    pub fn close_streams(&self) {
        self.inner.closing.cancel();
    }

    /// Stops taking work; a job being rendered stops and stays queued for the next start, and a
    /// hosted job's poller stops (it starts again, without a new submission, at the next start).
    pub async fn shutdown(&self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.inner.switches.trip_all();
        self.inner.stop.cancel();
        let all = self.inner.limits.workers.max(1);
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            self.inner.workers.acquire_many(all),
        )
        .await;
        if let Backend::Shared(replica) = &self.inner.backend {
            self.hand_back(replica).await;
        }
    }
}
