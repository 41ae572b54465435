//! A finished hosted video, copied into the holding area at once, since provider URLs expire.
//! A copy that fails (a storage outage, a full disk) after three downloads does not lose the
//! video the provider made and billed: the job stays running with `copy_pending` saying why,
//! and the server tries again with a growing wait (30 s to 10 min) for as long as providers keep
//! a finished video (a day), or at once when a user asks (`POST /api/jobs/sora/{id}/copy`). A
//! provider that refuses the download (the video is gone there) ends it. A job that gave up
//! keeps `copy_pending`: it was billed, and its cost says so.

use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};

use super::cancel::Switch;
use super::record::{CopyPending, JobRecord};
use super::{now, preview_key, JobError, JobService};
use crate::providers::fetch::MAX_VIDEO_BYTES;
use crate::providers::{Finished, Provider, ProviderError};
use crate::references::{Moment, Named, Source};
use crate::storage::Object;

/// Downloads started again after a broken transfer, in one copy.
const DOWNLOAD_ATTEMPTS: u32 = 3;
/// One copy, its downloads together, ends by then.
const COPY_DEADLINE: Duration = Duration::from_secs(30 * 60);
/// The wait before the first copy is tried again; it doubles up to `RETRY_MAX`.
const RETRY_FIRST: Duration = Duration::from_secs(30);
const RETRY_MAX: Duration = Duration::from_secs(10 * 60);
/// Copies are tried again for this long after the first failed: as long as providers keep a
/// finished video.
const PENDING_FOR: Duration = Duration::from_secs(24 * 3600);

/// Why a copy did not happen.
enum CopyError {
    /// The provider refused the download for good: no later copy can work.
    Gone(String),
    /// Storage, the network or a broken transfer: a later copy may work.
    Failed(String),
}

impl CopyError {
    fn reason(&self) -> &str {
        match self {
            CopyError::Gone(reason) | CopyError::Failed(reason) => reason,
        }
    }
}

impl JobService {
    /// Copies the finished video into the holding area and marks the job done, with what the
    /// provider reported of it, trying again while the copy fails (see the module). A cancel
    /// (or a removal) stops the copy, and what it had kept (the video, its poster, a last
    /// frame) is removed: no record points at it.
    pub(super) async fn copy_out(
        &self,
        id: &str,
        provider: &dyn Provider,
        remote: &str,
        remote_id: &str,
        finished: Finished,
        switch: &Switch,
    ) {
        let fence = switch.fence();
        let key = preview_key(id);
        let (since, started) = (now(), Instant::now());
        let mut wait = RETRY_FIRST;
        let mut copies = 0;
        let error = loop {
            copies += 1;
            let copy = self.download(id, provider, remote, remote_id, &key);
            let outcome = tokio::select! {
                biased;
                () = switch.token.cancelled() => None,
                copied = tokio::time::timeout(COPY_DEADLINE, copy) => Some(copied.unwrap_or_else(
                    |_| Err(CopyError::Failed("the copy took longer than 30 minutes".into())),
                )),
            };
            let error = match outcome {
                Some(Ok(object)) => {
                    let object = self.signed_copy(id, object).await;
                    return self.copied(id, fence, object, &finished).await;
                }
                _ if self.stopping() => return,
                None => return self.copy_stopped(id, &key).await,
                Some(Err(error)) => error,
            };
            let mut pending = CopyPending {
                reason: error.reason().to_owned(),
                since: since.clone(),
                attempts: copies,
                next_at: None,
            };
            if matches!(error, CopyError::Gone(_)) || started.elapsed() >= PENDING_FOR {
                self.mark_pending(id, fence, pending).await;
                break error;
            }
            pending.next_at = Some(super::rfc3339(time::OffsetDateTime::now_utc() + wait));
            tracing::warn!(job = %id, reason = %pending.reason, wait_s = wait.as_secs(), "the finished video could not be copied; trying again");
            if !self.mark_pending(id, fence, pending).await {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = switch.nudge.notified() => {}
                () = switch.token.cancelled() => {}
            }
            wait = (wait * 2).min(RETRY_MAX);
        };
        self.fail(
            id,
            fence,
            format!(
                "The finished video could not be copied from the provider: {}",
                error.reason()
            ),
        )
        .await
    }

    /// Asks the server to try a pending copy of job `id` again now: the job as it stands.
    /// `NotFound` for no such job, `NoCopyPending` when it has none.
    pub async fn copy_again(&self, id: &str) -> Result<JobRecord, JobError> {
        let record = self.get(id).ok_or(JobError::NotFound)?;
        if !(record.status.is_active() && record.copy_pending.is_some()) {
            return Err(JobError::NoCopyPending);
        }
        if !self.inner.switches.nudge(id) {
            tracing::info!(job = %id, "a copy asked for again is worked by another server, on its own schedule");
        }
        Ok(record)
    }

    /// Keeps `pending` on the job while it is still wanted; `false` when it no longer is (or
    /// its lease passed to another replica).
    async fn mark_pending(&self, id: &str, fence: Option<u32>, pending: CopyPending) -> bool {
        let mut active = false;
        let kept = self
            .change_as(id, fence, |r| {
                active = r.status.is_active();
                if active {
                    r.copy_pending = Some(pending.clone());
                }
            })
            .await;
        kept.is_some() && active
    }

    /// One copy: up to three downloads of the video into `key`.
    async fn download(
        &self,
        id: &str,
        provider: &dyn Provider,
        remote: &str,
        remote_id: &str,
        key: &str,
    ) -> Result<Object, CopyError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let copied = match provider.download(remote, remote_id).await {
                Ok(response) => {
                    let mut received = 0u64;
                    let body = response
                        .bytes_stream()
                        .map_err(std::io::Error::other)
                        .map(move |chunk| {
                            let chunk = chunk?;
                            received += chunk.len() as u64;
                            if received > MAX_VIDEO_BYTES {
                                return Err(std::io::Error::other(
                                    "the video is larger than the cap",
                                ));
                            }
                            Ok(chunk)
                        })
                        .boxed();
                    self.inner.storage.put_stream(key, body).await.map_err(|e| {
                        tracing::error!(job = %id, error = %e, "storing the provider's video failed");
                        crate::metrics::get().storage_failed();
                        CopyError::Failed("the video could not be stored".to_owned())
                    })
                }
                Err(ProviderError::Rejected(message)) => return Err(CopyError::Gone(message)),
                Err(e) => Err(CopyError::Failed(e.to_string())),
            };
            match copied {
                Err(e) if attempt < DOWNLOAD_ATTEMPTS && !self.stopping() => {
                    tracing::warn!(job = %id, error = %e.reason(), attempt, "copy from the provider broke; starting again");
                }
                other => return other,
            }
        }
    }

    /// The video is in the holding area: the job is done (its copy no longer pending), or,
    /// cancelled or removed meanwhile, what was kept for it is removed.
    async fn copied(&self, id: &str, fence: Option<u32>, object: Object, finished: &Finished) {
        tracing::info!(job = %id, bytes = object.size_bytes, "copied from the provider");
        crate::metrics::get().copied(object.size_bytes);
        let project = self.read(id, |r| r.project_id.clone());
        let reference = match finished.last_frame.clone() {
            Some(frame) => self.offer_last_frame(id, frame).await,
            None => None,
        };
        let marked = self
            .done_with(id, fence, object.key.clone(), |r| {
                r.provider_usage = finished.usage;
                r.last_frame_reference.clone_from(&reference);
                r.copy_pending = None;
            })
            .await;
        if !marked {
            self.discard_unheld_preview(id, &object.key).await;
            if let (Some(project), Some(reference)) = (&project, reference) {
                self.discard_reference(id, project, &reference).await;
            }
        }
    }

    async fn copy_stopped(&self, id: &str, key: &str) {
        tracing::info!(job = %id, "cancelled while its video was copied; copy stopped");
        self.discard_unheld_preview(id, key).await;
    }

    /// Removes a last frame kept for a job that was cancelled or removed meanwhile.
    async fn discard_reference(&self, id: &str, project: &str, reference: &str) {
        if let Err(e) = self.references().delete(project, reference).await {
            tracing::warn!(job = %id, reference, error = %e, "a last frame no job holds could not be removed");
        }
    }

    /// Keeps the last frame a provider handed over as a reference of the job's project (its
    /// id), so the next shot can start from it without a decode. A frame that cannot be kept
    /// (a full project, a picture out of bounds) leaves the job as it is.
    async fn offer_last_frame(&self, id: &str, frame: bytes::Bytes) -> Option<String> {
        let project = self.get(id)?.project_id;
        let source = Source {
            from_video: id.to_owned(),
            at: Moment::Named(Named::Last),
        };
        match self
            .references()
            .offered(&project, frame, Some(source))
            .await
        {
            Ok(reference) => Some(reference.id),
            Err(e) => {
                tracing::warn!(job = %id, error = %e, "the provider's last frame was not kept");
                None
            }
        }
    }
}
