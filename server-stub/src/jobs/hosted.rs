//! A hosted job's life: submit once, poll at the provider's pace (one poller per job, however
//! many browsers ask), then stream the finished video into the holding area at once, because
//! provider URLs expire.

use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};

use super::record::Status;
use super::{preview_key, JobService};
use crate::providers::{Maker, Poll, Provider, ProviderError, Remote};

/// A provider that cannot be reached is asked again for this long before the job is given up.
const UNREACHABLE_FOR: Duration = Duration::from_secs(60 * 60);
/// Longest pause between polls of an unreachable provider.
const QUIET_MAX: Duration = Duration::from_secs(60);
/// Downloads started again after a broken transfer.
const DOWNLOAD_ATTEMPTS: u32 = 3;
/// Estimated progress stops here until the provider says the job is done.
const ESTIMATE_MAX: u8 = 95;

impl JobService {
    pub(super) async fn run_hosted(&self, id: &str, maker: Maker) {
        let Maker::Hosted { provider, remote } = maker else {
            return;
        };
        let Some(record) = self.get(id) else { return };
        let provider = provider.as_ref();
        let remote_id = match record.provider_job_id.clone() {
            Some(remote_id) => remote_id,
            None => match provider.submit(&remote, &record.prompt, &record.spec).await {
                Ok(remote_id) => {
                    tracing::info!(job = %id, provider = provider.name(), remote = %remote_id, "submitted");
                    self.change(id, true, |r| {
                        r.status = Status::Running;
                        r.attempts += 1;
                        r.provider_job_id = Some(remote_id.clone());
                    });
                    remote_id
                }
                Err(e) => return self.fail(id, e.to_string()),
            },
        };
        match self
            .follow(id, provider, &remote, &remote_id, &record.created_at)
            .await
        {
            Some(Ok(())) => self.copy_out(id, provider, &remote, &remote_id).await,
            Some(Err(message)) => self.fail(id, message),
            None => tracing::info!(job = %id, "stopped; the poller starts again at the next start"),
        }
    }

    /// Polls until the job is done (`Ok`), failed (`Err`, the provider's message) or the
    /// service stops (`None`).
    async fn follow(
        &self,
        id: &str,
        provider: &dyn Provider,
        remote: &str,
        remote_id: &str,
        created_at: &str,
    ) -> Option<Result<(), String>> {
        let mut unreachable_since: Option<Instant> = None;
        let mut quiet = Duration::from_secs(1);
        loop {
            let wait = match provider.poll(remote, remote_id).await {
                Ok(Poll {
                    remote: Remote::Done,
                    ..
                }) => return Some(Ok(())),
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
                    self.change(id, false, |r| {
                        r.status = Status::Running;
                        r.progress = r.progress.max(progress);
                    });
                    next
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
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = self.inner.stop.cancelled() => return None,
            }
        }
    }

    /// Streams the finished video into the holding area and marks the job done.
    async fn copy_out(&self, id: &str, provider: &dyn Provider, remote: &str, remote_id: &str) {
        let key = preview_key(id);
        let mut attempt = 0;
        let outcome = loop {
            attempt += 1;
            let copied = match provider.download(remote, remote_id).await {
                Ok(response) => {
                    let body = response
                        .bytes_stream()
                        .map_err(std::io::Error::other)
                        .boxed();
                    self.inner.storage.put_stream(&key, body).await.map_err(|e| {
                        tracing::error!(job = %id, error = %e, "storing the provider's video failed");
                        "the video could not be stored".to_owned()
                    })
                }
                Err(e) => Err(e.to_string()),
            };
            match copied {
                Err(e) if attempt < DOWNLOAD_ATTEMPTS && !self.stopping() => {
                    tracing::warn!(job = %id, error = %e, attempt, "copy from the provider broke; starting again");
                }
                other => break other,
            }
        };
        match outcome {
            Ok(object) => {
                tracing::info!(job = %id, bytes = object.size_bytes, "copied from the provider");
                self.change(id, true, |r| {
                    r.status = Status::Done;
                    r.progress = 100;
                    r.preview_key = Some(object.key);
                });
            }
            Err(_) if self.stopping() => {}
            Err(e) => self.fail(
                id,
                format!("The finished video could not be copied from the provider: {e}"),
            ),
        }
    }
}

/// How long ago an RFC 3339 time was (zero when it cannot be read).
fn age(at: &str) -> Duration {
    time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
        .ok()
        .and_then(|t| Duration::try_from(time::OffsetDateTime::now_utc() - t).ok())
        .unwrap_or_default()
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
