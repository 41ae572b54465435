//! What the UI renders: plain, JSON-compatible views of the state, with every presentation
//! rule already applied (titles, sizes, dates, badges, which buttons show).

use serde::Serialize;
use serde_json::Value;

use crate::asset::{self, Asset};
use crate::constants::DURATION_BADGE;
use crate::job::Job;
use crate::time::{label, TimeStyle};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Banner {
    /// One of the spec's banner messages, exactly.
    pub message: String,
    /// What went wrong underneath, when known.
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AssetsView {
    Loading,
    Empty,
    Ready,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobView {
    pub id: String,
    pub status: String,
    pub badge: String,
    pub percent: u8,
    pub prompt: String,
    pub created_label: String,
    pub preview_url: Option<String>,
    pub show_progress: bool,
    pub show_player: bool,
    pub can_save: bool,
    pub saved: bool,
    pub can_check: bool,
    pub checking: bool,
    pub saving: bool,
    pub error: Option<String>,
}

impl JobView {
    pub fn new(
        job: &Job,
        format: impl Fn(i64, TimeStyle) -> String,
        checking: bool,
        saving: bool,
    ) -> Self {
        let done = job.status() == crate::job::JobStatus::Done;
        JobView {
            id: job.sora_job_id.clone(),
            status: job.status.clone(),
            badge: job.badge(),
            percent: job.percent(),
            prompt: job.prompt.clone(),
            created_label: label(&job.created_at, TimeStyle::DateTime, format),
            preview_url: job.preview_url.clone(),
            show_progress: job.status() == crate::job::JobStatus::Running,
            show_player: done && job.preview_url.is_some(),
            can_save: job.can_save(),
            saved: job.final_r2_key.is_some(),
            can_check: job.is_active(),
            checking,
            saving,
            error: job.extra.get("error").and_then(error_text),
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

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssetView {
    pub key: String,
    pub file_name: String,
    pub title: String,
    pub size_mb: String,
    pub date_label: String,
    pub created_label: String,
    pub public_url: Option<String>,
    /// The public URL with a media fragment, so a muted thumbnail shows a frame of the video.
    pub thumbnail_url: Option<String>,
    pub duration_badge: &'static str,
}

impl AssetView {
    pub fn new(a: &Asset, format: impl Fn(i64, TimeStyle) -> String) -> Self {
        AssetView {
            key: a.key.clone(),
            file_name: asset::file_name(&a.key).to_owned(),
            title: asset::title(&a.key),
            size_mb: asset::size_mb(a.size_bytes),
            date_label: label(&a.last_modified, TimeStyle::Date, &format),
            created_label: label(&a.last_modified, TimeStyle::DateTime, &format),
            public_url: a.public_url.clone(),
            thumbnail_url: a.public_url.as_ref().map(|u| format!("{u}#t=1")),
            duration_badge: DURATION_BADGE,
        }
    }
}

/// The Video Metadata modal.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataView {
    pub asset: AssetView,
    pub loading: bool,
    pub prompt: Option<String>,
    /// Technical Details: the metadata (or the error object) as formatted JSON.
    pub details_json: Option<String>,
    /// The error object's message when the metadata could not be loaded.
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub version: u64,
    pub recent: Vec<String>,
    pub project_id: Option<String>,
    pub banner: Option<Banner>,
    pub draft: String,
    /// The models offered, the default first.
    pub models: Vec<String>,
    /// The model new jobs use.
    pub model: String,
    pub can_generate: bool,
    pub creating: bool,
    pub jobs: Vec<JobView>,
    pub assets_view: AssetsView,
    pub assets: Vec<AssetView>,
    pub metadata: Option<MetadataView>,
}
