//! GET job answers kept as bytes. A status poll of a job that has not changed since the last
//! poll sends the same bytes again instead of building and serialising the job anew: polls are
//! the API's hot path, and most find nothing changed.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;

use crate::jobs::record::JobRecord;

/// At most this many answers are kept; when full, they are all dropped and kept anew.
const KEPT_MAX: usize = 4096;

#[derive(Default)]
pub struct JobBodies {
    kept: Mutex<HashMap<String, Kept>>,
}

/// An answer and what it was made from: the record as it was, and the base of its URLs.
struct Kept {
    record: JobRecord,
    base: String,
    body: Bytes,
}

impl JobBodies {
    /// The answer made from `record` seen from `base`, if one is kept and the record is
    /// unchanged since (compared whole, so no change can be missed).
    pub fn get(&self, record: &JobRecord, base: &str) -> Option<Bytes> {
        let kept = self.kept.lock().unwrap();
        let kept = kept.get(&record.sora_job_id)?;
        (kept.record == *record && kept.base == base).then(|| kept.body.clone())
    }

    pub fn keep(&self, record: JobRecord, base: &str, body: Bytes) {
        let mut kept = self.kept.lock().unwrap();
        if kept.len() >= KEPT_MAX && !kept.contains_key(&record.sora_job_id) {
            kept.clear();
        }
        kept.insert(
            record.sora_job_id.clone(),
            Kept {
                record,
                base: base.to_owned(),
                body,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::record::Status;

    fn record(id: &str) -> JobRecord {
        serde_json::from_value(serde_json::json!({
            "sora_job_id": id, "project_id": "p", "prompt": "a fox", "model": "local-1",
            "provider": "local", "spec": {"seconds": 1, "width": 320, "height": 180, "fps": 24},
            "status": "queued", "progress": 0, "preview_key": null, "error": null,
            "attempts": 0, "created_at": "2026-11-22T00:00:00Z", "updated_at": "2026-11-22T00:00:00Z"
        }))
        .unwrap()
    }

    #[test]
    fn an_answer_is_given_again_only_for_the_same_record_and_base() {
        let bodies = JobBodies::default();
        let mut job = record("local-1:task_a");
        assert_eq!(bodies.get(&job, "http://h"), None);
        bodies.keep(job.clone(), "http://h", Bytes::from_static(b"queued"));
        assert_eq!(
            bodies.get(&job, "http://h"),
            Some(Bytes::from_static(b"queued"))
        );
        assert_eq!(bodies.get(&job, "http://other"), None);
        job.progress = 1;
        assert_eq!(bodies.get(&job, "http://h"), None);
        job.progress = 0;
        job.status = Status::Running;
        assert_eq!(bodies.get(&job, "http://h"), None);
    }

    #[test]
    fn the_kept_answers_are_bounded() {
        let bodies = JobBodies::default();
        for i in 0..=KEPT_MAX {
            bodies.keep(record(&format!("local-1:task_{i}")), "b", Bytes::new());
        }
        assert_eq!(bodies.kept.lock().unwrap().len(), 1);
        let last = record(&format!("local-1:task_{KEPT_MAX}"));
        assert_eq!(bodies.get(&last, "b"), Some(Bytes::new()));
    }
}
