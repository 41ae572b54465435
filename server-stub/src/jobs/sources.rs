//! Where a job's inputs come from: reference images and videos of its own project (a library
//! file name or a finished job's id), checked when the job is created and read back as
//! pictures when it renders.

use super::inputs::{self, ImageRole, Input, VideoRole};
use super::record::{is_valid_id, project_folder, Status};
use super::{JobError, JobService, NewJob};
use crate::engine::{EngineError, Shot, VideoSpec};
use crate::frames::At;
use crate::references::ReferenceError;

/// The largest `.json` metadata read for a parent's prompt.
const MAX_METADATA_BYTES: u64 = 256 * 1024;

/// A video of a project, found.
pub struct VideoSource {
    /// Its storage key.
    pub key: String,
    /// Its prompt, when known.
    pub prompt: Option<String>,
}

/// What a new job takes from its parent video.
pub struct Lineage {
    pub spec: VideoSpec,
    pub parent: Option<String>,
    pub parent_key: Option<String>,
    pub parent_prompt: Option<String>,
}

/// A library file name as the API takes it: 1 to 200 of `A-Z a-z 0-9 . _ : -`, ending `.mp4`.
fn library_name(name: &str) -> bool {
    (5..=200).contains(&name.len())
        && name.ends_with(".mp4")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

fn even_in_range(side: u32) -> u32 {
    (side.clamp(128, 1920)) & !1
}

impl JobService {
    /// The video `name` (a library file name or a job id) of `project`.
    pub async fn video_source(&self, project: &str, name: &str) -> Result<VideoSource, JobError> {
        let missing = || JobError::NoSuchInput(format!("No video {name} in this project"));
        if is_valid_id(name) {
            self.refresh(name).await;
            let record = self
                .get(name)
                .filter(|r| r.project_id == project)
                .ok_or_else(missing)?;
            let key = record
                .preview_key
                .clone()
                .filter(|_| record.status == Status::Done)
                .ok_or(JobError::NotFinished)?;
            return Ok(VideoSource {
                key,
                prompt: Some(record.prompt),
            });
        }
        if !library_name(name) {
            return Err(missing());
        }
        let key = format!("projects/{}/{name}", project_folder(project));
        let storage = self.storage();
        storage.head(&key).await?.ok_or_else(missing)?;
        let meta = format!("{}.json", key.trim_end_matches(".mp4"));
        let prompt = match storage.read(&meta, MAX_METADATA_BYTES).await {
            Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
                .ok()
                .and_then(|v| v.get("prompt")?.as_str().map(str::to_owned)),
            Err(_) => None,
        };
        Ok(VideoSource { key, prompt })
    }

    /// Checks that every input is in the job's project, and takes from a parent video what the
    /// job inherits: an extend is made at the source's size, a remix at its size and length.
    pub(super) async fn lineage(&self, new: &NewJob) -> Result<Lineage, JobError> {
        for input in &new.inputs {
            if let Input::Image(image) = input {
                match self
                    .references()
                    .get(&new.project_id, &image.reference)
                    .await
                {
                    Ok(_) => {}
                    Err(ReferenceError::NotFound) => {
                        return Err(JobError::NoSuchInput(format!(
                            "No reference image {} in this project",
                            image.reference
                        )))
                    }
                    Err(e) => return Err(JobError::Invalid(e.to_string())),
                }
            }
        }
        let mut lineage = Lineage {
            spec: new.spec,
            parent: None,
            parent_key: None,
            parent_prompt: None,
        };
        let Some(video) = inputs::video(&new.inputs) else {
            return Ok(lineage);
        };
        let source = self.video_source(&new.project_id, &video.video).await?;
        let info = self.track_info(&source.key).await?;
        lineage.spec.width = even_in_range(info.width);
        lineage.spec.height = even_in_range(info.height);
        if video.role == VideoRole::Remix {
            lineage.spec.seconds = (info.seconds.round() as u32).clamp(1, 20);
        }
        lineage.parent = Some(video.video.clone());
        lineage.parent_key = Some(source.key);
        lineage.parent_prompt = source.prompt;
        Ok(lineage)
    }

    /// The size and length of a stored video, read from its header.
    async fn track_info(&self, key: &str) -> Result<crate::frames::TrackInfo, JobError> {
        let storage = self.storage().clone();
        let size = storage
            .head(key)
            .await?
            .ok_or_else(|| JobError::NoSuchInput(format!("{key} is gone")))?
            .size_bytes;
        let video = crate::poster::Sparse::boxes(storage.as_ref(), key, size)
            .await
            .map_err(|e| JobError::Invalid(format!("The source video cannot be read: {e}")))?;
        tokio::task::spawn_blocking(move || crate::frames::track_info(video, size))
            .await
            .map_err(|e| JobError::Io(std::io::Error::other(e)))?
            .map_err(|e| JobError::Invalid(format!("The source video cannot be used: {e}")))
    }

    /// The pictures a job renders from, read from storage.
    pub(super) async fn shot(
        &self,
        record: &super::record::JobRecord,
    ) -> Result<Shot, EngineError> {
        let project = &record.project_id;
        let failed = |e: ReferenceError| EngineError::Inputs(e.to_string());
        let picture = |id: String| async move {
            self.references()
                .picture(project, &id)
                .await
                .map_err(failed)
        };
        let mut shot = Shot {
            fit: record.fit,
            ..Shot::default()
        };
        if let Some(first) = inputs::images(&record.inputs, ImageRole::FirstFrame).next() {
            shot.first = Some(picture(first.reference.clone()).await?);
        }
        if let Some(last) = inputs::images(&record.inputs, ImageRole::LastFrame).next() {
            shot.last = Some(picture(last.reference.clone()).await?);
        }
        for reference in inputs::images(&record.inputs, ImageRole::Reference) {
            shot.references
                .push(picture(reference.reference.clone()).await?);
        }
        if let (Some(video), Some(key)) = (inputs::video(&record.inputs), &record.parent_key) {
            match video.role {
                VideoRole::Extend => {
                    shot.first = Some(
                        self.references()
                            .frame(key, At::Last)
                            .await
                            .map_err(failed)?,
                    );
                }
                VideoRole::Remix => match &record.parent_prompt {
                    Some(prompt) => shot.layout_prompt = Some(prompt.clone()),
                    // Not made here: its opening picture sets the colours.
                    None => shot.references.push(
                        self.references()
                            .frame(key, At::First)
                            .await
                            .map_err(failed)?,
                    ),
                },
            }
        }
        Ok(shot)
    }
}
