//! The commands that change a job: Save to Library, Cancel and Remove.

use super::super::{Core, Failure, Visit};
use super::without;
use crate::error::CoreError;
use crate::job::Job;
use crate::platform::Platform;
use crate::snapshot::JobActivity;

impl<P: Platform> Core<P> {
    /// Save to Library: copies a finished job's video to the project library, stores its key
    /// and reloads the assets.
    pub async fn save_job(&self, id: &str) -> Result<String, CoreError> {
        let visit = self.visit()?;
        let job = self.stored_job(id)?;
        if !job.can_save() {
            return Err(CoreError::NotAllowed {
                id: id.to_owned(),
                action: "saved (only finished, unsaved jobs are)",
            });
        }
        self.begin(id, JobActivity::Saving)?;
        self.dismiss_banner();
        let outcome = self.save(&visit, &job).await;
        self.end(&visit, id, &outcome, Failure::Save);
        if let (Ok(key), true) = (&outcome, self.still(&visit)) {
            self.saved_here(key);
            let _ = self.load_assets().await;
        }
        outcome
    }

    async fn save(&self, visit: &Visit, job: &Job) -> Result<String, CoreError> {
        let id = &job.sora_job_id;
        let key = self.api().save_job(id, &visit.project, &job.prompt).await?;
        let now = self.platform.now_iso();
        self.change_jobs(visit, |jobs| {
            Some(
                jobs.iter()
                    .map(|j| match j.sora_job_id == *id {
                        true => Job {
                            final_r2_key: Some(key.clone()),
                            updated_at: now.clone(),
                            ..j.clone()
                        },
                        false => j.clone(),
                    })
                    .collect(),
            )
        })?;
        Ok(key)
    }

    /// Cancel: stops a queued or running job on the server (and at its provider where the
    /// provider allows it); the job ends as `error` with the message "Cancelled".
    pub async fn cancel_job(&self, id: &str) -> Result<Job, CoreError> {
        let visit = self.visit()?;
        if !self.stored_job(id)?.is_active() {
            return Err(CoreError::NotAllowed {
                id: id.to_owned(),
                action: "cancelled (only queued and running jobs are)",
            });
        }
        self.begin(id, JobActivity::Cancelling)?;
        let outcome = async {
            let answer = self.api().cancel_job(id).await?;
            self.merge_answer(&visit, id, answer)
        }
        .await;
        self.end(&visit, id, &outcome, Failure::Cancel);
        outcome
    }

    /// Remove: deletes the job from the list here and its record on the server. A video
    /// saved from it stays in the library.
    pub async fn remove_job(&self, id: &str) -> Result<(), CoreError> {
        let visit = self.visit()?;
        self.stored_job(id)?;
        self.begin(id, JobActivity::Removing)?;
        let outcome = async {
            self.api().remove_job(id).await?;
            self.change_jobs(&visit, |jobs| Some(without(jobs, id)))?;
            self.drop_missing_compared();
            Ok(())
        }
        .await;
        self.end(&visit, id, &outcome, Failure::Remove);
        outcome
    }
}
