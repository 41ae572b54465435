//! Saving a finished job's video to its project's library, with its `.json` metadata and poster.

use serde_json::json;

use super::record::{self, Status};
use super::{cost, now, JobError, JobService};
use crate::poster::poster_key;
use crate::project::ProjectFolder;
use crate::sequences::ShotLink;
use crate::storage::{file_name, StorageError};

pub fn library_key(project: &str, id: &str) -> String {
    ProjectFolder::of(project).file(&format!("{id}.mp4"))
}

impl JobService {
    /// Copies a finished job's video into the project's library with its `.json` metadata.
    /// Saving again returns the same key and writes nothing twice.
    pub async fn save(&self, id: &str, project: &str, prompt: &str) -> Result<String, JobError> {
        self.refresh(id).await;
        let record = self.get(id).ok_or(JobError::NotFound)?;
        let Some(preview) = record
            .preview_key
            .clone()
            .filter(|_| record.status == Status::Done)
        else {
            return Err(JobError::NotFinished);
        };
        let key = self
            .copy_to_library(id, &record, &preview, project, prompt)
            .await?;
        if record.saved_key.as_deref() != Some(key.as_str()) {
            // The video is in the library either way; a failed write is logged where it failed.
            let _ = self.change(id, |r| r.saved_key = Some(key.clone())).await;
        }
        Ok(key)
    }

    /// Writes `record`'s video (at `preview`) into the project's library with its poster and
    /// `.json` metadata, each only when not there yet (a copy cut short is repaired): its key.
    async fn copy_to_library(
        &self,
        id: &str,
        record: &record::JobRecord,
        preview: &str,
        project: &str,
        prompt: &str,
    ) -> Result<String, JobError> {
        let _one_at_a_time = self.inner.saving.lock().await;
        let key = library_key(project, id);
        let storage = &self.inner.storage;
        let object = match storage.head(&key).await? {
            None => storage.copy(preview, &key).await?,
            // A copy cut short by a crash or a full disk is repaired from the preview.
            Some(saved) => match storage.head(preview).await? {
                Some(source) if source.size_bytes != saved.size_bytes => {
                    tracing::warn!(job = %id, key = %key, saved = saved.size_bytes, source = source.size_bytes, "repairing a damaged saved video");
                    storage.copy(preview, &key).await?
                }
                _ => saved,
            },
        };
        if let (Some(from), Some(to)) = (poster_key(preview), poster_key(&key)) {
            if storage.head(&to).await?.is_none() {
                match storage.copy(&from, &to).await {
                    // A preview from before posters: the library's poster is made on request.
                    Err(StorageError::NotFound(_)) => {}
                    other => {
                        other?;
                    }
                }
            }
        }
        let meta_key = format!("{}.json", key.strip_suffix(".mp4").unwrap_or(&key));
        if storage.head(&meta_key).await?.is_none() {
            let prompt = if prompt.trim().is_empty() {
                record.prompt.as_str()
            } else {
                prompt
            };
            let mut metadata = json!({
                "prompt": prompt,
                "model": record.model,
                "provider": record.provider,
                "seconds": record.spec.seconds,
                "size": record.spec.size(),
                "fps": record.spec.fps,
                "codec": "h264",
                "container": "mp4",
                "duration": record.spec.seconds,
                "size_bytes": object.size_bytes,
                "created_at": now(),
                "job_created_at": record.created_at,
                "sora_job_id": id,
                "project_id": project,
                "provider_job_id": record.provider_job_id,
                "inputs": record.inputs,
                "fit": record.fit,
                "parent": record.parent,
                "seed": record.seed,
                "provider_usage": record.provider_usage,
                "cost": cost::of(record),
            });
            // An export: its exact length, and the cut it was made of.
            if let (Some(export), Some(fields)) = (&record.export, metadata.as_object_mut()) {
                fields.insert("duration".into(), json!(export.seconds()));
                fields.insert("lineage".into(), export.lineage());
                if let Some(measured) = &export.measured {
                    fields.insert("loudness".into(), json!(measured));
                }
            }
            // Frame rate and codec are known facts only for what the embedded engine made.
            if record.provider != "local" {
                if let Some(fields) = metadata.as_object_mut() {
                    fields.remove("fps");
                    fields.remove("codec");
                }
            }
            storage
                .put_bytes(
                    &meta_key,
                    serde_json::to_vec_pretty(&metadata).unwrap_or_default(),
                )
                .await?;
        }
        Ok(key)
    }

    /// Has `hook(project, file name, shot)` told of each video this service saves to a
    /// library by itself (an export, or a take of a shot, saved when done); set once.
    pub fn when_saved(&self, hook: super::SavedHook) {
        let _ = self.inner.saved_here.set(hook);
    }

    /// Writes a just-made export (its video at `preview`) into its project's library before
    /// the job is marked done, so that done and saved are one change: a restart in between
    /// renders it again, and no client sees a done export that is not in the library. Its key,
    /// or `None` (logged) when it could not be written: the job is then done and unsaved.
    pub(super) async fn export_to_library(
        &self,
        id: &str,
        project: &str,
        preview: &str,
    ) -> Option<String> {
        let record = self.get(id)?;
        if let Err(e) = self.inner.posters.ensure(preview).await {
            tracing::warn!(job = %id, error = %e, "the export has no poster");
        }
        match self
            .copy_to_library(id, &record, preview, project, "")
            .await
        {
            Ok(key) => Some(key),
            Err(e) => {
                tracing::error!(job = %id, error = %e, "the export could not be saved to the library");
                None
            }
        }
    }

    /// Removes the library copy of an export cancelled or removed while it was written (one
    /// no record holds), with its poster and metadata.
    pub(super) async fn discard_unheld_export(&self, id: &str, key: &str) {
        let held = self.read(id, |r| {
            r.status.is_active() || r.saved_key.as_deref() == Some(key)
        });
        if held == Some(true) {
            return;
        }
        let metadata = format!("{}.json", key.strip_suffix(".mp4").unwrap_or(key));
        let companions = poster_key(key).into_iter().chain([metadata]);
        for key in companions.chain([key.to_owned()]) {
            if let Err(e) = self.inner.storage.delete(&key).await {
                tracing::warn!(key, error = %e, "an export no job holds could not be removed");
            }
        }
    }

    /// Tells of a video saved to `project`'s library as `key` by the service itself.
    pub(super) fn told_saved(&self, project: &str, key: &str, shot: Option<&ShotLink>) {
        if let Some(hook) = self.inner.saved_here.get() {
            hook(project, file_name(key), shot);
        }
    }

    /// A take made for a shot is paid for and wanted: once done it is saved to the library
    /// (where it joins its shot; a multi-shot video is cut into a take for each of its shots), so that a storyboard fills in without a save per take and
    /// no take is lost to the providers' expiring URLs. A failure is logged; the take can
    /// still be saved by hand.
    pub(super) async fn keep_take(&self, id: &str) {
        if let Some(record) = self.get(id).filter(|r| !r.shots.is_empty()) {
            return self.keep_shots(id, &record).await;
        }
        let Some((project, Some(link))) = self.read(id, |r| (r.project_id.clone(), r.shot.clone()))
        else {
            return;
        };
        match self.save(id, &project, "").await {
            Ok(key) => self.told_saved(&project, &key, Some(&link)),
            Err(e) => {
                tracing::warn!(job = %id, error = %e, "a take of a shot could not be saved to the library")
            }
        }
    }

    /// Forgets that a job's video is in the library, once `key` is deleted from it (the job
    /// is the one whose id names the file, if it was saved as `key`).
    pub async fn unsaved(&self, key: &str) {
        let Some(id) = file_name(key).strip_suffix(".mp4") else {
            return;
        };
        // A job already removed has nothing to forget; a failed write is logged where it failed.
        let _ = self
            .change(id, |r| {
                if r.saved_key.as_deref() == Some(key) {
                    r.saved_key = None;
                }
            })
            .await;
    }
}
