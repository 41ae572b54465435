//! The job service: creates jobs, runs them (on a bounded pool of workers with the embedded
//! engine, or at a hosted provider followed by one poller per job), keeps their records on
//! disk, and saves finished videos to a project's library.

mod hosted;
mod persist;
pub mod record;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use thiserror::Error;
use tokio::sync::Semaphore;

use tokio_util::sync::CancellationToken;

use crate::engine::{self, EngineError, VideoSpec};
use crate::providers::{Catalog, Maker};
use crate::storage::{Storage, StorageError};
use persist::RecordDir;
use record::{JobRecord, Status};

/// A job interrupted this many times (crashes mid-render) is marked error, not retried again.
const MAX_ATTEMPTS: u32 = 3;

#[derive(Debug, Error)]
pub enum JobError {
    #[error("job not found")]
    NotFound,
    #[error("the job is not finished")]
    NotFinished,
    #[error("unknown model {0}")]
    UnknownModel(String),
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// What a client asks for.
pub struct NewJob {
    pub project_id: String,
    pub prompt: String,
    pub model: Option<String>,
    pub spec: VideoSpec,
}

#[derive(Clone)]
pub struct JobService {
    inner: Arc<Inner>,
}

struct Inner {
    records: Mutex<HashMap<String, JobRecord>>,
    disk: RecordDir,
    storage: Arc<dyn Storage>,
    catalog: Catalog,
    scratch: PathBuf,
    workers: Arc<Semaphore>,
    worker_count: u32,
    stopping: AtomicBool,
    /// Cancelled with `stopping` set: wakes pollers waiting between two polls.
    stop: CancellationToken,
    saving: tokio::sync::Mutex<()>,
}

fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

pub fn preview_key(id: &str) -> String {
    format!("previews/{id}.mp4")
}

pub fn library_key(project: &str, id: &str) -> String {
    format!("projects/{project}/{id}.mp4")
}

impl JobService {
    /// Opens the records in `data/jobs`, resumes queued and interrupted jobs, and starts.
    pub fn start(
        data: PathBuf,
        storage: Arc<dyn Storage>,
        catalog: Catalog,
        workers: u32,
    ) -> Result<JobService, JobError> {
        let disk = RecordDir::open(data.join("jobs"))?;
        let scratch = data.join("tmp");
        std::fs::create_dir_all(&scratch)?;
        let records = disk.load_all()?;
        let service = JobService {
            inner: Arc::new(Inner {
                records: Mutex::new(HashMap::new()),
                disk,
                storage,
                catalog,
                scratch,
                workers: Arc::new(Semaphore::new(workers.max(1) as usize)),
                worker_count: workers.max(1),
                stopping: AtomicBool::new(false),
                stop: CancellationToken::new(),
                saving: tokio::sync::Mutex::new(()),
            }),
        };
        let mut resume = Vec::new();
        for mut record in records {
            // A hosted job keeps running at its provider: its poller simply starts again.
            if record.status == Status::Running && record.provider_job_id.is_none() {
                if record.attempts >= MAX_ATTEMPTS {
                    record.status = Status::Error;
                    record.error = Some(format!("Interrupted {MAX_ATTEMPTS} times; not retried"));
                } else {
                    tracing::warn!(job = %record.sora_job_id, "resuming a job cut off by a stop");
                    record.status = Status::Queued;
                    record.progress = 0;
                }
                record.updated_at = now();
                service.inner.disk.write(&record)?;
            }
            if matches!(record.status, Status::Queued | Status::Running) {
                resume.push(record.sora_job_id.clone());
            }
            service
                .inner
                .records
                .lock()
                .unwrap()
                .insert(record.sora_job_id.clone(), record);
        }
        for id in resume {
            service.spawn(id);
        }
        Ok(service)
    }

    pub fn storage(&self) -> &Arc<dyn Storage> {
        &self.inner.storage
    }

    pub fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }

    pub fn create(&self, new: NewJob) -> Result<JobRecord, JobError> {
        let model = new
            .model
            .unwrap_or_else(|| self.inner.catalog.default_model().to_owned());
        let maker = self
            .inner
            .catalog
            .get(&model)
            .ok_or_else(|| JobError::UnknownModel(model.clone()))?;
        let at = now();
        let record = JobRecord {
            sora_job_id: record::new_id(&model),
            project_id: new.project_id,
            prompt: new.prompt,
            provider: maker.provider_name().into(),
            spec: maker.fit(&new.spec),
            progress_estimated: maker.estimates_progress(),
            model,
            status: Status::Queued,
            progress: 0,
            preview_key: None,
            provider_job_id: None,
            error: None,
            attempts: 0,
            created_at: at.clone(),
            updated_at: at,
        };
        self.inner.disk.write(&record)?;
        self.inner
            .records
            .lock()
            .unwrap()
            .insert(record.sora_job_id.clone(), record.clone());
        self.spawn(record.sora_job_id.clone());
        Ok(record)
    }

    pub fn get(&self, id: &str) -> Option<JobRecord> {
        self.inner.records.lock().unwrap().get(id).cloned()
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

    /// Changes a record in memory and, when `persist`, on disk.
    fn change(&self, id: &str, persist: bool, f: impl FnOnce(&mut JobRecord)) -> Option<JobRecord> {
        let record = {
            let mut records = self.inner.records.lock().unwrap();
            let record = records.get_mut(id)?;
            f(record);
            record.updated_at = now();
            record.clone()
        };
        if persist {
            if let Err(e) = self.inner.disk.write(&record) {
                tracing::error!(job = %id, error = %e, "could not persist job record");
            }
        }
        Some(record)
    }

    fn spawn(&self, id: String) {
        let service = self.clone();
        let Some(model) = self.get(&id).map(|r| r.model) else {
            return;
        };
        match self.inner.catalog.get(&model).cloned() {
            None => {
                return self.fail(
                    &id,
                    format!("The model {model} is no longer offered by this server"),
                );
            }
            Some(maker @ Maker::Hosted { .. }) => {
                tokio::spawn(async move { service.run_hosted(&id, maker).await });
                return;
            }
            Some(Maker::Local) => {}
        }
        tokio::spawn(async move {
            let Ok(_permit) = service.inner.workers.clone().acquire_owned().await else {
                return;
            };
            if service.stopping() {
                return;
            }
            service.run(&id).await;
        });
    }

    async fn run(&self, id: &str) {
        let Some(record) = self.change(id, true, |r| {
            r.status = Status::Running;
            r.attempts += 1;
            r.progress = 0;
        }) else {
            return;
        };
        tracing::info!(job = %id, prompt = %record.prompt, "rendering");
        let out = self
            .inner
            .scratch
            .join(format!("{}.mp4", ulid::Ulid::new()));
        let service = self.clone();
        let job_id = id.to_owned();
        let target = out.clone();
        let rendered = tokio::task::spawn_blocking(move || {
            let mut last = 0;
            engine::render_video(
                &record.prompt,
                &record.spec,
                &target,
                &service.inner.stopping,
                |done, total| {
                    let percent = (u64::from(done) * 100 / u64::from(total)) as u8;
                    if percent != last {
                        last = percent;
                        service.change(&job_id, false, |r| r.progress = percent.min(99));
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
        match outcome {
            Ok(object) => {
                tracing::info!(job = %id, bytes = object.size_bytes, "done");
                self.change(id, true, |r| {
                    r.status = Status::Done;
                    r.progress = 100;
                    r.preview_key = Some(object.key);
                });
            }
            Err(_) if self.stopping() => {
                tracing::info!(job = %id, "stopped; will resume at next start");
                self.change(id, true, |r| {
                    r.status = Status::Queued;
                    r.progress = 0;
                });
            }
            Err(e) => self.fail(id, e),
        }
    }

    /// Copies a finished job's video into the project's library with its `.json` metadata.
    /// Saving again returns the same key and writes nothing twice.
    pub async fn save(&self, id: &str, project: &str, prompt: &str) -> Result<String, JobError> {
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
            Some(object) => object,
            None => storage.copy(&preview, &key).await?,
        };
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

    /// Marks a job failed with `message`.
    fn fail(&self, id: &str, message: String) {
        tracing::error!(job = %id, error = %message, "failed");
        self.change(id, true, |r| {
            r.status = Status::Error;
            r.error = Some(message);
        });
    }

    fn stopping(&self) -> bool {
        self.inner.stopping.load(Ordering::SeqCst)
    }

    /// Stops taking work; a job being rendered stops and stays queued for the next start, and a
    /// hosted job's poller stops (it starts again, without a new submission, at the next start).
    pub async fn shutdown(&self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.inner.stop.cancel();
        let all = self.inner.worker_count;
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            self.inner.workers.acquire_many(all),
        )
        .await;
    }
}
