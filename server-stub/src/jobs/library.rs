//! Saving a finished job's video to its project's library, with its `.json` metadata and poster.

use serde_json::json;

use super::record::{self, Status};
use super::{cost, now, JobError, JobService};
use crate::poster::poster_key;
use crate::storage::{file_name, StorageError};

pub fn library_key(project: &str, id: &str) -> String {
    format!("projects/{}/{id}.mp4", record::project_folder(project))
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
        let _one_at_a_time = self.inner.saving.lock().await;
        let key = library_key(project, id);
        let storage = &self.inner.storage;
        let object = match storage.head(&key).await? {
            None => storage.copy(&preview, &key).await?,
            // A copy cut short by a crash or a full disk is repaired from the preview.
            Some(saved) => match storage.head(&preview).await? {
                Some(source) if source.size_bytes != saved.size_bytes => {
                    tracing::warn!(job = %id, key = %key, saved = saved.size_bytes, source = source.size_bytes, "repairing a damaged saved video");
                    storage.copy(&preview, &key).await?
                }
                _ => saved,
            },
        };
        if let (Some(from), Some(to)) = (poster_key(&preview), poster_key(&key)) {
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
                "cost": cost::of(&record),
            });
            // An export: its exact length, and the cut it was made of.
            if let (Some(export), Some(fields)) = (&record.export, metadata.as_object_mut()) {
                fields.insert("duration".into(), json!(export.seconds()));
                fields.insert("lineage".into(), export.lineage());
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
        if record.saved_key.as_deref() != Some(key.as_str()) {
            self.change(id, |r| r.saved_key = Some(key.clone())).await;
        }
        Ok(key)
    }

    /// Has `hook(project, file name)` told of each video this service saves to a library by
    /// itself (an export, saved when done); set once.
    pub fn when_saved(&self, hook: super::SavedHook) {
        let _ = self.inner.saved_here.set(hook);
    }

    /// Saves a finished export to its project's library, and tells of it.
    pub(super) async fn save_export(&self, id: &str, project: &str) {
        match self.save(id, project, "").await {
            Ok(key) => {
                if let Some(hook) = self.inner.saved_here.get() {
                    hook(project, file_name(&key));
                }
            }
            Err(e) => {
                tracing::error!(job = %id, error = %e, "the export could not be saved to the library")
            }
        }
    }

    /// Forgets that a job's video is in the library, once `key` is deleted from it (the job
    /// is the one whose id names the file, if it was saved as `key`).
    pub async fn unsaved(&self, key: &str) {
        let Some(id) = file_name(key).strip_suffix(".mp4") else {
            return;
        };
        self.change(id, |r| {
            if r.saved_key.as_deref() == Some(key) {
                r.saved_key = None;
            }
        })
        .await;
    }
}
