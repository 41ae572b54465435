//! What the job routes read and answer: a new job or takes, a save, and a job as the API
//! shows it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::super::extract::PublicBase;
use super::super::AppState;
use crate::engine::Fit;
use crate::jobs::cost::Cost;
use crate::jobs::record::{CopyPending, JobRecord, Status, Take};
use crate::providers::inputs::Input;
use crate::providers::Usage;
use crate::sequences::ShotLink;

pub(super) const PROMPT_MAX_CHARS: usize = 4000;
/// The documented form of `seconds` as a string.
pub const SECONDS_PATTERN: &str = "^([1-9]|1[0-9]|20)$";
/// A size: `WxH`, each side even and 128 to 1920.
pub const SIZE_PATTERN: &str = r"^(1(28|[3-9][02468])|[2-9][0-9][02468]|1[0-8][0-9][02468]|1920)x(1(28|[3-9][02468])|[2-9][0-9][02468]|1[0-8][0-9][02468]|1920)$";
pub(in crate::http) const SECONDS_RANGE: std::ops::RangeInclusive<u32> = 1..=20;

/// A new job: the prompt, and optionally its length, size and model.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateJob {
    /// 1 to 4000 characters, not only whitespace (sent trimmed to the provider).
    #[schema(min_length = 1, max_length = 4000, pattern = r"\S")]
    pub(super) prompt: String,
    /// 1 to 20 (default 10); a number or a string such as "8".
    #[serde(default)]
    pub(super) seconds: Option<Seconds>,
    /// WIDTHxHEIGHT, even, 128 to 1920 (default 1280x720; `SIZE_PATTERN` in the document).
    /// Hosted models make the nearest length and size they offer.
    #[serde(default)]
    pub(super) size: Option<String>,
    /// One of GET /models (the server's default model when unset).
    #[serde(default)]
    pub(super) model: Option<String>,
    /// Reference images in roles, and at most one video to extend or remix; the roles the
    /// model takes are in GET /models.
    #[serde(default)]
    #[schema(max_items = 8)]
    pub(super) inputs: Vec<Input>,
    /// How images of another aspect are fitted to the job's size (default `crop`).
    #[serde(default)]
    pub(super) fit: Fit,
    /// 0 to 4294967295: the same prompt, seed, size, length and inputs make the same video on
    /// local-1; sent to hosted models whose contract takes a seed.
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 4_294_967_295_i64)]
    pub(super) seed: Option<f64>,
    /// The shot of one of the project's sequences this job is a take of: its video is saved
    /// to the library when done and joins the shot's takes (chosen if the shot had none).
    #[serde(default)]
    pub(super) shot: Option<ShotLink>,
}

/// Several takes of one shot: a job body and how many.
#[derive(Deserialize, ToSchema)]
pub struct CreateTakes {
    /// A job body, as for POST /projects/{project_id}/jobs.
    #[serde(flatten)]
    #[schema(value_type = CreateJob)]
    pub(super) job: serde_json::Map<String, serde_json::Value>,
    /// 1 to 8 (JSON's 3.0 is 3).
    #[schema(value_type = i64, minimum = 1, maximum = 8)]
    pub(super) count: f64,
}

/// The takes made, one job each.
#[derive(Serialize, ToSchema)]
pub struct Takes {
    pub(super) takes: Vec<JobView>,
}

/// `seconds` as a number or, as the OpenAI videos API sends it, a string.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
pub(super) enum Seconds {
    /// A whole number (JSON's 7.0 is 7).
    Number(f64),
    Text(String),
}

/// Where to save a finished job, and the prompt for its metadata.
#[derive(Deserialize, ToSchema)]
pub struct SaveJob {
    #[schema(pattern = "^[a-z0-9-]{1,64}$")]
    pub(super) project_id: String,
    #[serde(default)]
    pub(super) prompt: String,
}

/// A job as the API answers it: `preview_url` once done, `error` once failed.
#[derive(Serialize, ToSchema)]
pub struct JobView {
    /// `{model}:task_{id}`.
    pub(super) sora_job_id: String,
    pub(super) object: &'static str,
    pub(super) status: Status,
    /// 0 to 100.
    pub(super) progress: u8,
    /// Whether `progress` is estimated from elapsed time (the provider reports none).
    pub(super) progress_estimated: bool,
    pub(super) prompt: String,
    pub(super) model: String,
    pub(super) provider: String,
    pub(super) project_id: String,
    pub(super) seconds: u32,
    pub(super) size: String,
    pub(super) fps: u32,
    pub(super) preview_url: Option<String>,
    /// A JPEG of the preview's first frame, once done.
    pub(super) poster_url: Option<String>,
    /// The library key its video was saved as (`projects/{projectId}/{soraJobId}.mp4`), by
    /// any client, until that video is deleted from the library.
    pub(super) final_r2_key: Option<String>,
    pub(super) error: Option<String>,
    /// What the job is made from besides its prompt.
    pub(super) inputs: Vec<Input>,
    pub(super) fit: Fit,
    /// The video extended or remixed (a library file name or a job id).
    pub(super) parent: Option<String>,
    /// The seed of this take (local-1 always has one; a hosted job, when its model takes one).
    pub(super) seed: Option<u32>,
    /// For one of several takes: the shot (the first take's job id), which take, of how many.
    pub(super) take: Option<Take>,
    /// The shot of a sequence it is a take of (saved to the library when done).
    pub(super) shot: Option<ShotLink>,
    /// For several shots made in one call (`generate` with `multi_shot`): those shots, in
    /// order, each cut from the video into a take of its own when done; empty otherwise.
    pub(super) shots: Vec<ShotLink>,
    /// What the provider reports the finished job used, in its own billing unit.
    pub(super) provider_usage: Option<Usage>,
    /// The reference image made of the last frame the provider handed over.
    pub(super) last_frame_reference: Option<String>,
    /// `{estimate_usd, actual_usd, source, seen}`: the price table's figure, and once finished
    /// what it cost (from the provider's report where it gives one).
    pub(super) cost: Cost,
    /// Set while the provider's finished video waits to be copied (the job stays running),
    /// and kept when the server gave up: why, since when, and when it tries again.
    pub(super) copy_pending: Option<CopyPending>,
    pub(super) created_at: String,
    pub(super) updated_at: String,
}

impl JobView {
    pub(in crate::http) fn new(state: &AppState, base: &PublicBase, r: &JobRecord) -> Self {
        JobView {
            sora_job_id: r.sora_job_id.clone(),
            object: "video",
            status: r.status,
            progress: r.progress,
            progress_estimated: r.progress_estimated,
            prompt: r.prompt.clone(),
            model: r.model.clone(),
            provider: r.provider.clone(),
            project_id: r.project_id.clone(),
            seconds: r.spec.seconds,
            size: r.spec.size(),
            fps: r.spec.fps,
            preview_url: r
                .preview_key
                .as_deref()
                .filter(|_| r.status == Status::Done)
                .map(|k| base.url(state, k)),
            poster_url: r
                .preview_key
                .as_deref()
                .filter(|_| r.status == Status::Done)
                .and_then(crate::poster::poster_key)
                .map(|k| base.url(state, &k)),
            final_r2_key: r.saved_key.clone(),
            error: r.error.clone(),
            inputs: r.inputs.clone(),
            fit: r.fit,
            parent: r.parent.clone(),
            seed: r.seed,
            take: r.take.clone(),
            shot: r.shot.clone(),
            shots: r.shots.iter().map(|part| part.link.clone()).collect(),
            provider_usage: r.provider_usage,
            last_frame_reference: r.last_frame_reference.clone(),
            cost: crate::jobs::cost::of(r),
            copy_pending: r.copy_pending.clone(),
            created_at: r.created_at.clone(),
            updated_at: r.updated_at.clone(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct JobList {
    pub(super) jobs: Vec<JobView>,
}

#[derive(Serialize, ToSchema)]
pub struct Saved {
    /// The storage key: `projects/{projectId}/{soraJobId}.mp4`.
    pub(super) r2_key: String,
    pub(super) public_url: String,
}
