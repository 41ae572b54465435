//! The jobs slice: the project's jobs as kept under `jobs:{projectId}`, the 1 s re-read, the
//! 20 s poll and re-attach, and Check Status; Save to Library, Cancel and Remove are in
//! `commands.rs`. The pushed changes are followed in `changes.rs`.

mod commands;

use std::cell::{Cell, RefCell};

use serde_json::Value;

use super::{now_millis, Core, Failure, Visit};
use crate::constants::{jobs_key, PROGRESS_WRITE_EVERY_MS};
use crate::error::CoreError;
use crate::job::{bounded, merge_listed, progress_only, sort_newest_first, Job};
use crate::platform::{LogLevel, Platform};
use crate::snapshot::{JobActivity, JobView, JobsView, StreamState};
use crate::store::{self, StoreError};

#[derive(Debug, Default)]
pub struct Jobs {
    list: Vec<Job>,
    /// The stored text the list was last read from or written as.
    raw: Option<String>,
    /// Requests the user started, by job (a few at most: a list costs the wasm no map code).
    busy: Vec<(String, JobActivity)>,
    /// Jobs with an automatic poll in flight (not shown; keeps polls from piling up).
    polling: Vec<String>,
    pub(super) stream: StreamState,
    /// Whether the stream was open before in this visit: once it opens again, what it does not
    /// replay (saves, deletions, picks, review notes) is read again.
    pub(super) opened_before: bool,
    /// The id of the last pushed change, to resume after. Kept outside the view's version:
    /// it changes with every event, the view need not.
    pub(super) last_event: RefCell<Option<String>>,
    /// The wait before the stream is opened again, as the server last asked (`retry`).
    pub(super) retry_ms: Cell<Option<u32>>,
    /// Waits begun since the stream last opened: each doubles the one before.
    pub(super) waits: Cell<u32>,
    /// The platform's stamp for `raw`, once a re-read has seen storage hold it: then storage
    /// can say "unchanged" without handing the text over. Cleared whenever `raw` changes.
    stamp: Cell<Option<u64>>,
    /// Answers that changed progress alone, shown but not written yet, in the order they came:
    /// folded into the next write, which comes at most `PROGRESS_WRITE_EVERY_MS` after the last.
    unwritten: Vec<Value>,
    /// When the list was last written, in Unix milliseconds.
    written_at: i64,
}

impl Jobs {
    /// Whether job `id` is in the list.
    pub(super) fn holds(&self, id: &str) -> bool {
        self.list.iter().any(|job| job.sora_job_id == id)
    }

    fn busy_with(&self, id: &str) -> Option<JobActivity> {
        self.busy.iter().find(|(i, _)| i == id).map(|(_, a)| *a)
    }
}

/// A stored job, when it is one with an id.
fn stored_job(value: Value) -> Option<Job> {
    Job::from_value(value).filter(|job| !job.sora_job_id.is_empty())
}

impl<P: Platform> Core<P> {
    pub fn jobs_view(&self) -> JobsView {
        let format = self.format();
        self.jobs.read(|j| JobsView {
            items: j
                .list
                .iter()
                .map(|job| JobView::new(job, &format, j.busy_with(&job.sora_job_id)))
                .collect(),
            stream: j.stream,
        })
    }

    /// Whether pushed changes are being followed.
    pub fn stream_state(&self) -> StreamState {
        self.jobs.read(|j| j.stream)
    }

    /// The open project's stored jobs, newest first.
    pub fn jobs(&self) -> Vec<Job> {
        self.jobs.read(|j| j.list.clone())
    }

    pub(super) fn stored_job(&self, id: &str) -> Result<Job, CoreError> {
        self.jobs
            .read(|j| j.list.iter().find(|job| job.sora_job_id == id).cloned())
            .ok_or_else(|| CoreError::UnknownJob(id.to_owned()))
    }

    /// Reads the project's jobs from storage (repairing damaged text); the problem, if any,
    /// is logged and returned for the banner.
    fn load_jobs(&self, project: &str) -> (Vec<Job>, Option<String>, Option<String>) {
        let loaded = store::load(&self.platform, &jobs_key(project), "saved jobs", stored_job);
        if let Some(problem) = &loaded.problem {
            self.log(LogLevel::Warn, problem);
        }
        let mut jobs = loaded.items;
        sort_newest_first(&mut jobs);
        (jobs, loaded.raw, loaded.problem)
    }

    /// Starts the slice over for a project (or for none); returns a storage problem.
    pub(super) fn reset_jobs(&self, project: Option<&str>) -> Option<String> {
        let (list, raw, problem) = match project {
            Some(p) => self.load_jobs(p),
            None => (Vec::new(), None, None),
        };
        self.write(&self.jobs, |j| {
            *j = Jobs {
                list,
                raw,
                ..Jobs::default()
            }
        });
        problem
    }

    /// Re-reads the job list from storage; tells subscribers only when it changed.
    pub fn reread_jobs(&self) -> bool {
        let Ok(visit) = self.visit() else {
            return false;
        };
        let key = jobs_key(&visit.project);
        let known = self.jobs.read(|j| j.stamp.get());
        let Some((text, stamp)) = self.platform.get_item_if_changed(&key, known) else {
            return false;
        };
        if self.jobs.read(|j| j.raw == text) {
            self.jobs.read(|j| j.stamp.set(Some(stamp)));
            return false;
        }
        let (list, raw, problem) = self.load_jobs(&visit.project);
        let list = self.with_unwritten(list);
        self.write(&self.jobs, |j| {
            j.list = list;
            j.raw = raw;
            j.stamp.set(None);
        });
        if let Some(problem) = problem {
            self.fail(Failure::Storage(problem));
        }
        true
    }

    /// `jobs` with the progress shown but not written yet.
    fn with_unwritten(&self, jobs: Vec<Job>) -> Vec<Job> {
        let unwritten = self.jobs.read(|j| j.unwritten.clone());
        merge_listed(&jobs, &unwritten, &self.platform.now_iso()).unwrap_or(jobs)
    }

    /// Reads the project's jobs from storage, applies `change` (`None`: nothing to change) and
    /// writes them back, so that changes made meanwhile in another tab are kept, with the
    /// progress not written yet and within the kept number. The list shows the result even
    /// when storage refuses it, and the refusal is returned.
    pub(super) fn change_jobs(
        &self,
        visit: &Visit,
        change: impl FnOnce(&[Job]) -> Option<Vec<Job>>,
    ) -> Result<(), StoreError> {
        let (jobs, _, problem) = self.load_jobs(&visit.project);
        let Some(jobs) = change(&self.with_unwritten(jobs)) else {
            return Ok(());
        };
        let jobs = bounded(jobs);
        let saved = store::save(&self.platform, &jobs_key(&visit.project), &jobs);
        if self.still(visit) {
            let raw = saved.as_ref().ok().cloned();
            let now = now_millis(&self.platform);
            self.write(&self.jobs, |j| {
                j.list = jobs;
                if raw.is_some() {
                    j.raw = raw;
                    j.stamp.set(None);
                    j.unwritten.clear();
                    j.written_at = now;
                }
            });
            if let Some(problem) = problem {
                self.fail(Failure::Storage(problem));
            }
        }
        saved.map(|_| ())
    }

    /// Merges the status answer for job `id` (a poll, Check Status, Cancel) into the stored job.
    fn merge_answer(&self, visit: &Visit, id: &str, mut answer: Value) -> Result<Job, CoreError> {
        self.stored_job(id)?;
        if let Value::Object(fields) = &mut answer {
            fields.insert("sora_job_id".into(), id.into());
        }
        self.merge_answers(visit, &[answer])?;
        self.stored_job(id)
    }

    /// Merges status answers (the server's list, a pushed change) into the stored jobs.
    pub(super) fn merge_answers(&self, visit: &Visit, answers: &[Value]) -> Result<(), StoreError> {
        let now = self.platform.now_iso();
        let merged = self.jobs.read(|j| merge_listed(&j.list, answers, &now));
        match merged {
            // Answers that change nothing shown, while storage still holds what is shown: no
            // read, parse or write of the whole list (the 20 s list merge of a quiet project).
            None => {
                let key = jobs_key(&visit.project);
                let known = self.jobs.read(|j| j.stamp.get());
                if self.platform.get_item_if_changed(&key, known).is_none() {
                    return Ok(());
                }
            }
            // Progress alone, written a moment ago: shown now, written with the next write.
            Some(list)
                if self.jobs.read(|j| {
                    progress_only(&j.list, &list)
                        && now_millis(&self.platform) - j.written_at < PROGRESS_WRITE_EVERY_MS
                }) =>
            {
                self.write(&self.jobs, |j| {
                    j.list = list;
                    j.unwritten.extend_from_slice(answers);
                });
                return Ok(());
            }
            Some(_) => {}
        }
        self.change_jobs(visit, |jobs| merge_listed(jobs, answers, &now))
    }

    /// Marks a user's request on a job, unless one is already in flight.
    fn begin(&self, id: &str, activity: JobActivity) -> Result<(), CoreError> {
        if self.jobs.read(|j| j.busy_with(id).is_some()) {
            return Err(CoreError::Busy(id.to_owned()));
        }
        self.write(&self.jobs, |j| j.busy.push((id.to_owned(), activity)));
        Ok(())
    }

    /// Ends a user's request, showing its failure in the banner.
    fn end<T>(
        &self,
        visit: &Visit,
        id: &str,
        outcome: &Result<T, CoreError>,
        failure: fn(CoreError) -> Failure,
    ) {
        if !self.still(visit) {
            return;
        }
        self.write(&self.jobs, |j| j.busy.retain(|(i, _)| i != id));
        if let Err(e) = outcome {
            self.log(LogLevel::Error, &format!("{id}: {e}"));
            self.fail(failure(e.clone()));
        }
    }

    /// The queued and running jobs not already being checked.
    pub fn jobs_due_for_poll(&self) -> Vec<String> {
        self.jobs.read(|j| {
            j.list
                .iter()
                .filter(|job| {
                    job.is_active()
                        && j.busy_with(&job.sora_job_id).is_none()
                        && !j.polling.contains(&job.sora_job_id)
                })
                .map(|job| job.sora_job_id.clone())
                .collect()
        })
    }

    /// Check Status: asks the server about one job now, merges the answer and shows a
    /// failure in the banner.
    pub async fn check_job(&self, id: &str) -> Result<Job, CoreError> {
        let visit = self.visit()?;
        self.stored_job(id)?;
        self.begin(id, JobActivity::Checking)?;
        self.dismiss_banner();
        let outcome = self.fetch_status(&visit, id).await;
        self.end(&visit, id, &outcome, Failure::Check);
        outcome
    }

    /// The 20 s poll of one job: like Check Status, but a failure is only logged.
    pub async fn poll_job(&self, id: &str) -> Result<Job, CoreError> {
        let visit = self.visit()?;
        if self.jobs.read(|j| j.polling.iter().any(|p| p == id)) {
            return Err(CoreError::Busy(format!("Polling {id}")));
        }
        self.write(&self.jobs, |j| j.polling.push(id.to_owned()));
        let outcome = self.fetch_status(&visit, id).await;
        if self.still(&visit) {
            self.write(&self.jobs, |j| j.polling.retain(|p| p != id));
        }
        if let Err(e) = &outcome {
            self.log(LogLevel::Warn, &format!("Polling {id}: {e}"));
        }
        outcome
    }

    async fn fetch_status(&self, visit: &Visit, id: &str) -> Result<Job, CoreError> {
        let answer = self.api().get_job_status(id).await?;
        self.merge_answer(visit, id, answer)
    }

    /// Re-attach: merges the server's jobs for the project into the stored list, so jobs
    /// started in another browser (or before site data was cleared) appear. Failures are
    /// only logged: the next round tries again.
    pub async fn reattach(&self) -> Result<(), CoreError> {
        let visit = self.visit()?;
        let outcome = match self.api().list_jobs(&visit.project).await {
            Ok(listed) => self.merge_answers(&visit, &listed).map_err(CoreError::from),
            Err(e) => Err(e.into()),
        };
        if let Err(e) = &outcome {
            self.log(LogLevel::Warn, &e.to_string());
        }
        outcome
    }
}

pub(super) fn without(jobs: &[Job], id: &str) -> Vec<Job> {
    jobs.iter()
        .filter(|j| j.sora_job_id != id)
        .cloned()
        .collect()
}
