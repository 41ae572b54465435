//! The takes being made for the open sequence's shots, as the project's event stream tells of
//! jobs: each job that names a shot of the sequence (or several, made in one call), shown on
//! its shots while it is queued or running, and after a failure with the reason. A finished take is saved by the server and
//! joins its shot, so it shows as a take from then on.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::job::JobStatus;

/// A take being made for a shot.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShotJob {
    /// The job's id.
    pub job: String,
    pub status: JobStatus,
    /// 0 to 100.
    pub progress: u8,
    /// The provider reports no progress: it is estimated from the time taken.
    pub estimated: bool,
    /// Why it failed.
    pub error: Option<String>,
}

/// The jobs of one sequence's shots, by job id, with the shots each makes takes of (one, or
/// several made in one call).
#[derive(Debug, Clone, Default)]
pub struct Making {
    jobs: BTreeMap<String, (Vec<String>, ShotJob)>,
}

impl Making {
    /// Takes a `job` or `removed` event of the project's stream (its data, a job as the API
    /// answers it) for sequence `sequence`: whether what the shots show changed.
    pub fn take(&mut self, event: &str, data: &Value, sequence: &str) -> bool {
        let Some(id) = data["sora_job_id"].as_str() else {
            return false;
        };
        let links =
            std::iter::once(&data["shot"]).chain(data["shots"].as_array().into_iter().flatten());
        let shots: Vec<String> = links
            .filter(|link| link["sequence"] == sequence)
            .filter_map(|link| link["shot"].as_str().map(str::to_owned))
            .collect();
        if shots.is_empty() || event != "job" {
            return self.jobs.remove(id).is_some();
        }
        let job = ShotJob {
            job: id.to_owned(),
            status: JobStatus::parse(data["status"].as_str().unwrap_or_default()),
            progress: data["progress"]
                .as_u64()
                .map_or(0, |p| u8::try_from(p.min(100)).unwrap_or(100)),
            estimated: data["progress_estimated"] == true,
            error: data["error"].as_str().map(str::to_owned),
        };
        let entry = (shots, job);
        self.jobs.insert(id.to_owned(), entry.clone()) != Some(entry)
    }

    /// Forgets every job (another sequence is open, or none).
    pub fn clear(&mut self) {
        self.jobs.clear();
    }

    /// What each shot shows: its takes queued, running or failed, oldest job id first.
    pub fn by_shot(&self) -> BTreeMap<String, Vec<ShotJob>> {
        let mut shown: BTreeMap<String, Vec<ShotJob>> = BTreeMap::new();
        for (shots, job) in self.jobs.values() {
            if matches!(
                job.status,
                JobStatus::Queued | JobStatus::Running | JobStatus::Error
            ) {
                for shot in shots {
                    shown.entry(shot.clone()).or_default().push(job.clone());
                }
            }
        }
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn job(id: &str, status: &str, progress: u64, shot: Value) -> Value {
        json!({"sora_job_id": id, "status": status, "progress": progress,
               "progress_estimated": true, "error": null, "shot": shot})
    }

    #[test]
    fn a_shots_jobs_show_until_done_and_failures_with_their_reason() {
        let mut making = Making::default();
        let link = json!({"sequence": "seq_1", "shot": "shot_a"});
        assert!(making.take("job", &job("j1", "queued", 0, link.clone()), "seq_1"));
        assert!(
            !making.take("job", &job("j1", "queued", 0, link.clone()), "seq_1"),
            "the same answer again changes nothing"
        );
        assert!(making.take("job", &job("j1", "running", 40, link.clone()), "seq_1"));
        let shown = making.by_shot();
        assert_eq!(shown["shot_a"].len(), 1);
        assert_eq!(
            (shown["shot_a"][0].status, shown["shot_a"][0].progress),
            (JobStatus::Running, 40)
        );
        assert!(shown["shot_a"][0].estimated);
        let mut failed = job("j2", "error", 10, link.clone());
        failed["error"] = json!("The provider refused the prompt");
        assert!(making.take("job", &failed, "seq_1"));
        assert_eq!(
            making.by_shot()["shot_a"][1].error.as_deref(),
            Some("The provider refused the prompt")
        );
        assert!(making.take("job", &job("j1", "done", 100, link.clone()), "seq_1"));
        assert_eq!(
            making.by_shot()["shot_a"].len(),
            1,
            "a done take shows as a take"
        );
        assert!(making.take("removed", &job("j2", "error", 10, link), "seq_1"));
        assert!(making.by_shot().is_empty());
    }

    #[test]
    fn jobs_of_other_sequences_or_none_are_not_shown() {
        let mut making = Making::default();
        let other = json!({"sequence": "seq_2", "shot": "shot_a"});
        assert!(!making.take("job", &job("j1", "running", 5, other), "seq_1"));
        assert!(!making.take("job", &job("j2", "running", 5, Value::Null), "seq_1"));
        assert!(!making.take("job", &json!({"status": "running"}), "seq_1"));
        assert!(making.by_shot().is_empty());
        let link = json!({"sequence": "seq_1", "shot": "shot_a"});
        making.take("job", &job("j3", "running", 5, link), "seq_1");
        making.clear();
        assert!(making.by_shot().is_empty());
    }

    #[test]
    fn a_call_that_makes_several_shots_shows_on_each_of_them() {
        let mut making = Making::default();
        let mut call = job("j1", "running", 30, Value::Null);
        call["shots"] = json!([
            {"sequence": "seq_1", "shot": "shot_a"},
            {"sequence": "seq_1", "shot": "shot_b"},
        ]);
        assert!(making.take("job", &call, "seq_1"));
        let shown = making.by_shot();
        assert_eq!(shown.keys().collect::<Vec<_>>(), ["shot_a", "shot_b"]);
        assert_eq!(shown["shot_b"][0].job, "j1");
        assert!(
            !Making::default().take("job", &call, "seq_2"),
            "not shown on another sequence"
        );
        call["status"] = json!("done");
        assert!(making.take("job", &call, "seq_1"));
        assert!(
            making.by_shot().is_empty(),
            "done: each shot shows its cut take"
        );
    }

    #[test]
    fn progress_past_100_is_100() {
        let mut making = Making::default();
        let link = json!({"sequence": "s", "shot": "a"});
        making.take("job", &job("j", "running", 250, link), "s");
        assert_eq!(making.by_shot()["a"][0].progress, 100);
    }
}
