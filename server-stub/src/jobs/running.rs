//! Running jobs: each in a span naming the job and its project, hosted ones at their provider
//! (`hosted.rs`), local ones on the engine's bounded workers, and how a run ends (done, failed).

use std::sync::Arc;

use tracing::Instrument;

use super::record::{JobRecord, Status};
use super::{age, cancel, preview_key, JobService};
use crate::engine::{self, EngineError};
use crate::providers::Maker;
use crate::sequences::export;
use crate::sequences::export::take_reader::TakeReader;
use crate::sounds::decode::Decoded;

/// The span a job's work runs in: every line logged while it runs names the job and its
/// project (fields of each JSON log line with `STUDIO_LOG_FORMAT=json`).
pub(super) fn job_span(record: &JobRecord) -> tracing::Span {
    tracing::info_span!("job", job = %record.sora_job_id, project = %record.project_id)
}

impl JobService {
    pub(super) fn spawn(&self, id: String) {
        let service = self.clone();
        let Some((model, export, span)) =
            self.read(&id, |r| (r.model.clone(), r.export.is_some(), job_span(r)))
        else {
            return;
        };
        match self.inner.catalog.get(&model).cloned() {
            // An export is the engine's work, whatever models are offered.
            _ if export => {}
            None => {
                let message = crate::providers::retired::unavailable(&model);
                self.background(
                    async move { service.fail(&id, None, message).await }.instrument(span),
                );
                return;
            }
            Some(maker @ Maker::Hosted { .. }) => {
                let switch = self.inner.switches.arm(&id, 0, &self.inner.stop);
                self.background(
                    async move { service.run_hosted(&id, maker, switch).await }.instrument(span),
                );
                return;
            }
            Some(Maker::Local) => {}
        }
        self.background(
            async move {
                let Ok(_permit) = service.inner.workers.clone().acquire_owned().await else {
                    return;
                };
                if service.stopping() {
                    return;
                }
                service.run(&id).await;
            }
            .instrument(span),
        );
    }

    pub(super) async fn run(&self, id: &str) {
        let switch = self.inner.switches.arm(id, 0, &self.inner.stop);
        let mut queued = false;
        let Some(record) = self
            .change_as(id, switch.fence(), |r| {
                queued = r.status == Status::Queued;
                if queued {
                    r.status = Status::Running;
                    r.attempts += 1;
                    r.progress = 0;
                }
            })
            .await
            .filter(|_| queued)
        else {
            // Cancelled while it waited for a worker.
            self.inner.switches.disarm(id, &switch);
            return;
        };
        self.render(id, record, switch).await;
    }

    /// Renders a job this server has claimed, into the holding area. How it ends is written
    /// under the claim's fence: not at all once the lease has passed to another replica.
    pub(super) async fn render(&self, id: &str, record: JobRecord, switch: Arc<cancel::Switch>) {
        let fence = switch.fence();
        let armed = switch.clone();
        tracing::info!(job = %id, prompt = %record.prompt, "rendering");
        let out = self
            .inner
            .scratch
            .join(format!("{}.mp4", ulid::Ulid::new()));
        let service = self.clone();
        let job_id = id.to_owned();
        let target = out.clone();
        // An export has no pictures of its own: it reads its takes as it goes.
        let shot = match record.export {
            None => self.shot(&record).await,
            Some(_) => Ok(engine::Shot::default()),
        };
        let exported = record.export.is_some().then(|| record.project_id.clone());
        let signed_as = record.clone();
        let storage = self.inner.storage.clone();
        let runtime = self.inner.runtime.clone();
        let rendered = tokio::task::spawn_blocking(move || {
            let mut last = 0;
            let progress = |done: u32, total: u32| {
                let percent = (u64::from(done) * 100 / u64::from(total)) as u8;
                if percent != last {
                    last = percent;
                    service.update(&job_id, |r| r.progress = percent.min(99));
                }
            };
            match &record.export {
                Some(cut) => export::export(
                    cut,
                    (record.spec.width, record.spec.height),
                    record.fit,
                    export::Sources {
                        takes: |shot: &export::ExportShot| {
                            let failed = |e: &dyn std::fmt::Display| {
                                EngineError::Inputs(format!("{}: {e}", shot.file_name))
                            };
                            let size = runtime
                                .block_on(storage.head(&shot.key))
                                .map_err(|e| failed(&e))?
                                .ok_or_else(|| failed(&"not in the library"))?
                                .size_bytes;
                            Ok(TakeReader::stored(
                                storage.clone(),
                                runtime.clone(),
                                shot.key.clone(),
                                size,
                            ))
                        },
                        sounds: |clip: &export::ExportLaneClip, from_s: f64| {
                            let source = crate::sounds::source(
                                storage.clone(),
                                runtime.clone(),
                                clip.key.clone(),
                                clip.size_bytes,
                            );
                            Decoded::open(source, from_s)
                                .map_err(|e| EngineError::Inputs(format!("{}: {e}", clip.key)))
                        },
                    },
                    &target,
                    &switch.flag,
                    progress,
                ),
                None => engine::render_video(
                    &record.prompt,
                    &record.spec,
                    &shot?,
                    &target,
                    &switch.flag,
                    progress,
                )
                .map(|()| None),
            }
        })
        .await
        .unwrap_or_else(|e| Err(EngineError::Encode(format!("worker panicked: {e}"))));
        // What the render held, given back (an export's threads have ended).
        let _ = tokio::task::spawn_blocking(crate::memory::give_back).await;
        if let Ok(Some(measured)) = rendered {
            self.update(id, |r| {
                if let Some(export) = r.export.as_mut() {
                    export.measured = Some(measured);
                }
            });
        }
        let stored = match rendered {
            Ok(_) => self.signed(id, &signed_as, &out).await,
            Err(e) => Err(e.to_string()),
        };
        let outcome = match &stored {
            Ok(file) => self
                .inner
                .storage
                .put_file(&preview_key(id), file)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        };
        for file in [Some(&out), stored.as_ref().ok()].into_iter().flatten() {
            let _ = tokio::fs::remove_file(file).await;
        }
        match outcome {
            Ok(object) => {
                tracing::info!(job = %id, bytes = object.size_bytes, "done");
                // An export goes to the library as it is made: done and saved in one change.
                let saved = match &exported {
                    Some(project) => self.export_to_library(id, project, &object.key).await,
                    None => None,
                };
                let marked = self
                    .done_with(id, fence, object.key.clone(), |r| {
                        if saved.is_some() {
                            r.saved_key = saved.clone();
                        }
                    })
                    .await;
                if !marked {
                    self.discard_unheld_preview(id, &object.key).await;
                    if let Some(key) = &saved {
                        self.discard_unheld_export(id, key).await;
                    }
                } else if let (Some(project), Some(key)) = (&exported, &saved) {
                    self.told_saved(project, key, None);
                }
            }
            Err(_) if self.stopping() => {
                tracing::info!(job = %id, "stopped; will resume at next start");
                self.change_as(id, fence, |r| {
                    if r.status.is_active() {
                        r.status = Status::Queued;
                        r.progress = 0;
                    }
                })
                .await;
            }
            Err(e) => self.fail(id, fence, e).await,
        }
        self.inner.switches.disarm(id, &armed);
    }

    /// Marks a job done with its preview (and the preview's poster), and `also` changes the
    /// record in the same write, by the worker of claim `fence`, unless it has finished
    /// already (a cancel) or the claim is no longer the job's: whether it was marked.
    pub(super) async fn done_with(
        &self,
        id: &str,
        fence: Option<u32>,
        preview_key: String,
        also: impl Fn(&mut JobRecord) + Sync,
    ) -> bool {
        if let Err(e) = self.inner.posters.ensure(&preview_key).await {
            tracing::warn!(job = %id, error = %e, "the preview has no poster");
        }
        let mut marked = false;
        let written = self
            .change_as(id, fence, |r| {
                marked = r.status.is_active();
                if marked {
                    r.status = Status::Done;
                    r.progress = 100;
                    r.preview_key = Some(preview_key.clone());
                    also(r);
                    crate::metrics::get().finished(&r.provider, r.status, age(&r.created_at));
                }
            })
            .await;
        let done = marked && written.is_some();
        if done {
            self.keep_take(id).await;
        }
        done
    }

    /// Removes a preview (with its poster) that was made for a job cancelled or removed
    /// meanwhile: one no record holds. A job another replica took over and works on still
    /// may (it writes the same key), and keeps it.
    pub(super) async fn discard_unheld_preview(&self, id: &str, key: &str) {
        let held = self.read(id, |r| {
            r.status.is_active() || r.preview_key.as_deref() == Some(key)
        });
        if held == Some(true) {
            return;
        }
        let poster = crate::poster::poster_key(key);
        for key in poster.iter().map(String::as_str).chain([key]) {
            if let Err(e) = self.inner.storage.delete(key).await {
                tracing::warn!(key, error = %e, "a render no job holds could not be removed");
            }
        }
    }

    /// Marks a job failed with `message`, by the worker of claim `fence`, unless it has
    /// finished already (a cancel) or the claim is no longer the job's.
    pub(super) async fn fail(&self, id: &str, fence: Option<u32>, message: String) {
        self.change_as(id, fence, |r| {
            if r.status.is_active() {
                tracing::error!(job = %id, error = %message, "failed");
                r.status = Status::Error;
                r.error = Some(message.clone());
                crate::metrics::get().finished(&r.provider, r.status, age(&r.created_at));
            }
        })
        .await;
    }
}
