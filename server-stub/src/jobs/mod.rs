//! The job service: admits jobs within its limits (`admission.rs`), runs them (`running.rs`: on
//! a bounded pool of workers with the embedded engine, or at a hosted provider followed by one
//! poller per job in `hosted.rs`), keeps their records (files in the data folder, written off
//! the async threads, or rows in PostgreSQL shared by several replicas: `replica.rs`), saves
//! finished videos to a project's library (`library.rs`), and removes finished records and
//! previews once they are old (`retention.rs`). This file holds the service's state and the
//! record changes every part makes.

mod admission;
pub mod batch;
pub mod budget;
mod callbacks;
mod cancel;
mod changes;
mod copy_out;
pub mod cost;
mod counts;

mod error;
pub mod estimate;
pub mod events;
mod held;
mod hosted;
pub mod ledger;
mod library;
pub mod multi_shot;
mod persist;
pub mod record;
mod replica;
mod retention;
pub mod rows;
mod running;
mod signing;
mod sources;
pub mod spend;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;

use tokio_util::sync::CancellationToken;

use crate::clock::{now, rfc3339};
use crate::engine::{self, VideoSpec};
use crate::poster::Posters;
use crate::providers::Catalog;
use crate::references::References;
use crate::storage::Storage;
pub use error::JobError;
pub use library::library_key;
use persist::RecordDir;
use record::{JobRecord, Status};
use replica::Replica;

/// A job interrupted this many times (crashes mid-render) is marked error, not retried again.
const MAX_ATTEMPTS: u32 = 3;
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
    /// How the videos it makes are signed (Content Credentials); `None`: they are not.
    pub signing: Option<std::sync::Arc<crate::credentials::Signing>>,
    /// The addresses providers call back (`--public-url`); `None`: jobs are only polled.
    pub callbacks: Option<std::sync::Arc<crate::callbacks::Callbacks>>,
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
            signing: None,
            callbacks: None,
        }
    }
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
    pub inputs: Vec<crate::providers::inputs::Input>,
    pub fit: engine::Fit,
    /// The seed asked for (the first take's, with takes); none lets the server choose.
    pub seed: Option<u32>,
    /// The shot of a sequence the job is a take of.
    pub shot: Option<crate::sequences::ShotLink>,
    /// Several shots made in one call (a model that makes shots): each becomes a take of its
    /// shot when done.
    pub shots: Vec<record::ShotPart>,
}

/// What is told of a video the service saved to a project's library by itself: the project,
/// the file name and, for a take of a shot, the shot it joins.
pub type SavedHook = Box<dyn Fn(&str, &str, Option<&crate::sequences::ShotLink>) + Send + Sync>;

/// At most this many takes of one shot in one request.
pub const MAX_TAKES: u32 = 8;

#[derive(Clone)]
pub struct JobService {
    inner: Arc<Inner>,
}

struct Inner {
    records: Mutex<held::Records>,
    /// What removed jobs spent. Taken after `records` when both are held.
    ledger: ledger::Ledger,
    backend: Backend,
    storage: Arc<dyn Storage>,
    posters: Arc<Posters>,
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
    /// Told of each video the service saves to a library by itself (an export): its project
    /// and file name, for the project's event streams.
    saved_here: std::sync::OnceLock<SavedHook>,
    /// The runtime the service was started on, where its work runs (`background`).
    runtime: tokio::runtime::Handle,
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

pub fn preview_key(id: &str) -> String {
    format!("previews/{id}.mp4")
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
        let removed = disk.ledger().load()?;
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
        // An entry whose record is still kept (the job changed while it was being removed)
        // is counted through its record.
        let kept: std::collections::HashSet<&str> =
            records.iter().map(|r| r.sora_job_id.as_str()).collect();
        for (id, spent) in removed {
            if !kept.contains(id.as_str()) {
                service.inner.ledger.add(&id, spent);
            }
        }
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
                records: Mutex::default(),
                ledger: ledger::Ledger::default(),
                backend,
                posters: Arc::new(Posters::new(storage.clone())),
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
                saved_here: std::sync::OnceLock::new(),
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

    pub fn posters(&self) -> &Arc<Posters> {
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

    /// A project's jobs, newest first (by when they were made, whatever their model).
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
        jobs.sort_by(|a, b| {
            record::made_order(&b.sora_job_id).cmp(record::made_order(&a.sora_job_id))
        });
        jobs
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
