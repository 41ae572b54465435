//! The Job record (spec section 3): create, merge one answer, which jobs poll and which can be
//! saved (spec section 4). The rules of the whole list are in `list.rs`.

mod list;

pub use list::{bounded, merge_listed, progress_only, sort_newest_first, upsert};

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::time::parse_iso_millis;

/// A generation job as kept in local storage. Fields the server adds are kept in `extra`.
/// Read and written by hand (`from_value`, `to_value`): a derived serde with a flattened map
/// costs the wasm about 8 KB.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub sora_job_id: String,
    pub status: String,
    pub progress: f64,
    pub prompt: String,
    pub preview_url: Option<String>,
    pub final_r2_key: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub extra: Map<String, Value>,
}

/// A text field: a string as it is, null as empty, anything else as its JSON text.
fn text(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => String::new(),
        Some(other) => crate::json::text(&other),
    }
}

/// An optional text field: only a non-empty string counts.
fn text_or_none(value: Option<Value>) -> Option<String> {
    match value {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// A number, or a string holding one; anything else is 0.
fn number_or_zero(value: Option<Value>) -> f64 {
    match value {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::String(s)) => crate::json::parse(s.trim())
            .and_then(|n| n.as_f64())
            .unwrap_or(0.0),
        _ => 0.0,
    }
}

impl Job {
    /// A job from a stored or answered object; `None` unless it is an object with a string
    /// `sora_job_id`. A missing status is `queued`; other fields are read leniently (see the
    /// helpers above) and unknown ones kept in `extra`.
    pub fn from_value(value: Value) -> Option<Job> {
        let Value::Object(mut fields) = value else {
            return None;
        };
        let Some(Value::String(sora_job_id)) = fields.remove("sora_job_id") else {
            return None;
        };
        let status = match fields.remove("status") {
            None => "queued".to_owned(),
            present => text(present),
        };
        Some(Job {
            sora_job_id,
            status,
            progress: number_or_zero(fields.remove("progress")),
            prompt: text(fields.remove("prompt")),
            preview_url: text_or_none(fields.remove("preview_url")),
            final_r2_key: text_or_none(fields.remove("final_r2_key")),
            created_at: text(fields.remove("created_at")),
            updated_at: text(fields.remove("updated_at")),
            extra: fields,
        })
    }

    /// The job as stored: the spec's fields first, then what the server added.
    pub fn to_value(&self) -> Value {
        let mut fields = Map::new();
        fields.insert("sora_job_id".into(), self.sora_job_id.clone().into());
        fields.insert("status".into(), self.status.clone().into());
        fields.insert("progress".into(), self.progress.into());
        fields.insert("prompt".into(), self.prompt.clone().into());
        fields.insert("preview_url".into(), self.preview_url.clone().into());
        fields.insert("final_r2_key".into(), self.final_r2_key.clone().into());
        fields.insert("created_at".into(), self.created_at.clone().into());
        fields.insert("updated_at".into(), self.updated_at.clone().into());
        for (key, value) in &self.extra {
            fields.entry(key.clone()).or_insert_with(|| value.clone());
        }
        Value::Object(fields)
    }
}

impl Serialize for Job {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

/// The four statuses of spec section 4; anything else a server says is `Other`. The views
/// carry it as the TS union the app reads (`"queued" | "running" | "done" | "error" | "other"`).
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    Queued,
    Running,
    Done,
    Error,
    Other,
}

impl JobStatus {
    /// The status a server's `status` names.
    pub fn parse(status: &str) -> JobStatus {
        match status {
            "queued" => JobStatus::Queued,
            "running" => JobStatus::Running,
            "done" => JobStatus::Done,
            "error" => JobStatus::Error,
            _ => JobStatus::Other,
        }
    }
}

/// Fields the client owns: a server answer never overwrites them (but a library key the server
/// tells fills an empty `final_r2_key`: see [`Job::merged`]).
const CLIENT_OWNED: [&str; 3] = ["created_at", "updated_at", "final_r2_key"];

/// Where a job keeps the server's own stamp (its `updated_at`) of the last answer it took: the
/// order of the server's answers, whichever arrives last.
const SERVER_STAMP: &str = "server_updated_at";

/// The server's stamp of an answer or a stored job, in milliseconds.
fn stamp(value: Option<&Value>) -> Option<i64> {
    value.and_then(Value::as_str).and_then(parse_iso_millis)
}

impl Job {
    /// Builds the stored job from the creation answer plus the client-added fields.
    /// The answer must carry a string `sora_job_id`.
    pub fn from_created(answer: &Value, prompt: &str, now: &str) -> Option<Job> {
        let mut fields = answer.as_object()?.clone();
        fields
            .get("sora_job_id")?
            .as_str()
            .filter(|id| !id.is_empty())?;
        fields.insert("prompt".into(), prompt.into());
        fields.insert("progress".into(), 0.into());
        fields.insert("preview_url".into(), Value::Null);
        fields.insert("final_r2_key".into(), Value::Null);
        fields.insert("created_at".into(), now.into());
        fields.insert("updated_at".into(), now.into());
        Job::from_value(Value::Object(fields))
    }

    /// Merges a status answer into the job. `None` when the answer is not an object. A job
    /// not saved here takes the library key the server tells (another client saved it); a
    /// key of its own is never replaced or cleared by an answer.
    pub fn merged(&self, answer: &Value, now: &str) -> Option<Job> {
        let Value::Object(mut fields) = self.to_value() else {
            return None;
        };
        for (key, value) in answer.as_object()? {
            if !CLIENT_OWNED.contains(&key.as_str()) && key != "sora_job_id" {
                fields.insert(key.clone(), value.clone());
            }
        }
        if let (None, Some(key @ Value::String(_))) =
            (&self.final_r2_key, answer.get("final_r2_key"))
        {
            fields.insert("final_r2_key".into(), key.clone());
        }
        if let Some(stamp @ Value::String(_)) = answer.get("updated_at") {
            fields.insert(SERVER_STAMP.into(), stamp.clone());
        }
        fields.insert("updated_at".into(), now.into());
        Job::from_value(Value::Object(fields))
    }

    /// Whether a status answer is older than what the job holds: the server stamped it before
    /// the answer the job last took (a poll sent before a Cancel, answered after it), or it
    /// would make a finished job queued or running again. Such an answer is dropped.
    pub fn is_older(&self, answer: &Value) -> bool {
        let reopens = !self.is_active()
            && matches!(
                answer.get("status").and_then(Value::as_str),
                Some("queued" | "running")
            );
        let earlier = matches!(
            (stamp(answer.get("updated_at")), stamp(self.extra.get(SERVER_STAMP))),
            (Some(answered), Some(held)) if answered < held
        );
        reopens || earlier
    }

    /// The job merged with a status answer, or `None` when the answer changes nothing (so an
    /// unchanged job is not written again, and nothing is redrawn) or is older than what the
    /// job holds ([`Job::is_older`]).
    pub fn merged_if_changed(&self, answer: &Value, now: &str) -> Option<Job> {
        if self.is_older(answer) {
            return None;
        }
        let mut merged = self.merged(answer, &self.updated_at)?;
        if merged == *self {
            return None;
        }
        merged.updated_at = now.to_owned();
        Some(merged)
    }

    /// A job this browser has not seen, as the server lists it: the spec's stored fields from
    /// the server's record, with the library key it was saved as when the server tells one.
    pub fn from_listed(answer: &Value) -> Option<Job> {
        answer
            .get("sora_job_id")?
            .as_str()
            .filter(|id| !id.is_empty())?;
        let mut job = Job::from_value(answer.clone())?;
        if let Some(stamp @ Value::String(_)) = answer.get("updated_at") {
            job.extra.insert(SERVER_STAMP.into(), stamp.clone());
        }
        Some(job)
    }

    /// A field the server answered (kept in `extra`), such as `model`, `seconds` or `size`.
    pub fn answered(&self, field: &str) -> Option<&Value> {
        self.extra.get(field).filter(|v| !v.is_null())
    }

    pub fn status(&self) -> JobStatus {
        JobStatus::parse(&self.status)
    }

    /// Queued and running jobs are polled; done and error are final.
    pub fn is_active(&self) -> bool {
        matches!(self.status(), JobStatus::Queued | JobStatus::Running)
    }

    /// A done job with a preview and no final key can be saved.
    pub fn can_save(&self) -> bool {
        self.status() == JobStatus::Done
            && self.preview_url.is_some()
            && self.final_r2_key.is_none()
    }

    /// The percentage shown, clamped to 0..=100 and rounded.
    pub fn percent(&self) -> u8 {
        self.progress.clamp(0.0, 100.0).round() as u8
    }

    /// The status badge: uppercase, with the percentage while running.
    pub fn badge(&self) -> String {
        let status = if self.status.is_empty() {
            "unknown"
        } else {
            &self.status
        };
        match self.status() {
            JobStatus::Running => format!("{} {}%", status.to_ascii_uppercase(), self.percent()),
            _ => status.to_ascii_uppercase(),
        }
    }
}

#[cfg(test)]
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) const T0: &str = "2026-11-21T10:00:00.000Z";
    pub(crate) const T1: &str = "2026-11-21T10:00:20.000Z";

    pub(crate) fn created() -> Job {
        let answer = json!({"sora_job_id": "sora-2:task_01", "status": "queued", "model": "sora-2", "progress": 55});
        Job::from_created(&answer, "a cat", T0).unwrap()
    }

    #[test]
    fn creation_merges_the_answer_with_client_fields() {
        let job = created();
        assert_eq!(job.sora_job_id, "sora-2:task_01");
        assert_eq!(job.status, "queued");
        assert_eq!(job.prompt, "a cat");
        assert_eq!(job.progress, 0.0);
        assert_eq!(job.preview_url, None);
        assert_eq!(job.final_r2_key, None);
        assert_eq!((job.created_at.as_str(), job.updated_at.as_str()), (T0, T0));
        assert_eq!(job.extra.get("model"), Some(&json!("sora-2")));
    }

    #[test]
    fn creation_needs_a_job_id() {
        assert!(Job::from_created(&json!({"status": "queued"}), "p", T0).is_none());
        assert!(Job::from_created(&json!({"sora_job_id": 7}), "p", T0).is_none());
        assert!(Job::from_created(&json!([1]), "p", T0).is_none());
    }

    #[test]
    fn a_status_answer_is_merged_and_client_fields_are_kept() {
        let answer = json!({"status": "done", "progress": 100, "preview_url": "http://x/p.mp4",
            "created_at": "1999-01-01T00:00:00Z", "final_r2_key": null, "fps": 24});
        let job = created().merged(&answer, T1).unwrap();
        assert_eq!(job.status(), JobStatus::Done);
        assert_eq!(job.percent(), 100);
        assert_eq!(job.preview_url.as_deref(), Some("http://x/p.mp4"));
        assert_eq!(job.created_at, T0);
        assert_eq!(job.updated_at, T1);
        assert_eq!(job.final_r2_key, None);
        assert_eq!(job.extra.get("fps"), Some(&json!(24)));
        assert_eq!(job.extra.get("model"), Some(&json!("sora-2")));
        assert!(job.can_save());
    }

    #[test]
    fn a_library_key_the_server_tells_fills_an_empty_one_and_never_replaces_one() {
        let done = json!({"status": "done", "preview_url": "http://x/p.mp4"});
        let job = created().merged(&done, T0).unwrap();
        let told = json!({"final_r2_key": "projects/p/sora-2:task_01.mp4"});
        let saved_elsewhere = job.merged(&told, T1).unwrap();
        assert_eq!(
            saved_elsewhere.final_r2_key.as_deref(),
            Some("projects/p/sora-2:task_01.mp4")
        );
        assert!(!saved_elsewhere.can_save());
        let mut saved_here = job.clone();
        saved_here.final_r2_key = Some("projects/p/mine.mp4".into());
        for answer in [
            told,
            json!({"final_r2_key": null}),
            json!({"final_r2_key": 7}),
        ] {
            let merged = saved_here.merged(&answer, T1).unwrap();
            assert_eq!(merged.final_r2_key.as_deref(), Some("projects/p/mine.mp4"));
        }
        let listed = Job::from_listed(&json!({"sora_job_id": "sora-2:task_02", "status": "done",
            "final_r2_key": "projects/p/sora-2:task_02.mp4"}))
        .unwrap();
        assert_eq!(
            listed.final_r2_key.as_deref(),
            Some("projects/p/sora-2:task_02.mp4")
        );
    }

    #[test]
    fn which_jobs_poll_and_which_save() {
        let mut job = created();
        assert!(job.is_active() && !job.can_save());
        job.status = "running".into();
        assert!(job.is_active());
        job.status = "done".into();
        assert!(!job.is_active() && !job.can_save(), "no preview yet");
        job.preview_url = Some("u".into());
        assert!(job.can_save());
        job.final_r2_key = Some("k".into());
        assert!(!job.can_save());
        job.status = "error".into();
        assert!(!job.is_active());
        job.status = "mystery".into();
        assert!(!job.is_active());
    }

    #[test]
    fn badge_is_uppercase_with_percent_while_running() {
        let mut job = created();
        assert_eq!(job.badge(), "QUEUED");
        job.status = "running".into();
        job.progress = 41.6;
        assert_eq!(job.badge(), "RUNNING 42%");
        job.progress = 180.0;
        assert_eq!(job.badge(), "RUNNING 100%");
        job.status = "done".into();
        assert_eq!(job.badge(), "DONE");
    }

    #[test]
    fn lenient_fields_do_not_reject_a_stored_job() {
        let job = Job::from_value(json!({"sora_job_id": "x", "progress": "12", "preview_url": 3}))
            .unwrap();
        assert_eq!(
            (job.status.as_str(), job.progress, job.preview_url),
            ("queued", 12.0, None)
        );
    }
}
