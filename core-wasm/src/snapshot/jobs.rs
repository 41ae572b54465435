//! The jobs' views: each job's row (its badge, progress, buttons and take), and the list.

use serde::Serialize;
use serde_json::Value;

use crate::asset;
use crate::job::{Job, JobStatus};
use crate::time::{label, TimeStyle};

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobView {
    pub id: String,
    pub status: JobStatus,
    pub badge: String,
    pub percent: u8,
    pub prompt: String,
    pub created_label: String,
    pub preview_url: Option<String>,
    /// Shown by the player until it is played (the server's `poster_url`, beyond the spec).
    pub poster_url: Option<String>,
    pub show_progress: bool,
    pub show_player: bool,
    pub can_save: bool,
    /// The library file name the job's video was saved as ("✓ Saved to library").
    pub saved_as: Option<String>,
    pub can_check: bool,
    pub can_cancel: bool,
    pub can_retry: bool,
    /// The request in flight for this job, shown as busy buttons.
    pub busy: Option<JobActivity>,
    pub error: Option<String>,
    /// For one of several takes of a shot: which one, and the shot they share.
    pub take: Option<TakeView>,
}

/// One take of a shot made with several.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TakeView {
    /// The first take's job id: the same for every take of the shot.
    pub shot: String,
    /// 1 to `count`.
    pub index: u32,
    pub count: u32,
}

impl TakeView {
    fn of(job: &Job) -> Option<TakeView> {
        let take = job.answered("take")?;
        let number = |field: &str| {
            take.get(field)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        Some(TakeView {
            shot: take.get("shot")?.as_str()?.to_owned(),
            index: number("index")?,
            count: number("count")?,
        })
    }
}

/// A request the user started for one job.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobActivity {
    Checking,
    Saving,
    Cancelling,
    Removing,
}

/// Whether job changes are being pushed by the server.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamState {
    #[default]
    Off,
    Connecting,
    Open,
}

impl JobView {
    pub fn new(
        job: &Job,
        format: impl Fn(i64, TimeStyle) -> String,
        busy: Option<JobActivity>,
    ) -> Self {
        let done = job.status() == crate::job::JobStatus::Done;
        JobView {
            id: job.sora_job_id.clone(),
            status: job.status(),
            badge: job.badge(),
            percent: job.percent(),
            prompt: job.prompt.clone(),
            created_label: label(&job.created_at, TimeStyle::DateTime, format),
            preview_url: job.preview_url.clone(),
            poster_url: job
                .extra
                .get("poster_url")
                .and_then(Value::as_str)
                .map(str::to_owned),
            show_progress: job.status() == crate::job::JobStatus::Running,
            show_player: done && job.preview_url.is_some(),
            can_save: job.can_save(),
            saved_as: job
                .final_r2_key
                .as_deref()
                .map(|k| asset::file_name(k).to_owned()),
            can_check: job.is_active(),
            can_cancel: job.is_active(),
            can_retry: job.status() == crate::job::JobStatus::Error,
            busy,
            error: job.extra.get("error").and_then(error_text),
            take: TakeView::of(job),
        }
    }
}

fn error_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Object(o) => o.get("message").and_then(error_text),
        _ => None,
    }
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobsView {
    /// The project's jobs, newest first.
    pub items: Vec<JobView>,
    pub stream: StreamState,
}
