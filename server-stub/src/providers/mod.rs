//! Hosted video providers. Each maps Studio's job (prompt, seconds, size, model) onto its own
//! API and maps back status, progress and the finished video, through one retrying client.

mod catalog;
mod fal;
pub mod fetch;
pub mod google_auth;
pub mod inputs;
mod kling;
mod luma;
mod omni;
mod openai;
mod pictures;
mod replicate;
pub mod replicate_inputs;
pub mod retired;
mod retry;
mod runway;
mod seedance;
mod veo;
mod vertex;
mod xai;

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::callbacks::Refusal;
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;
pub use catalog::{Catalog, CatalogError, Maker, Model};
pub use fal::Fal;
pub use kling::Kling;
pub use luma::Luma;
pub use omni::Omni;
pub use openai::OpenAi;
pub use pictures::{Picture, Pictures};
pub use replicate::Replicate;
pub use retry::{Client, ClientSettings};
pub use runway::Runway;
pub use seedance::Seedance;
pub use veo::Veo;
pub use vertex::Vertex;
pub use xai::Xai;

#[derive(Debug, Error)]
pub enum ProviderError {
    /// The provider refused the request for good (4xx other than the retried ones), or the job
    /// failed; the message is the provider's own.
    #[error("{0}")]
    Rejected(String),
    /// The provider could not be reached or kept answering 408/409/429/5xx after every retry.
    #[error("{0}")]
    Unavailable(String),
    /// The provider answered something that does not follow its contract.
    #[error("unexpected answer from the provider: {0}")]
    Malformed(String),
}

/// What a finished job used, in the provider's own billing unit: Kling's
/// `final_unit_deduction` (credits), ModelArk's `usage.completion_tokens` (tokens), Replicate's
/// `metrics.predict_time` (seconds), xAI's `usage.cost_in_usd_ticks` (turned into dollars).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Usage {
    pub amount: f64,
    pub unit: UsageUnit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum UsageUnit {
    Credits,
    Tokens,
    Seconds,
    Usd,
}

/// What a provider reports of a finished job besides its video.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Finished {
    pub usage: Option<Usage>,
    /// The video's last frame, where the provider hands it over (ModelArk's `last_frame_url`):
    /// offered to the project as a reference, saving a decode.
    pub last_frame: Option<bytes::Bytes>,
}

/// Where a provider job stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Remote {
    /// Queued or running; the percentage when the provider reports one.
    Pending(Option<u8>),
    Done(Finished),
    /// Failed, moderated or cancelled, with the provider's message.
    Failed(String),
}

/// What a provider says of a job whose submission was cut off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// It has the job: its id.
    Job(String),
    /// It has no such job.
    Nothing,
    /// Its API offers no way to ask.
    CannotAsk,
}

/// One status reading, and when the provider advises asking again.
#[derive(Debug, Clone)]
pub struct Poll {
    pub remote: Remote,
    pub next: Duration,
}

/// What a job asks a provider for.
#[derive(Debug, Clone, Copy)]
pub struct Submission<'a> {
    pub model: &'a str,
    /// Studio's id for the job, for a provider that keeps an id of the caller's to find the
    /// job again by.
    pub job_id: &'a str,
    pub prompt: &'a str,
    pub spec: &'a VideoSpec,
    pub pictures: &'a Pictures,
    /// The address to call when the job is done, for a provider that `calls_back`.
    pub callback: Option<&'a str>,
    /// The shots to make in one call, in order, for a model that `makes_shots` (empty: one
    /// video of `prompt`).
    pub shots: &'a [ShotPrompt],
}

/// One shot of a multi-shot call: its prompt and length.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShotPrompt {
    pub prompt: String,
    pub seconds: u32,
}

/// How many shots a model makes in one call, and how long they may be together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShotLimits {
    pub most_shots: usize,
    pub seconds: (u32, u32),
    /// The longest prompt of one shot, in characters.
    pub prompt_chars: usize,
}

#[async_trait]
pub trait Provider: Send + Sync {
    /// The name kept in job records and metadata: `openai`, `runway`, `fal`, `gemini`, `luma`,
    /// `kling`, `ark` or `replicate`.
    fn name(&self) -> &'static str;
    /// The job as this provider can make it with `model` (its allowed lengths and sizes).
    fn fit(&self, model: &str, spec: &VideoSpec) -> VideoSpec;
    /// For providers that report no percentage, how long a job typically takes.
    fn typical_duration(&self) -> Option<Duration> {
        None
    }
    /// The inputs `model`'s jobs may have besides the prompt: only what its contract takes, so
    /// a role is refused before anything is sent rather than dropped from a paid job.
    fn inputs(&self, _model: &str) -> ModelInputs {
        ModelInputs::default()
    }
    /// Whether `model`'s contract takes a seed (sent as `Pictures::seed`).
    fn seeds(&self, _model: &str) -> bool {
        false
    }
    /// Whether `model` makes several shots in one call (one video, the shots one after
    /// another), and within what.
    fn makes_shots(&self, _model: &str) -> Option<ShotLimits> {
        None
    }
    /// Whether a job's create takes an address the provider calls when the job is done.
    fn calls_back(&self) -> bool {
        false
    }
    /// Checks a call to a job's callback address about its job `remote_id`, as the provider
    /// makes them: the delivery's id (one id per delivery; the same id again is a replay).
    /// The address itself was checked first.
    async fn callback(
        &self,
        _remote_id: &str,
        _headers: &axum::http::HeaderMap,
        _body: &[u8],
    ) -> Result<String, Refusal> {
        Err(Refusal::Unsigned)
    }
    /// Starts a job from the prompt and, where `inputs` allows them, pictures; answers the
    /// provider's id for it.
    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError>;
    async fn poll(&self, model: &str, id: &str) -> Result<Poll, ProviderError>;
    /// Cancels a job at the provider: `false` where its API offers no cancel.
    async fn cancel(&self, _model: &str, _id: &str) -> Result<bool, ProviderError> {
        Ok(false)
    }
    /// After a crash between sending a job and reading the answer: the provider's job of
    /// `model` for Studio's `job_id`, or with this `prompt` created since `since` (unix
    /// seconds), if it can be asked.
    async fn find(
        &self,
        _model: &str,
        _job_id: &str,
        _prompt: &str,
        _since: i64,
    ) -> Result<Found, ProviderError> {
        Ok(Found::CannotAsk)
    }
    /// The finished video's bytes, as a response whose body is streamed.
    async fn download(&self, model: &str, id: &str) -> Result<reqwest::Response, ProviderError>;
}

/// The closest of `allowed` to `seconds` (the larger one on a tie).
fn nearest(allowed: &[u32], seconds: u32) -> u32 {
    allowed
        .iter()
        .copied()
        .min_by_key(|&a| (a.abs_diff(seconds), std::cmp::Reverse(a)))
        .unwrap_or(seconds)
}

/// Whether the job is portrait (taller than wide).
fn portrait(spec: &VideoSpec) -> bool {
    spec.height > spec.width
}

/// 1280x720, or 720x1280 for a portrait job, `seconds` long: what the hosted models make.
fn hd(spec: &VideoSpec, seconds: u32) -> VideoSpec {
    let (width, height) = if portrait(spec) {
        (720, 1280)
    } else {
        (1280, 720)
    };
    VideoSpec {
        width,
        height,
        fps: spec.fps,
        seconds,
    }
}

/// 1920x1080, or 1080x1920 for a portrait job, `seconds` long.
fn full(spec: &VideoSpec, seconds: u32) -> VideoSpec {
    let (width, height) = if portrait(spec) {
        (1080, 1920)
    } else {
        (1920, 1080)
    };
    VideoSpec {
        width,
        height,
        fps: spec.fps,
        seconds,
    }
}

/// 1080p (1920 pixels on the long side) for a job that long, else 720p, in the job's
/// orientation, `seconds` long; and the resolution's name.
fn hd_or_full(spec: &VideoSpec, seconds: u32) -> (VideoSpec, &'static str) {
    if spec.width.max(spec.height) < 1920 {
        return (hd(spec, seconds), "720p");
    }
    (full(spec, seconds), "1080p")
}

/// `(progress as a fraction 0..1)` to a percentage that stays below 100 until the job is done.
fn percent(fraction: f64) -> u8 {
    (fraction.clamp(0.0, 1.0) * 100.0).floor().min(99.0) as u8
}

/// Model names, as they appear in job ids: 1 to 32 characters of a-z, 0-9, '-' and '.'.
pub fn is_valid_model(model: &str) -> bool {
    (1..=32).contains(&model.len())
        && model
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_snap_to_the_nearest_allowed() {
        assert_eq!(nearest(&[4, 8, 12], 10), 12);
        assert_eq!(nearest(&[4, 8, 12], 1), 4);
        assert_eq!(nearest(&[4, 8, 12], 7), 8);
        assert_eq!(nearest(&[5, 10], 20), 10);
        assert_eq!(percent(0.426), 42);
        assert_eq!(percent(1.0), 99);
        assert_eq!(percent(-3.0), 0);
    }
}
