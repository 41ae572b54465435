//! The dashboard and picker state machine. Commands change the state, persist what the spec
//! keeps in local storage and call the API; the host is told after every change, with no
//! borrow held, so a subscriber may call straight back in.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::api::{Api, ApiConfig, MetadataError};
use crate::asset::{metadata_url, Asset};
use crate::constants::{jobs_key, RECENT_KEY};
use crate::job::{sort_newest_first, upsert, Job};
use crate::platform::{LogLevel, Platform};
use crate::snapshot::{AssetView, AssetsView, Banner, JobView, MetadataView, Snapshot};
use crate::{project_id, recent, store};

pub const BANNER_ASSETS: &str = "Failed to load assets";
pub const BANNER_DASHBOARD: &str = "Failed to load dashboard data";
pub const BANNER_CREATE: &str = "Failed to create generation job";
pub const BANNER_CHECK: &str = "Failed to check job status";
pub const BANNER_SAVE: &str = "Failed to save video to library";

#[derive(Default)]
struct Metadata {
    key: String,
    loading: bool,
    value: Option<Value>,
    error: Option<MetadataError>,
}

#[derive(Default)]
struct State {
    config: ApiConfig,
    recent: Vec<String>,
    project: Option<String>,
    jobs: Vec<Job>,
    /// The stored text the job list was last read from or written as.
    jobs_raw: Option<String>,
    assets: Vec<Asset>,
    assets_loading: bool,
    assets_loaded: bool,
    banner: Option<Banner>,
    draft: String,
    /// The model chosen for new jobs (the server's default when unset).
    model: Option<String>,
    creating: bool,
    /// Jobs with a Check Status request in flight (shown as busy).
    checking: BTreeSet<String>,
    /// Jobs with an automatic poll in flight (not shown; keeps polls from piling up).
    polling: BTreeSet<String>,
    saving: BTreeSet<String>,
    metadata: Option<Metadata>,
}

impl State {
    /// Whether the dashboard shows this project (an answer for another one changes nothing).
    fn shows(&self, project: &str) -> bool {
        self.project.as_deref() == Some(project)
    }
}

fn banner(message: &str, detail: impl Into<Option<String>>) -> Option<Banner> {
    Some(Banner {
        message: message.to_owned(),
        detail: detail.into(),
    })
}

fn valid_job(job: &Job) -> bool {
    !job.sora_job_id.is_empty()
}

fn valid_project(id: &str) -> bool {
    !id.trim().is_empty()
}

pub struct Core<P: Platform> {
    platform: P,
    state: RefCell<State>,
    version: Cell<u64>,
}

impl<P: Platform> Core<P> {
    /// Creates the core and reads the recent projects list.
    pub fn new(platform: P) -> Self {
        let core = Core {
            platform,
            state: RefCell::default(),
            version: Cell::new(0),
        };
        let loaded = store::load::<String>(&core.platform, RECENT_KEY, "recent projects", |id| {
            valid_project(id)
        });
        if let Some(problem) = &loaded.problem {
            core.platform.log(LogLevel::Warn, problem);
        }
        {
            let mut s = core.state.borrow_mut();
            s.recent = loaded.items;
            s.banner = loaded.problem.and_then(|p| banner(BANNER_DASHBOARD, p));
        }
        core
    }

    pub fn platform(&self) -> &P {
        &self.platform
    }

    pub fn version(&self) -> u64 {
        self.version.get()
    }

    /// Applies a change, then tells the host (the borrow is released first).
    fn update<R>(&self, change: impl FnOnce(&mut State) -> R) -> R {
        let result = change(&mut self.state.borrow_mut());
        self.version.set(self.version.get() + 1);
        self.platform.notify();
        result
    }

    fn read<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.state.borrow())
    }

    fn api(&self) -> Api<'_, P> {
        Api::new(&self.platform, self.read(|s| s.config.clone()))
    }

    fn is_current(&self, project: &str) -> bool {
        self.read(|s| s.shows(project))
    }

    pub fn config(&self) -> ApiConfig {
        self.read(|s| s.config.clone())
    }

    pub fn configure(&self, config: ApiConfig) {
        self.update(|s| s.config = config);
    }

    /// Loads the runtime configuration (`{apiBase, token}`) that the page is served with.
    pub async fn load_config(&self, url: &str) -> Result<ApiConfig, String> {
        let request = crate::platform::HttpRequest {
            method: "GET",
            url: url.to_owned(),
            bearer: None,
            body: None,
        };
        let response = self.platform.fetch(request).await?;
        if !response.ok() {
            return Err(format!("Failed to load {url}: {}", response.status));
        }
        let config: ApiConfig =
            serde_json::from_str(&response.body).map_err(|e| format!("Invalid {url}: {e}"))?;
        self.configure(config.clone());
        Ok(config)
    }

    pub fn snapshot(&self) -> Snapshot {
        // Intl formatting calls into JS under the state's borrow; it cannot call back into
        // the core, so the borrow is safe.
        let format = |millis: i64, style| self.platform.format_time(millis, style);
        self.read(|s| Snapshot {
            version: self.version.get(),
            recent: s.recent.clone(),
            project_id: s.project.clone(),
            banner: s.banner.clone(),
            draft: s.draft.clone(),
            models: s.config.models.clone(),
            model: s
                .model
                .clone()
                .or_else(|| s.config.models.first().cloned())
                .unwrap_or_default(),
            can_generate: !s.draft.trim().is_empty() && !s.creating,
            creating: s.creating,
            jobs: s
                .jobs
                .iter()
                .map(|j| {
                    JobView::new(
                        j,
                        format,
                        s.checking.contains(&j.sora_job_id),
                        s.saving.contains(&j.sora_job_id),
                    )
                })
                .collect(),
            assets_view: match (s.assets_loading && !s.assets_loaded, s.assets.is_empty()) {
                (true, _) => AssetsView::Loading,
                (false, true) => AssetsView::Empty,
                (false, false) => AssetsView::Ready,
            },
            assets: s.assets.iter().map(|a| AssetView::new(a, format)).collect(),
            metadata: s.metadata.as_ref().and_then(|m| {
                let asset = s.assets.iter().find(|a| a.key == m.key)?;
                let shown = match m.error {
                    Some(e) => Some(json!({ "error": e.to_string() })),
                    None => m.value.clone(),
                };
                Some(MetadataView {
                    asset: AssetView::new(asset, format),
                    loading: m.loading,
                    prompt: m
                        .value
                        .as_ref()
                        .and_then(|v| v.get("prompt")?.as_str().map(str::to_owned)),
                    details_json: shown
                        .map(|v| serde_json::to_string_pretty(&v).unwrap_or_default()),
                    error: m.error.map(|e| e.to_string()),
                })
            }),
        })
    }

    pub fn jobs(&self) -> Vec<Job> {
        self.read(|s| s.jobs.clone())
    }

    // ----- picker -----

    fn remember(&self, project: &str) {
        let list = recent::push(&self.read(|s| s.recent.clone()), project);
        let problem = store::save(&self.platform, RECENT_KEY, &list).err();
        self.update(|s| {
            s.recent = list;
            if let Some(e) = problem {
                s.banner = banner(BANNER_DASHBOARD, e.to_string());
            }
        });
    }

    /// Cleans the typed id, puts it at the front of the recent list and returns it.
    pub fn open_project(&self, raw: &str) -> Option<String> {
        let id = project_id::clean(raw)?;
        self.remember(&id);
        Some(id)
    }

    /// Opens a recent project as it is (no cleaning).
    pub fn open_recent(&self, id: &str) -> String {
        self.remember(id);
        id.to_owned()
    }

    // ----- dashboard -----

    /// Shows a project's dashboard: reads its jobs; the caller then loads its assets.
    pub fn enter_project(&self, project: &str) {
        let loaded = self.load_jobs(project);
        self.update(|s| {
            *s = State {
                config: s.config.clone(),
                recent: std::mem::take(&mut s.recent),
                ..State::default()
            };
            s.project = Some(project.to_owned());
            s.assets_loading = true;
            s.banner = loaded.banner;
            s.jobs = loaded.jobs;
            s.jobs_raw = loaded.raw;
        });
    }

    pub fn leave_project(&self) {
        self.update(|s| {
            s.project = None;
            s.jobs.clear();
            s.jobs_raw = None;
            s.assets.clear();
            s.metadata = None;
            s.banner = None;
        });
    }

    fn load_jobs(&self, project: &str) -> LoadedJobs {
        let loaded = store::load(&self.platform, &jobs_key(project), "saved jobs", valid_job);
        if let Some(problem) = &loaded.problem {
            self.platform.log(LogLevel::Warn, problem);
        }
        let mut jobs = loaded.items;
        sort_newest_first(&mut jobs);
        LoadedJobs {
            jobs,
            raw: loaded.raw,
            banner: loaded.problem.and_then(|p| banner(BANNER_DASHBOARD, p)),
        }
    }

    /// Re-reads the job list from storage; tells subscribers only when it changed.
    pub fn reread_jobs(&self) -> bool {
        let Some(project) = self.read(|s| s.project.clone()) else {
            return false;
        };
        let raw = self.platform.get_item(&jobs_key(&project));
        if self.read(|s| s.jobs_raw == raw) {
            return false;
        }
        let loaded = self.load_jobs(&project);
        self.update(|s| {
            s.jobs = loaded.jobs;
            s.jobs_raw = loaded.raw;
            if loaded.banner.is_some() {
                s.banner = loaded.banner;
            }
        });
        true
    }

    /// Reads the project's jobs from storage, applies `change` and writes them back, so that
    /// changes made meanwhile in another tab are kept.
    fn change_jobs(
        &self,
        project: &str,
        change: impl FnOnce(&[Job]) -> Vec<Job>,
    ) -> Option<store::StoreError> {
        let loaded = self.load_jobs(project);
        let jobs = change(&loaded.jobs);
        let saved = store::save(&self.platform, &jobs_key(project), &jobs);
        if !self.is_current(project) {
            return saved.err();
        }
        let problem = saved.as_ref().err().cloned();
        self.update(|s| {
            s.jobs = jobs;
            if let Ok(raw) = saved {
                s.jobs_raw = Some(raw);
            }
            if loaded.banner.is_some() {
                s.banner = loaded.banner;
            }
        });
        problem
    }

    pub fn set_draft(&self, text: &str) {
        if self.read(|s| s.draft != text) {
            self.update(|s| s.draft = text.to_owned());
        }
    }

    /// Chooses the model for new jobs: one of those the server offers.
    pub fn set_model(&self, model: &str) -> Result<(), String> {
        if !self.read(|s| s.config.models.iter().any(|m| m == model)) {
            return Err(format!("Unknown model {model}"));
        }
        self.update(|s| s.model = Some(model.to_owned()));
        Ok(())
    }

    pub fn dismiss_banner(&self) {
        if self.read(|s| s.banner.is_some()) {
            self.update(|s| s.banner = None);
        }
    }

    fn require_project(&self) -> Result<String, String> {
        self.read(|s| s.project.clone())
            .ok_or_else(|| "No project is open".to_owned())
    }

    /// Loads the Asset Library.
    pub async fn load_assets(&self) -> Result<usize, String> {
        let project = self.require_project()?;
        self.update(|s| s.assets_loading = true);
        let result = self.api().get_assets(&project).await;
        if !self.is_current(&project) {
            return result.map(|a| a.len()).map_err(|e| e.to_string());
        }
        match result {
            Ok(assets) => {
                let count = assets.len();
                self.update(|s| {
                    s.assets = assets;
                    s.assets_loading = false;
                    s.assets_loaded = true;
                    if s.banner
                        .as_ref()
                        .is_some_and(|b| b.message == BANNER_ASSETS)
                    {
                        s.banner = None;
                    }
                });
                Ok(count)
            }
            Err(e) => {
                self.platform.log(LogLevel::Error, &e.to_string());
                self.update(|s| {
                    s.assets_loading = false;
                    s.assets_loaded = true;
                    s.banner = banner(BANNER_ASSETS, e.to_string());
                });
                Err(e.to_string())
            }
        }
    }

    /// Starts a generation job from `prompt`, or from the draft when `None`.
    pub async fn create_job(&self, prompt: Option<&str>) -> Result<Job, String> {
        let project = self.require_project()?;
        let from_draft = prompt.is_none();
        let text = prompt
            .map(str::to_owned)
            .unwrap_or_else(|| self.read(|s| s.draft.clone()));
        let text = text.trim().to_owned();
        if text.is_empty() {
            return Err("The prompt is empty".into());
        }
        if self.read(|s| s.creating) {
            return Err("A job is already being created".into());
        }
        self.update(|s| {
            s.creating = true;
            s.banner = None;
        });
        let model = self.read(|s| s.model.clone());
        let result = self
            .api()
            .create_job(&project, &text, model.as_deref())
            .await;
        let outcome = result.map_err(|e| e.to_string()).and_then(|answer| {
            Job::from_created(&answer, &text, &self.platform.now_iso())
                .ok_or_else(|| "Failed to create job: Invalid job".to_owned())
        });
        let job = match outcome {
            Ok(job) => job,
            Err(e) => {
                self.platform.log(LogLevel::Error, &e);
                self.update(|s| {
                    s.creating = false;
                    if s.shows(&project) {
                        s.banner = banner(BANNER_CREATE, e.clone());
                    }
                });
                return Err(e);
            }
        };
        let problem = self.change_jobs(&project, |jobs| upsert(jobs, job.clone()));
        self.update(|s| {
            s.creating = false;
            if from_draft {
                s.draft.clear();
            }
            if let (Some(p), true) = (&problem, s.shows(&project)) {
                s.jobs = upsert(&s.jobs, job.clone());
                s.banner = banner(BANNER_CREATE, p.to_string());
            }
        });
        Ok(job)
    }

    /// The queued and running jobs not already being checked.
    pub fn jobs_due_for_poll(&self) -> Vec<String> {
        self.read(|s| {
            s.jobs
                .iter()
                .filter(|j| {
                    j.is_active()
                        && !s.checking.contains(&j.sora_job_id)
                        && !s.polling.contains(&j.sora_job_id)
                })
                .map(|j| j.sora_job_id.clone())
                .collect()
        })
    }

    /// Asks the server for a job's status and merges the answer. A manual check (Check Status)
    /// reports failure in the banner; an automatic poll only logs it.
    pub async fn refresh_job(&self, id: &str, manual: bool) -> Result<Job, String> {
        let project = self.require_project()?;
        fn in_flight(s: &mut State, manual: bool) -> &mut BTreeSet<String> {
            if manual {
                &mut s.checking
            } else {
                &mut s.polling
            }
        }
        if self.read(|s| if manual { &s.checking } else { &s.polling }.contains(id)) {
            return Err(format!("{id} is already being checked"));
        }
        self.update(|s| {
            in_flight(s, manual).insert(id.to_owned());
            if manual {
                s.banner = None;
            }
        });
        let result = self
            .api()
            .get_job_status(id)
            .await
            .map_err(|e| e.to_string());
        let now = self.platform.now_iso();
        let mut merged = None;
        let outcome = result.and_then(|answer| {
            let problem = self.change_jobs(&project, |jobs| {
                jobs.iter()
                    .map(|j| {
                        match (j.sora_job_id == id)
                            .then(|| j.merged(&answer, &now))
                            .flatten()
                        {
                            Some(m) => {
                                merged = Some(m.clone());
                                m
                            }
                            None => j.clone(),
                        }
                    })
                    .collect()
            });
            match (merged.take(), problem) {
                (Some(job), None) => Ok(job),
                (Some(_), Some(p)) => Err(p.to_string()),
                (None, _) => Err(format!(
                    "Failed to get job status: {id} is not a stored job"
                )),
            }
        });
        if let Err(e) = &outcome {
            let level = if manual {
                LogLevel::Error
            } else {
                LogLevel::Warn
            };
            self.platform.log(level, &format!("Polling {id}: {e}"));
        }
        self.update(|s| {
            in_flight(s, manual).remove(id);
            if let (Err(e), true) = (&outcome, manual && s.shows(&project)) {
                s.banner = banner(BANNER_CHECK, e.clone());
            }
        });
        outcome
    }

    /// Saves a finished job to the project library, stores its key and reloads the assets.
    pub async fn save_job(&self, id: &str) -> Result<String, String> {
        let project = self.require_project()?;
        let job = self
            .read(|s| s.jobs.iter().find(|j| j.sora_job_id == id).cloned())
            .ok_or_else(|| format!("Failed to save job: {id} is not a stored job"))?;
        if !job.can_save() {
            return Err(format!(
                "Failed to save job: {id} is not a finished, unsaved job"
            ));
        }
        if self.read(|s| s.saving.contains(id)) {
            return Err(format!("{id} is already being saved"));
        }
        self.update(|s| {
            s.saving.insert(id.to_owned());
            s.banner = None;
        });
        let result = self
            .api()
            .save_job(id, &project, &job.prompt)
            .await
            .map_err(|e| e.to_string());
        let outcome = result.and_then(|key| {
            let now = self.platform.now_iso();
            let problem = self.change_jobs(&project, |jobs| {
                jobs.iter()
                    .map(|j| {
                        let mut j = j.clone();
                        if j.sora_job_id == id {
                            j.final_r2_key = Some(key.clone());
                            j.updated_at = now.clone();
                        }
                        j
                    })
                    .collect()
            });
            problem.map_or(Ok(key), |p| Err(p.to_string()))
        });
        self.update(|s| {
            s.saving.remove(id);
            if let (Err(e), true) = (&outcome, s.shows(&project)) {
                s.banner = banner(BANNER_SAVE, e.clone());
            }
        });
        if outcome.is_ok() && self.is_current(&project) {
            let _ = self.load_assets().await;
        }
        outcome
    }

    /// Opens the Video Metadata modal for an asset and loads its companion `.json`.
    pub async fn open_metadata(&self, key: &str) {
        let Some(asset) = self.read(|s| s.assets.iter().find(|a| a.key == key).cloned()) else {
            return;
        };
        self.update(|s| {
            s.metadata = Some(Metadata {
                key: key.to_owned(),
                loading: true,
                ..Metadata::default()
            })
        });
        let result = match &asset.public_url {
            Some(url) => self.api().get_metadata(&metadata_url(url)).await,
            None => Err(MetadataError::NotFound),
        };
        if let Err(e) = &result {
            self.platform
                .log(LogLevel::Warn, &format!("Metadata of {key}: {e}"));
        }
        if self.read(|s| s.metadata.as_ref().is_some_and(|m| m.key == key)) {
            self.update(|s| {
                s.metadata = Some(match result {
                    Ok(value) => Metadata {
                        key: key.to_owned(),
                        loading: false,
                        value: Some(value),
                        error: None,
                    },
                    Err(e) => Metadata {
                        key: key.to_owned(),
                        loading: false,
                        value: None,
                        error: Some(e),
                    },
                })
            });
        }
    }

    pub fn close_metadata(&self) {
        if self.read(|s| s.metadata.is_some()) {
            self.update(|s| s.metadata = None);
        }
    }
}

struct LoadedJobs {
    jobs: Vec<Job>,
    raw: Option<String>,
    banner: Option<Banner>,
}
