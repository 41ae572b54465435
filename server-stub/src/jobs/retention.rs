//! Retention: finished jobs and their previews removed once older than the retention (and
//! past the month whose budgets they count in), hourly until the stop. A video someone paid for
//! and never saved is never removed: its job stays until it is saved, or removed by hand.

use std::time::Duration;

use super::ledger::Spent;
use super::library::library_key;
use super::record::{JobRecord, Status};
use super::{age, budget, cost, now, Backend, JobError, JobService};
use crate::poster::poster_key;

/// How often old finished jobs are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

impl JobService {
    pub(super) fn sweep_in_background(&self) {
        if let Some(retention) = self.inner.limits.retention {
            let sweeper = self.clone();
            self.background(async move { sweeper.sweep_every(retention).await });
        }
    }

    /// Removes finished jobs whose last change is older than `retention`, with their previews
    /// (a saved video is in the library and stays), now and every hour until the stop.
    pub(super) async fn sweep_every(&self, retention: Duration) {
        loop {
            self.sweep(retention).await;
            tokio::select! {
                () = tokio::time::sleep(SWEEP_EVERY) => {}
                () = self.inner.stop.cancelled() => return,
            }
        }
    }

    pub(super) async fn sweep(&self, retention: Duration) {
        let now = now();
        let old: Vec<JobRecord> = self
            .inner
            .records
            .lock()
            .unwrap()
            .values()
            .filter(|r| matches!(r.status, Status::Done | Status::Error))
            .filter(|r| age(&r.updated_at) > retention)
            // What a job cost counts against this month's budgets until the month is over.
            .filter(|r| budget::month_of(&r.created_at) != budget::month_of(&now))
            .cloned()
            .collect();
        // Every job is judged before any is removed.
        let mut expired = Vec::with_capacity(old.len());
        for record in old {
            if !self.holds_unsaved_paid_video(&record).await {
                expired.push(record);
            }
        }
        for record in expired {
            if let Err(e) = self.forget(&record).await {
                tracing::warn!(job = %record.sora_job_id, error = %e, "an expired job could not be removed");
            }
        }
    }

    /// Whether `record`'s preview is a video someone paid for (made by a hosted provider, or
    /// at a price) that is not in its project's library. When the storage cannot tell, it is
    /// taken to be one: the job is looked at again at the next sweep.
    async fn holds_unsaved_paid_video(&self, record: &JobRecord) -> bool {
        let paid =
            record.provider != "local" || cost::of(record).actual_usd.is_some_and(|usd| usd > 0.0);
        if record.status != Status::Done || record.preview_key.is_none() || !paid {
            return false;
        }
        let key = library_key(&record.project_id, &record.sora_job_id);
        match self.inner.storage.head(&key).await {
            Ok(saved) => saved.is_none(),
            Err(e) => {
                tracing::warn!(job = %record.sora_job_id, error = %e, "could not tell whether an expired job's video was saved; keeping it");
                true
            }
        }
    }

    /// Removes a finished job's preview and record, in memory and on disk.
    pub(super) async fn forget(&self, record: &JobRecord) -> Result<(), JobError> {
        if let Some(key) = &record.preview_key {
            if let Some(poster) = poster_key(key) {
                self.inner.storage.delete(&poster).await?;
            }
            self.inner.storage.delete(key).await?;
        }
        let id = record.sora_job_id.clone();
        if let Backend::Shared(replica) = &self.inner.backend {
            let removed = replica.remove(record).await?;
            let mut records = self.inner.records.lock().unwrap();
            records.remove(&id);
            if let Some(spent) = removed.as_ref().and_then(Spent::of) {
                self.inner.ledger.add(&id, spent);
            }
            return Ok(());
        }
        // What it spent is on disk before its record is gone.
        let spent = self.read(&id, Spent::of).flatten();
        if let Some(spent) = spent.clone() {
            self.on_disk(move |_, disk| disk.ledger().append(&spent))
                .await?;
        }
        {
            let mut records = self.inner.records.lock().unwrap();
            if let Some(removed) = records.remove(&id) {
                if let Some(spent) = spent {
                    self.inner.ledger.add(&id, spent);
                }
                self.inner.events.publish(&removed, true);
            }
        }
        self.on_disk(move |_, disk| disk.remove(&id)).await
    }
}
