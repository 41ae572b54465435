//! A finished multi-shot video cut back into its shots' takes, each saved to the library and
//! joined to its shot.

use serde_json::json;

use super::part_key;
use crate::engine::EngineError;
use crate::jobs::record::{JobRecord, ShotPart};
use crate::jobs::{now, JobService};
use crate::sequences::export::{self, take_reader::TakeReader, Export, ExportShot};

impl JobService {
    /// Cuts a finished multi-shot job's video into its shots' takes, each saved to the library
    /// (with its poster made on request and its `.json`) and told as a take of its shot. A
    /// part that cannot be cut is logged; the whole video can still be saved by hand.
    pub(in crate::jobs) async fn keep_shots(&self, id: &str, record: &JobRecord) {
        let Some(preview) = record.preview_key.clone() else {
            return;
        };
        let mut from = 0;
        for (index, part) in (1..).zip(&record.shots) {
            let key = part_key(&record.project_id, id, index);
            let seconds = part.asked.seconds;
            match self
                .cut_part(id, record, &preview, from, seconds, &key)
                .await
            {
                Ok(()) => {
                    self.describe_part(id, record, index, from, part, &key)
                        .await;
                    self.told_saved(&record.project_id, &key, Some(&part.link));
                }
                Err(e) => {
                    tracing::warn!(job = %id, shot = %part.link.shot, error = %e, "a shot could not be cut from a multi-shot video")
                }
            }
            from += seconds;
        }
    }

    /// Cuts `seconds` from `from` of the video at `preview` into the library at `key`,
    /// signed as a cut of it.
    async fn cut_part(
        &self,
        id: &str,
        record: &JobRecord,
        preview: &str,
        from: u32,
        seconds: u32,
        key: &str,
    ) -> Result<(), String> {
        let storage = self.inner.storage.clone();
        if storage
            .head(key)
            .await
            .map_err(|e| e.to_string())?
            .is_some()
        {
            return Ok(());
        }
        let size = storage
            .head(preview)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the video is gone")?
            .size_bytes;
        let fps = record.spec.fps;
        let cut = Export {
            sequence: id.to_owned(),
            version: 0,
            fps,
            shots: vec![ExportShot {
                label: String::new(),
                file_name: crate::storage::file_name(preview).to_owned(),
                key: preview.to_owned(),
                in_frame: u64::from(from * fps),
                out_frame: u64::from((from + seconds) * fps),
                gain_db: 0.0,
                mute: false,
                reframe: None,
            }],
            loudness: Default::default(),
            measured: None,
            lanes: Vec::new(),
            duck_db: 0.0,
            captions: Vec::new(),
            burn_captions: false,
        };
        let out = self
            .inner
            .scratch
            .join(format!("{}.mp4", ulid::Ulid::new()));
        let (target, runtime) = (out.clone(), self.inner.runtime.clone());
        // Each take keeps the provider's own picture size: nothing is scaled.
        let size_of = match crate::poster::Sparse::boxes(storage.as_ref(), preview, size).await {
            Ok(boxes) => {
                tokio::task::spawn_blocking(move || crate::frames::track_info(boxes, size))
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .map(|info| (info.width, info.height))
            }
            Err(_) => None,
        }
        .unwrap_or((record.spec.width, record.spec.height));
        let (fit, made) = (record.fit, cut.clone());
        let source = preview.to_owned();
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let rendered = tokio::task::spawn_blocking(move || {
            export::export(
                &made,
                size_of,
                fit,
                export::Sources {
                    takes: |_: &ExportShot| {
                        Ok(TakeReader::stored(
                            storage.clone(),
                            runtime.clone(),
                            source.clone(),
                            size,
                        ))
                    },
                    sounds: |_: &export::ExportLaneClip, _: f64| {
                        Err(EngineError::Inputs("a shot's part has no lanes".into()))
                    },
                },
                &target,
                &cancel,
                |_, _| {},
            )
        })
        .await
        .map_err(|e| e.to_string())?;
        let _ = tokio::task::spawn_blocking(crate::memory::give_back).await;
        let signed_as = JobRecord {
            export: Some(cut),
            ..record.clone()
        };
        let stored = match rendered {
            Ok(_) => self.signed(id, &signed_as, &out).await,
            Err(e) => Err(e.to_string()),
        };
        let put = match &stored {
            Ok(file) => self
                .inner
                .storage
                .put_file(key, file)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        };
        for file in [Some(&out), stored.as_ref().ok()].into_iter().flatten() {
            let _ = tokio::fs::remove_file(file).await;
        }
        put
    }

    /// The `.json` beside a shot's take: its own prompt and length, and the call it was made in.
    async fn describe_part(
        &self,
        id: &str,
        record: &JobRecord,
        index: usize,
        from: u32,
        part: &ShotPart,
        key: &str,
    ) {
        let meta_key = format!("{}.json", key.strip_suffix(".mp4").unwrap_or(key));
        let metadata = json!({
            "prompt": part.asked.prompt,
            "model": record.model,
            "provider": record.provider,
            "seconds": part.asked.seconds,
            "size": record.spec.size(),
            "duration": part.asked.seconds,
            "created_at": now(),
            "job_created_at": record.created_at,
            "sora_job_id": id,
            "project_id": record.project_id,
            "provider_job_id": record.provider_job_id,
            "fit": record.fit,
            "multi_shot": {
                "shot": index,
                "of": record.shots.len(),
                "from_s": from,
                "seconds": record.spec.seconds,
            },
        });
        if let Err(e) = self
            .inner
            .storage
            .put_bytes(
                &meta_key,
                serde_json::to_vec_pretty(&metadata).unwrap_or_default(),
            )
            .await
        {
            tracing::warn!(job = %id, key = %meta_key, error = %e, "a shot's metadata could not be written");
        }
    }
}
