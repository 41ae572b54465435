//! The rules of the job list: newest first, one entry per job, what the server lists merged
//! in, and how many finished jobs are kept.

use serde_json::Value;

use super::Job;
use crate::constants::STORED_FINISHED_JOBS;
use crate::time::parse_iso_millis;

/// Orders jobs newest first by `created_at` (unreadable times last, order otherwise kept).
pub fn sort_newest_first(jobs: &mut [Job]) {
    jobs.sort_by_key(|j| std::cmp::Reverse(parse_iso_millis(&j.created_at).unwrap_or(i64::MIN)));
}

/// Replaces the job with the same id, or adds it; the list stays newest first.
pub fn upsert(jobs: &[Job], job: Job) -> Vec<Job> {
    let mut out: Vec<Job> = jobs
        .iter()
        .filter(|j| j.sora_job_id != job.sora_job_id)
        .cloned()
        .collect();
    out.push(job);
    sort_newest_first(&mut out);
    out
}

/// Merges the server's jobs into the stored list: unknown ones are added, known ones merged
/// as a poll would, and stored jobs the server does not list are kept. `None` when nothing
/// changed.
pub fn merge_listed(jobs: &[Job], listed: &[Value], now: &str) -> Option<Vec<Job>> {
    // Copied on the first change only: most answers (pushed events, the 20 s list) change
    // nothing, and the list can hold thousands of jobs.
    let mut out: Option<Vec<Job>> = None;
    for answer in listed {
        let Some(id) = answer.get("sora_job_id").and_then(Value::as_str) else {
            continue;
        };
        let current = out.as_deref().unwrap_or(jobs);
        match current.iter().position(|j| j.sora_job_id == id) {
            Some(at) => {
                if let Some(merged) = current[at].merged_if_changed(answer, now) {
                    out.get_or_insert_with(|| jobs.to_vec())[at] = merged;
                }
            }
            None => {
                if let Some(job) = Job::from_listed(answer) {
                    out.get_or_insert_with(|| jobs.to_vec()).push(job);
                }
            }
        }
    }
    out.map(|mut out| {
        sort_newest_first(&mut out);
        bounded(out)
    })
    .filter(|out| out.as_slice() != jobs)
}

/// The newest jobs, as many as are kept: every active one, and the newest finished ones up to
/// [`STORED_FINISHED_JOBS`]. `jobs` is newest first.
pub fn bounded(mut jobs: Vec<Job>) -> Vec<Job> {
    let mut finished = 0;
    jobs.retain(|job| {
        finished += usize::from(!job.is_active());
        job.is_active() || finished <= STORED_FINISHED_JOBS
    });
    jobs
}

/// Whether `after` differs from `before` in progress alone (and the stamps that come with it):
/// the same jobs, each in the same status, with the same preview and library key.
pub fn progress_only(before: &[Job], after: &[Job]) -> bool {
    before.len() == after.len()
        && before.iter().zip(after).all(|(b, a)| {
            b.sora_job_id == a.sora_job_id
                && b.status == a.status
                && b.preview_url == a.preview_url
                && b.final_r2_key == a.final_r2_key
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::tests::{created, T0, T1};
    use serde_json::json;

    #[test]
    fn lists_newest_first_and_upserts() {
        let mut old = created();
        old.sora_job_id = "old".into();
        let mut new = created();
        new.sora_job_id = "new".into();
        new.created_at = T1.into();
        let list = upsert(&[old.clone()], new.clone());
        assert_eq!(
            list.iter()
                .map(|j| j.sora_job_id.as_str())
                .collect::<Vec<_>>(),
            ["new", "old"]
        );
        let mut changed = old.clone();
        changed.status = "done".into();
        let list = upsert(&list, changed);
        assert_eq!(list.len(), 2);
        assert_eq!(list[1].status, "done");
    }

    #[test]
    fn listed_jobs_are_added_merged_and_never_dropped() {
        let local = created();
        let mut only_here = created();
        only_here.sora_job_id = "only-here".into();
        let listed = [
            json!({"sora_job_id": "sora-2:task_01", "status": "running", "progress": 40}),
            json!({"sora_job_id": "other:task_02", "status": "done", "prompt": "a dog",
                "preview_url": "http://x/p.mp4", "created_at": T1, "updated_at": T1}),
            json!({"no_id": true}),
        ];
        let merged = merge_listed(&[local, only_here], &listed, T1).unwrap();
        let ids: Vec<&str> = merged.iter().map(|j| j.sora_job_id.as_str()).collect();
        assert_eq!(ids, ["other:task_02", "sora-2:task_01", "only-here"]);
        assert_eq!(merged[0].prompt, "a dog");
        assert!(merged[0].can_save());
        assert_eq!(merged[1].percent(), 40);
        assert_eq!(merged[1].updated_at, T1);
        assert_eq!(merge_listed(&merged, &listed, "later"), None, "nothing new");
    }

    /// A poll sent before a Cancel and answered after it, or a slow "running" after a pushed
    /// "done", used to overwrite the newer state.
    #[test]
    fn an_older_answer_never_undoes_a_newer_one() {
        let running = created()
            .merged(
                &json!({"status": "running", "progress": 40, "updated_at": "2026-11-21T10:00:05.100Z"}),
                T0,
            )
            .unwrap();
        let cancelled = running
            .merged_if_changed(
                &json!({"status": "error", "error": "Cancelled", "updated_at": "2026-11-21T10:00:06.000Z"}),
                T1,
            )
            .unwrap();
        let late =
            json!({"status": "running", "progress": 80, "updated_at": "2026-11-21T10:00:05.900Z"});
        assert!(cancelled.is_older(&late));
        assert_eq!(cancelled.merged_if_changed(&late, T1), None);
        // Without stamps (an older server), a finished job is still never reopened.
        let unstamped = json!({"status": "queued"});
        assert_eq!(cancelled.merged_if_changed(&unstamped, T1), None);
        // An older progress answer of a running job is dropped too; a newer one is taken.
        let slower =
            json!({"status": "running", "progress": 30, "updated_at": "2026-11-21T10:00:05.000Z"});
        assert_eq!(running.merged_if_changed(&slower, T1), None);
        let newer =
            json!({"status": "running", "progress": 60, "updated_at": "2026-11-21T10:00:05.500Z"});
        assert_eq!(running.merged_if_changed(&newer, T1).unwrap().percent(), 60);
        // What another browser did later is taken: a saved key, a later stamp.
        let told =
            json!({"final_r2_key": "projects/p/x.mp4", "updated_at": "2026-11-21T10:00:07.000Z"});
        assert!(cancelled.merged_if_changed(&told, T1).is_some());
    }
}
