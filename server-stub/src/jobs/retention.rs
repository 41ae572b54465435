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
            if let Err(e) = self.forget(&record, Some(&record.updated_at)).await {
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

    /// Removes a job's record (in memory and where it is kept), what it spent staying in the
    /// ledger, then its preview and the preview's poster. With `judged` (retention: the
    /// `updated_at` the job was judged by), only a job unchanged since is removed, so a job
    /// saved or changed after it was judged stays, and of replicas sweeping at once one
    /// removes it. Whether it was removed.
    pub(super) async fn forget(
        &self,
        record: &JobRecord,
        judged: Option<&str>,
    ) -> Result<bool, JobError> {
        let id = record.sora_job_id.clone();
        let unchanged = |held: &JobRecord| judged.is_none_or(|at| held.updated_at == at);
        let removed = if let Backend::Shared(replica) = &self.inner.backend {
            let removed = replica.remove(record, judged).await?;
            let mut records = self.inner.records.lock().unwrap();
            if let Some(removed) = &removed {
                records.forget(&id);
                if let Some(spent) = Spent::of(removed) {
                    self.inner.ledger.add(&id, spent);
                }
            }
            removed.is_some()
        } else {
            // What it spent is on disk before its record is gone (an entry whose record
            // stays, changed meanwhile, is not counted: see `JobService::start`).
            let Some(Some(spent)) = self.read(&id, |r| unchanged(r).then(|| Spent::of(r))) else {
                return Ok(false);
            };
            if let Some(spent) = spent.clone() {
                self.on_disk(move |_, disk| disk.ledger().append(&spent))
                    .await?;
            }
            let removed = {
                let mut records = self.inner.records.lock().unwrap();
                let removed = if records.get(&id).is_some_and(unchanged) {
                    records.remove(&id)
                } else {
                    None
                };
                if let Some(removed) = &removed {
                    if let Some(spent) = spent {
                        self.inner.ledger.add(&id, spent);
                    }
                    self.inner.events.publish(removed, true);
                }
                removed.is_some()
            };
            if removed {
                let id = id.clone();
                self.on_disk(move |_, disk| disk.remove(&id)).await?;
            }
            removed
        };
        if !removed {
            return Ok(false);
        }
        if let Some(key) = &record.preview_key {
            if let Some(poster) = poster_key(key) {
                self.inner.storage.delete(&poster).await?;
            }
            self.inner.storage.delete(key).await?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    use super::*;
    use crate::jobs::record::fixture;
    use crate::jobs::Limits;
    use crate::providers::Catalog;
    use crate::storage::held::{Held, HeldStorage};
    use crate::storage::Storage;

    /// Fails on deleting what was judged without looking again: a job saved while the sweep
    /// was busy removing another, judged expired a moment before, lost its record all the same.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_job_changed_after_it_was_judged_is_not_swept() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(data.join("jobs")).unwrap();
        std::fs::create_dir_all(data.join("tmp")).unwrap();
        let clip = dir.path().join("clip.mp4");
        let spec = crate::engine::VideoSpec {
            seconds: 1,
            width: 128,
            height: 128,
            fps: 24,
        };
        crate::engine::render_clip("old hills", &spec, &clip).unwrap();
        let storage = Arc::new(HeldStorage::new(dir.path(), Held::Delete, 0));
        let old = "2026-01-05T10:00:00Z";
        let ids = [
            "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaaa",
            "local-1:task_01bbbbbbbbbbbbbbbbbbbbbbbb",
        ];
        for id in ids {
            let record = JobRecord {
                sora_job_id: id.into(),
                preview_key: Some(super::super::preview_key(id)),
                ..fixture("p", Status::Done, old, 0.0)
            };
            // A put moves its file in: each preview from a copy.
            let copy = dir.path().join("copy.mp4");
            std::fs::copy(&clip, &copy).unwrap();
            storage
                .put_file(record.preview_key.as_deref().unwrap(), &copy)
                .await
                .unwrap();
            std::fs::write(
                data.join("jobs").join(format!("{id}.json")),
                serde_json::to_vec(&record).unwrap(),
            )
            .unwrap();
        }
        let jobs = JobService::start(
            data,
            storage.clone(),
            Catalog::default(),
            Limits {
                retention: None,
                ..Limits::default()
            },
        )
        .unwrap();
        let sweeping = tokio::spawn({
            let jobs = jobs.clone();
            async move { jobs.sweep(Duration::from_secs(60)).await }
        });
        // The sweep has judged both and is removing the first (its preview's deletion held).
        while storage.waiting.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        let second = ids
            .into_iter()
            .find(|id| jobs.get(id).is_some())
            .expect("one is still kept");
        jobs.save(second, "p", "").await.unwrap();
        storage
            .gate
            .add_permits(tokio::sync::Semaphore::MAX_PERMITS);
        sweeping.await.unwrap();
        let kept: Vec<&str> = ids
            .into_iter()
            .filter(|id| jobs.get(id).is_some())
            .collect();
        assert_eq!(kept, [second], "the job saved after it was judged stays");
    }
}
