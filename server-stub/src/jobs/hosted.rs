//! A hosted job's life: submit once (marked durably before the request, so a crash in between
//! never leads to a second, billed submission), poll at the provider's pace (one poller per
//! job, however many browsers ask; slower where the provider calls back, and at once when it
//! does), then copy the finished video out (`copy_out.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use time::format_description::well_known::Rfc3339;

use super::cancel::Switch;
use super::record::{JobRecord, Status};
use super::{age, now, JobService};
use crate::callbacks::SLOWER;
use crate::providers::{Finished, Found, Maker, Poll, Provider, ProviderError, Remote, Submission};

/// A provider that cannot be reached is asked again for this long before the job is given up.
const UNREACHABLE_FOR: Duration = Duration::from_secs(60 * 60);
/// Longest pause between polls of an unreachable provider.
const QUIET_MAX: Duration = Duration::from_secs(60);
/// Estimated progress stops here until the provider says the job is done.
const ESTIMATE_MAX: u8 = 95;

impl JobService {
    /// Follows a hosted job under `switch` (its claim, with replicas): every write it makes
    /// carries the claim's fence.
    pub(super) async fn run_hosted(&self, id: &str, maker: Maker, switch: Arc<Switch>) {
        let Maker::Hosted { provider, remote } = maker else {
            return;
        };
        if let Some(record) = self.get(id).filter(|r| r.status.is_active()) {
            self.follow_through(id, provider.as_ref(), &remote, record, &switch)
                .await;
        }
        self.inner.switches.disarm(id, &switch);
    }

    /// Submits (or recovers) the job, follows it and copies the video out, until done, failed,
    /// cancelled or stopped.
    async fn follow_through(
        &self,
        id: &str,
        provider: &dyn Provider,
        remote: &str,
        record: JobRecord,
        switch: &Switch,
    ) {
        let fence = switch.fence();
        let remote_id = match (record.provider_job_id.clone(), record.submit_started_at) {
            (Some(remote_id), _) => remote_id,
            (None, Some(started)) => {
                match self.recover(id, provider, remote, &started, fence).await {
                    Some(remote_id) => remote_id,
                    None => return,
                }
            }
            (None, None) => match self.submit(id, provider, remote, switch).await {
                Some(remote_id) => remote_id,
                None => return,
            },
        };
        match self
            .follow(id, provider, remote, &remote_id, &record.created_at, switch)
            .await
        {
            Some(Ok(finished)) => {
                self.copy_out(id, provider, remote, &remote_id, finished, switch)
                    .await
            }
            Some(Err(message)) => self.fail(id, fence, message).await,
            None if self.stopping() => {
                tracing::info!(job = %id, "stopped; the poller starts again at the next start")
            }
            None => tracing::info!(job = %id, "cancelled; no longer polled"),
        }
    }

    /// A job whose submission was cut off by a crash: the provider is asked for it where it
    /// can be; never sent again. `None` when the job failed.
    async fn recover(
        &self,
        id: &str,
        provider: &dyn Provider,
        remote: &str,
        started: &str,
        fence: Option<u32>,
    ) -> Option<String> {
        let record = self.get(id)?;
        let since = time::OffsetDateTime::parse(started, &Rfc3339)
            .map(|t| t.unix_timestamp())
            .unwrap_or_default();
        let taken = |candidate: &str| {
            self.inner
                .records
                .lock()
                .unwrap()
                .values()
                .any(|r| r.sora_job_id != id && r.provider_job_id.as_deref() == Some(candidate))
        };
        let name = provider.name();
        let outcome = match provider.find(remote, id, &record.prompt, since).await {
            Ok(Found::Job(found)) if !taken(&found) => {
                tracing::warn!(job = %id, remote = %found, "a submission cut off by a stop was found at the provider");
                return self.accepted(id, fence, &record.model, found).await;
            }
            Ok(Found::Job(_) | Found::Nothing) => format!("{name} has no such job"),
            Ok(Found::CannotAsk) => format!("{name} offers no way to ask whether it has it"),
            Err(e) => {
                tracing::warn!(job = %id, error = %e, "the provider could not be asked for a cut-off submission");
                format!("{name} could not be asked whether it has it")
            }
        };
        let message = format!(
            "The server stopped while this job was being sent to {name}, and {outcome}. It was \
             not sent again, so it cannot be billed twice; retry it if you still want it."
        );
        self.fail(id, fence, message).await;
        None
    }

    /// Submits the job once, within the cap on submissions in flight: marked on disk first,
    /// then sent; the provider's id is kept at once. `None` when the job failed or the service
    /// stopped before sending.
    async fn submit(
        &self,
        id: &str,
        provider: &dyn Provider,
        remote: &str,
        switch: &Switch,
    ) -> Option<String> {
        let (cancelled, fence) = (&switch.token, switch.fence());
        let _slot = tokio::select! {
            slot = self.inner.submissions.acquire() => slot.ok()?,
            () = cancelled.cancelled() => return None,
        };
        let record = self.get(id)?;
        let pictures = match self.pictures(&record).await {
            Ok(pictures) => pictures,
            Err(e) => {
                self.fail(
                    id,
                    fence,
                    format!("The job's pictures could not be read: {e}"),
                )
                .await;
                return None;
            }
        };
        let marked = self.update(id, |r| r.submit_started_at = Some(now()))?;
        if let Err(e) = self.persist(id).await {
            tracing::error!(job = %id, error = %e, "could not mark the job as being submitted");
            self.update(id, |r| r.submit_started_at = None);
            self.fail(
                id,
                fence,
                "The job could not be recorded, so it was not sent".into(),
            )
            .await;
            return None;
        }
        match provider
            .submit(&Submission {
                model: remote,
                job_id: id,
                prompt: &marked.prompt,
                spec: &marked.spec,
                pictures: &pictures,
                callback: self.callback_url(provider, id).as_deref(),
                shots: &marked
                    .shots
                    .iter()
                    .map(|part| part.asked.clone())
                    .collect::<Vec<_>>(),
            })
            .await
        {
            Ok(remote_id) => {
                tracing::info!(job = %id, provider = provider.name(), remote = %remote_id, "submitted");
                self.accepted(id, fence, &marked.model, remote_id).await
            }
            Err(e) => {
                self.fail(id, fence, e.to_string()).await;
                None
            }
        }
    }

    /// Keeps the provider's id of a job it has accepted (just submitted, or found after a
    /// stop) and marks it running: `Some` while the job is still wanted. A job cancelled or
    /// removed while the request (or the search) was on its way is cancelled at the provider
    /// where it can be, and never marked running again: the user's Cancel wins. `None` too when
    /// the job's lease passed to another replica, which finds the job at the provider itself.
    async fn accepted(
        &self,
        id: &str,
        fence: Option<u32>,
        model: &str,
        remote_id: String,
    ) -> Option<String> {
        let mut active = false;
        let kept = self
            .change_as(id, fence, |r| {
                r.provider_job_id = Some(remote_id.clone());
                active = r.status.is_active();
                if active {
                    r.status = Status::Running;
                    r.attempts += 1;
                }
            })
            .await;
        match kept {
            Some(_) if active => Some(remote_id),
            None if self.get(id).is_some() => None,
            _ => {
                tracing::info!(job = %id, remote = %remote_id, "cancelled or removed while the provider took it; cancelling it there");
                self.cancel_at_provider(id, model, remote_id);
                None
            }
        }
    }

    /// Polls until the job is done (`Ok`), failed (`Err`, the provider's message), or it is
    /// cancelled or the service stops (`None`).
    async fn follow(
        &self,
        id: &str,
        provider: &dyn Provider,
        remote: &str,
        remote_id: &str,
        created_at: &str,
        switch: &Switch,
    ) -> Option<Result<Finished, String>> {
        let cancelled = &switch.token;
        let called_back = self.callback_url(provider, id).is_some();
        let mut unreachable_since: Option<Instant> = None;
        let mut quiet = Duration::from_secs(1);
        loop {
            // Biased: a job cancelled before this poll is not polled (without it, the poll
            // branch may be tried first and its request sent).
            let polled = tokio::select! {
                biased;
                () = cancelled.cancelled() => return None,
                polled = provider.poll(remote, remote_id) => polled,
            };
            let wait = match polled {
                Ok(Poll {
                    remote: Remote::Done(finished),
                    ..
                }) => return Some(Ok(finished)),
                Ok(Poll {
                    remote: Remote::Failed(message),
                    ..
                }) => return Some(Err(message)),
                Ok(Poll {
                    remote: Remote::Pending(progress),
                    next,
                }) => {
                    unreachable_since = None;
                    let progress = progress.unwrap_or_else(|| estimate(age(created_at), provider));
                    self.update(id, |r| {
                        if r.status.is_active() {
                            r.status = Status::Running;
                            r.progress = r.progress.max(progress);
                        }
                    });
                    if called_back {
                        next * SLOWER
                    } else {
                        next
                    }
                }
                Err(ProviderError::Rejected(message)) => return Some(Err(message)),
                Err(e) => {
                    let since = *unreachable_since.get_or_insert_with(Instant::now);
                    if since.elapsed() > UNREACHABLE_FOR {
                        return Some(Err(e.to_string()));
                    }
                    tracing::warn!(job = %id, error = %e, "provider unavailable; asking again later");
                    quiet = (quiet * 2).min(QUIET_MAX);
                    quiet
                }
            };
            // A callback wakes the wait: the provider is asked at once.
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = switch.nudge.notified() => {}
                () = cancelled.cancelled() => return None,
            }
        }
    }
}

/// Progress estimated from elapsed time against the provider's typical duration.
fn estimate(elapsed: Duration, provider: &dyn Provider) -> u8 {
    let Some(typical) = provider.typical_duration().filter(|t| !t.is_zero()) else {
        return 0;
    };
    ((elapsed.as_secs_f64() / typical.as_secs_f64() * 100.0) as u8).min(ESTIMATE_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_of_old_and_unreadable_times() {
        // Older than this machine's uptime: no Instant arithmetic that could underflow.
        assert!(age("2020-01-01T00:00:00Z") > Duration::from_secs(5 * 365 * 86_400));
        assert_eq!(age("not a time"), Duration::ZERO);
        assert_eq!(
            age("2999-01-01T00:00:00Z"),
            Duration::ZERO,
            "a future time is no age"
        );
    }
}
