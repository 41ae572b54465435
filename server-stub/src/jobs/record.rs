//! A job as the server keeps it, and the id format `{model}:task_{ulid}`.

use serde::{Deserialize, Serialize};

use crate::engine::{Fit, VideoSpec};
use crate::providers::inputs::Input;
use crate::providers::is_valid_model;
use crate::providers::Usage;

/// The error a cancelled job ends with.
pub const CANCELLED: &str = "Cancelled";

pub use crate::job_status::Status;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    pub sora_job_id: String,
    pub project_id: String,
    pub prompt: String,
    pub model: String,
    pub provider: String,
    pub spec: VideoSpec,
    pub status: Status,
    pub progress: u8,
    pub preview_key: Option<String>,
    /// The provider's own id for the job, once a hosted provider has accepted it.
    #[serde(default)]
    pub provider_job_id: Option<String>,
    /// When the submission to a hosted provider was begun (recorded before the request is
    /// sent): with no `provider_job_id`, a crash came in between and the job is not sent again.
    #[serde(default)]
    pub submit_started_at: Option<String>,
    /// Whether `progress` is estimated from elapsed time (the provider reports none).
    #[serde(default)]
    pub progress_estimated: bool,
    pub error: Option<String>,
    /// Reference images in roles, and a video extended or remixed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<Input>,
    /// How images of another aspect are fitted to the job's size.
    #[serde(default)]
    pub fit: Fit,
    /// For extend and remix: the source video as the client named it (file name or job id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The parent's storage key, and its prompt when known (a remix keeps its layout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_prompt: Option<String>,
    /// The parent's provider and that provider's id for it, when a hosted provider made it (a
    /// remix there names it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_remote: Option<(String, String)>,
    /// The seed of this take: always set for the embedded engine (0 when none was asked);
    /// for a hosted provider, the one sent, or none when it chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u32>,
    /// For one of several takes of a shot: which, of how many, and the shot (the first take's
    /// job id), so every client shows them together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub take: Option<Take>,
    /// What the provider reports the finished job used, in its billing unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_usage: Option<Usage>,
    /// The reference image made of the last frame the provider handed over with the video.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_frame_reference: Option<String>,
    /// The price table's figure for the job when it was made (none when its model has no
    /// known price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<super::estimate::Estimate>,
    /// The shot of a sequence it is a take of: its video joins the shot's takes when saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shot: Option<crate::sequences::ShotLink>,
    /// For a multi-shot call: the shots it makes, in order, each cut from the video into a
    /// take of its own when done.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shots: Vec<ShotPart>,
    /// For an export (`model: "sequence"`): the cut it makes, saved to the library when done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export: Option<crate::sequences::export::Export>,
    /// The library key its video was saved as, until that video is deleted from the library.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved_key: Option<String>,
    /// A video the provider made (and billed) that could not be copied yet. The job stays
    /// running while the server tries again; kept on a job that gave up, since it was billed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_pending: Option<CopyPending>,
    /// How many times a worker has started this job (a restart resumes it).
    pub attempts: u32,
    pub created_at: String,
    pub updated_at: String,
}

impl JobRecord {
    /// A job made now and queued, on the embedded engine, with nothing but its prompt, spec
    /// and fit: what other jobs change.
    pub fn queued(
        sora_job_id: String,
        project_id: String,
        prompt: String,
        model: String,
        spec: VideoSpec,
        fit: Fit,
    ) -> JobRecord {
        let at = super::now();
        JobRecord {
            sora_job_id,
            project_id,
            prompt,
            model,
            provider: "local".into(),
            spec,
            status: Status::Queued,
            progress: 0,
            preview_key: None,
            provider_job_id: None,
            submit_started_at: None,
            progress_estimated: false,
            error: None,
            inputs: Vec::new(),
            fit,
            parent: None,
            parent_key: None,
            parent_prompt: None,
            parent_remote: None,
            seed: None,
            take: None,
            provider_usage: None,
            last_frame_reference: None,
            estimate: None,
            shot: None,
            shots: Vec::new(),
            export: None,
            saved_key: None,
            copy_pending: None,
            attempts: 0,
            created_at: at.clone(),
            updated_at: at,
        }
    }
}

/// One shot of a multi-shot job: the shot its take joins, and what was asked for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShotPart {
    pub link: crate::sequences::ShotLink,
    #[serde(flatten)]
    pub asked: crate::providers::ShotPrompt,
}

/// Why a finished video is not in the server's storage yet, and when it is tried again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CopyPending {
    /// What the last copy ran into ("the video could not be stored").
    pub reason: String,
    /// When the first copy failed (RFC 3339).
    pub since: String,
    /// Copies tried so far, each of up to three downloads.
    pub attempts: u32,
    /// When the server tries again by itself (RFC 3339); `POST .../copy` tries at once.
    pub next_at: Option<String>,
}

/// One take of a shot made with several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Take {
    /// The first take's job id.
    pub shot: String,
    /// 1 to `count`.
    pub index: u32,
    pub count: u32,
}

/// A new, unique, time-sortable job id for `model`.
pub fn new_id(model: &str) -> String {
    format!(
        "{model}:task_{}",
        ulid::Ulid::new().to_string().to_lowercase()
    )
}

/// The part of a job id that orders jobs by when they were made: the ULID after `:task_`
/// (its first ten characters are the millisecond it was made in). Ids begin with the model's
/// name, so ordering by the whole id groups jobs by model instead.
pub fn made_order(id: &str) -> &str {
    id.split_once(":task_").map_or(id, |(_, ulid)| ulid)
}

/// Whether `id` has the job id form: a model name, `:task_`, then lowercase letters and digits.
pub fn is_valid_id(id: &str) -> bool {
    let Some((model, rest)) = id.split_once(":task_") else {
        return false;
    };
    let rest_ok = (1..=64).contains(&rest.len())
        && rest
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    is_valid_model(model) && rest_ok
}

/// A 1280x720, 5 s job of `local-1` in `project`, made at `created`, estimated at `usd`: for
/// the tests of what jobs cost.
#[cfg(test)]
pub fn fixture(project: &str, status: Status, created: &str, usd: f64) -> JobRecord {
    let mut record: JobRecord = serde_json::from_value(serde_json::json!({
        "sora_job_id": "local-1:task_1", "project_id": project, "prompt": "x",
        "model": "local-1", "provider": "local",
        "spec": {"width": 1280, "height": 720, "fps": 24, "seconds": 5},
        "status": "queued", "progress": 0, "preview_key": null, "provider_job_id": null,
        "progress_estimated": false, "error": null, "attempts": 0,
        "created_at": created, "updated_at": created
    }))
    .expect("a valid record");
    record.status = status;
    record.estimate = Some(super::estimate::Estimate {
        usd,
        seen: "2026-11-01".into(),
        usd_per_1000_tokens: None,
    });
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_sortable_and_valid() {
        let a = new_id("local-1");
        let b = new_id("local-1");
        assert!(a.starts_with("local-1:task_") && a != b);
        assert!(is_valid_id(&a), "{a}");
        assert!(is_valid_id("sora-2:task_01k7yhn8abc"));
        for bad in [
            "",
            "task_01",
            "local-1:task_",
            "Local:task_01",
            "a:task_01/..",
            "a:task_ABC",
            "../x:task_1",
        ] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }
}
