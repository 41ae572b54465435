//! The Generation Console slice: the open project, the prompt being typed, the model, and
//! starting jobs (from the prompt, or again from a failed job with Retry).

use serde_json::Value;

use super::{Core, Failure};
use crate::api::NewJob;
use crate::error::CoreError;
use crate::job::{upsert, Job, JobStatus};
use crate::platform::{LogLevel, Platform};
use crate::price::{self, Offer};
use crate::snapshot::ConsoleView;
use crate::video_size;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Creating {
    #[default]
    Idle,
    Sending,
}

#[derive(Debug, Default)]
pub struct Console {
    pub project: Option<String>,
    draft: String,
    /// The model chosen for new jobs (the server's default when unset).
    model: Option<String>,
    /// How many takes Generate makes (1 to [`MAX_TAKES`]).
    takes: u32,
    /// How long new jobs are (the model's default when unset).
    seconds: Option<u32>,
    /// The size of new jobs, `WxH` (the model's default when unset).
    size: Option<String>,
    creating: Creating,
    /// When Generate may be tried again (Unix ms), after a create refused for a while (429).
    again_at: Option<i64>,
    /// What each model makes by default, and at what price (from GET /models).
    offers: Vec<Offer>,
    /// The project's cast names, offered as an `@` mention is typed (`mentions.rs`).
    pub(super) cast: Vec<String>,
}

/// Above this estimate (USD) Generate asks first, unless told otherwise.
pub const CONFIRM_ABOVE_USD: f64 = 5.0;

/// The most takes one Generate makes.
pub const MAX_TAKES: u32 = 8;

/// The longest job, in seconds (the server's limit).
pub const MAX_SECONDS: u32 = 20;

impl Console {
    pub fn new(project: &str) -> Self {
        Console {
            project: Some(project.to_owned()),
            takes: 1,
            ..Console::default()
        }
    }
}

impl<P: Platform> Core<P> {
    /// The model new jobs use: the one chosen, else the server's default.
    pub(super) fn chosen_model(&self) -> String {
        let chosen = self.console.read(|c| c.model.clone());
        chosen
            .or_else(|| self.config.borrow().models.first().cloned())
            .unwrap_or_default()
    }

    pub fn console_view(&self) -> ConsoleView {
        let models = self.config.borrow().models.clone();
        let confirm_above = self.confirm_above.get();
        self.console.read(|c| {
            let model = c
                .model
                .clone()
                .or_else(|| models.first().cloned())
                .unwrap_or_default();
            let takes = c.takes.max(1);
            let offer = c.offers.iter().find(|o| o.model == model);
            // A free model (the local engine, by default) shows no price.
            let size = c.size.as_deref().and_then(video_size::parse);
            let estimate = offer
                .and_then(|o| o.estimate(c.seconds.map(f64::from), size, takes))
                .filter(|usd| *usd > 0.0);
            ConsoleView {
                project_id: c.project.clone(),
                draft: c.draft.clone(),
                model,
                models,
                takes,
                seconds: c.seconds,
                default_seconds: offer.map(|o| o.seconds.round() as u32),
                size: c.size.clone(),
                default_size: offer.map(|o| format!("{}x{}", o.width, o.height)),
                can_generate: !c.draft.trim().is_empty() && c.creating == Creating::Idle,
                creating: c.creating == Creating::Sending,
                again_at: c.again_at.map(|at| at as f64),
                estimate: estimate.map(price::label),
                confirm: estimate.is_some_and(|usd| usd > confirm_above),
                cast: c.cast.clone(),
            }
        })
    }

    /// Keeps what each model offers (GET /models): the Generate button shows the price.
    pub(super) fn set_offers(&self, answer: &Value) {
        let offers = price::parse_offers(answer);
        self.write(&self.console, |c| c.offers = offers);
    }

    /// Generate asks before starting jobs whose estimate is above `usd`.
    pub fn set_confirm_above(&self, usd: f64) -> Result<(), CoreError> {
        if !usd.is_finite() {
            return Err(CoreError::Refused(
                "The confirmation threshold must be a finite number of dollars".into(),
            ));
        }
        if usd < 0.0 {
            // Written as JSON writes it: float formatting would cost the wasm 14 KB.
            let given = crate::json::text(&usd.into());
            return Err(CoreError::Refused(format!(
                "The confirmation threshold must be 0 or more dollars, not {given}"
            )));
        }
        self.confirm_above.set(usd);
        self.write(&self.console, |_| ());
        Ok(())
    }

    pub fn set_draft(&self, text: &str) {
        if self.console.read(|c| c.draft != text) {
            self.write(&self.console, |c| c.draft = text.to_owned());
        }
    }

    /// Chooses the model for new jobs: one of those the server offers.
    pub fn set_model(&self, model: &str) -> Result<(), CoreError> {
        if !self.config.borrow().models.iter().any(|m| m == model) {
            return Err(CoreError::UnknownModel(model.to_owned()));
        }
        self.write(&self.console, |c| c.model = Some(model.to_owned()));
        self.shot_model_changed();
        Ok(())
    }

    /// How many takes Generate makes: 1 to 8.
    pub fn set_takes(&self, takes: u32) -> Result<(), CoreError> {
        if !(1..=MAX_TAKES).contains(&takes) {
            return Err(CoreError::Refused(format!(
                "Takes must be 1 to {MAX_TAKES}, not {takes}"
            )));
        }
        self.write(&self.console, |c| c.takes = takes);
        Ok(())
    }

    /// How long new jobs are: 1 to 20 seconds, or `None` for the model's default.
    pub fn set_seconds(&self, seconds: Option<u32>) -> Result<(), CoreError> {
        if seconds.is_some_and(|s| !(1..=MAX_SECONDS).contains(&s)) {
            return Err(CoreError::Refused(format!(
                "Seconds must be 1 to {MAX_SECONDS}, not {}",
                seconds.unwrap_or_default()
            )));
        }
        self.write(&self.console, |c| c.seconds = seconds);
        Ok(())
    }

    /// The size of new jobs, `WxH` (even, 128 to 1920 a side), or `None` for the model's
    /// default.
    pub fn set_size(&self, size: Option<&str>) -> Result<(), CoreError> {
        if let Some(text) = size.filter(|s| video_size::parse(s).is_none()) {
            return Err(CoreError::Refused(format!(
                "A size is WxH, each side even and 128 to 1920, not {text}"
            )));
        }
        self.write(&self.console, |c| c.size = size.map(str::to_owned));
        Ok(())
    }

    /// Starts a generation job from `prompt`, or from the draft when `None`, made from the
    /// shot's attached pictures and video (which are then cleared).
    pub async fn create_job(&self, prompt: Option<&str>) -> Result<Job, CoreError> {
        let from_draft = prompt.is_none();
        let text = match prompt {
            Some(p) => p.to_owned(),
            None => self.console.read(|c| c.draft.clone()),
        };
        let (inputs, fit) = self.shot_inputs();
        let job = NewJob {
            prompt: text.trim().to_owned(),
            model: self.console.read(|c| c.model.clone()),
            seconds: self.console.read(|c| c.seconds).map(Value::from),
            size: self.console.read(|c| c.size.clone()),
            inputs,
            fit,
        };
        let takes = self.console.read(|c| c.takes.max(1));
        let created = self.start(job, takes).await?;
        self.shot_used();
        // The prompt sent is cleared; what was typed while it was on its way (the job may show
        // first, pushed by the server) is kept.
        if from_draft && self.console.read(|c| c.draft == text) {
            self.write(&self.console, |c| c.draft.clear());
        }
        Ok(created)
    }

    /// Retry: a new job with the same prompt, model, seconds and size as a failed one.
    pub async fn retry_job(&self, id: &str) -> Result<Job, CoreError> {
        let job = self.stored_job(id)?;
        if job.status() != JobStatus::Error {
            return Err(CoreError::NotAllowed {
                id: id.to_owned(),
                action: "retried (only failed jobs are)",
            });
        }
        let text = |field| {
            job.answered(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        self.start(
            NewJob {
                prompt: job.prompt.clone(),
                model: text("model"),
                seconds: job.answered("seconds").cloned(),
                size: text("size"),
                inputs: crate::inputs::Input::list(job.answered("inputs")),
                fit: text("fit")
                    .as_deref()
                    .and_then(crate::inputs::Fit::from_name),
            },
            1,
        )
        .await
    }

    /// Creates the job, or `takes` takes of it; answers the first.
    async fn start(&self, new: NewJob, takes: u32) -> Result<Job, CoreError> {
        let visit = self.visit()?;
        if new.prompt.is_empty() {
            return Err(CoreError::EmptyPrompt);
        }
        if self.console.read(|c| c.creating == Creating::Sending) {
            return Err(CoreError::Busy("Creating a job".into()));
        }
        let now_ms = super::now_millis(&self.platform);
        if let Some(at) = self.console.read(|c| c.again_at).filter(|at| now_ms < *at) {
            return Err(CoreError::Refused(format!(
                "Generate can be tried again in {} s",
                (at - now_ms + 999) / 1000
            )));
        }
        self.write(&self.console, |c| c.creating = Creating::Sending);
        self.dismiss_banner();
        let now = self.platform.now_iso();
        let outcome = match self.api().create_jobs(&visit.project, &new, takes).await {
            Ok(answers) => answers
                .iter()
                .map(|answer| Job::from_created(answer, &new.prompt, &now))
                .collect::<Option<Vec<Job>>>()
                .ok_or_else(|| {
                    CoreError::Api(crate::api::ApiError::CreateJob("Invalid job".into()))
                }),
            Err(e) => Err(e.into()),
        };
        let stored = outcome.and_then(|made| {
            let stored = self.change_jobs(&visit, |jobs| {
                Some(
                    made.iter()
                        .cloned()
                        .fold(jobs.to_vec(), |all, job| upsert(&all, job)),
                )
            });
            stored.map(|()| made[0].clone()).map_err(CoreError::from)
        });
        if self.still(&visit) {
            let again_at = match &stored {
                Err(CoreError::Api(crate::api::ApiError::CreateLater {
                    retry_after_s, ..
                })) => Some(now_ms + i64::from(*retry_after_s) * 1000),
                _ => None,
            };
            self.write(&self.console, |c| {
                c.creating = Creating::Idle;
                c.again_at = again_at;
            });
            if let Err(e) = &stored {
                self.fail(Failure::Create(e.clone()));
            }
        }
        if let Err(e) = &stored {
            self.log(LogLevel::Error, &e.to_string());
        }
        stored
    }
}
