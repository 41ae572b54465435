//! Where a job's inputs come from: reference images and videos of its own project (a library
//! file name or a finished job's id), checked when the job is created and read back as
//! pictures when it renders.

use super::record::{is_valid_id, JobRecord, Status};
use super::{JobError, JobService, NewJob};
use crate::engine::{fit_image, EngineError, Shot, VideoSpec};
use crate::frames::At;
use crate::project::ProjectFolder;
use crate::providers::inputs::{self, ImageRole, Input, VideoRole};
use crate::providers::{Picture, Pictures};
use crate::references::ReferenceError;

/// The largest `.json` metadata read for a parent's prompt.
const MAX_METADATA_BYTES: u64 = 256 * 1024;

/// A video of a project, found.
pub struct VideoSource {
    /// Its storage key.
    pub key: String,
    /// Its prompt, when known.
    pub prompt: Option<String>,
    /// The hosted provider that made it and that provider's id for it, when known.
    pub remote: Option<(String, String)>,
    /// Its size and length as its job or metadata states them (`None`: read the video).
    pub shape: Option<Shape>,
}

/// A video's size and length in whole seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub width: u32,
    pub height: u32,
    pub seconds: u32,
}

/// What a new job takes from its parent video.
pub struct Lineage {
    pub spec: VideoSpec,
    pub parent: Option<String>,
    pub parent_key: Option<String>,
    pub parent_prompt: Option<String>,
    pub parent_remote: Option<(String, String)>,
}

impl Lineage {
    /// A hosted model extends or remixes only a video its own provider made (it names that
    /// provider's id for it); the engine takes any.
    pub fn check_source(
        &self,
        model: &str,
        provider: &str,
        inputs: &[Input],
    ) -> Result<(), String> {
        let Some(video) = inputs::video(inputs) else {
            return Ok(());
        };
        let made_there = self
            .parent_remote
            .as_ref()
            .is_some_and(|(maker, _)| maker == provider);
        if provider != "local" && !made_there {
            let verb = match video.role {
                VideoRole::Extend => "extends",
                VideoRole::Remix => "remixes",
            };
            return Err(format!(
                "the model {model} {verb} only videos its provider made"
            ));
        }
        Ok(())
    }
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
            let remote = record.provider_job_id.map(|id| (record.provider, id));
            let shape = Shape {
                width: record.spec.width,
                height: record.spec.height,
                seconds: record.spec.seconds,
            };
            return Ok(VideoSource {
                key,
                prompt: Some(record.prompt),
                remote,
                shape: Some(shape),
            });
        }
        if !library_name(name) {
            return Err(missing());
        }
        let key = ProjectFolder::of(project).file(name);
        let storage = self.storage();
        storage.head(&key).await?.ok_or_else(missing)?;
        let meta = format!("{}.json", key.trim_end_matches(".mp4"));
        let metadata: serde_json::Value = match storage.read(&meta, MAX_METADATA_BYTES).await {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
            Err(_) => serde_json::Value::Null,
        };
        let text = |field: &str| metadata.get(field)?.as_str().map(str::to_owned);
        let size = text("size").and_then(|s| VideoSpec::parse_size(&s));
        let seconds = metadata.get("seconds").and_then(serde_json::Value::as_u64);
        let shape = size.zip(seconds).map(|((width, height), seconds)| Shape {
            width,
            height,
            seconds: u32::try_from(seconds).unwrap_or(u32::MAX),
        });
        Ok(VideoSource {
            key,
            prompt: text("prompt"),
            remote: text("provider").zip(text("provider_job_id")),
            shape,
        })
    }

    /// Checks that every input is in the job's project, and takes from a parent video what the
    /// job inherits: an extend is made at the source's size, a remix at its size and length.
    pub(super) async fn lineage(&self, new: &NewJob) -> Result<Lineage, JobError> {
        inputs::check_count(&new.inputs).map_err(JobError::Invalid)?;
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
            parent_remote: None,
        };
        let Some(video) = inputs::video(&new.inputs) else {
            return Ok(lineage);
        };
        let source = self.video_source(&new.project_id, &video.video).await?;
        let shape = match source.shape {
            Some(shape) => shape,
            None => self.shape(&source.key).await?,
        };
        lineage.spec.width = even_in_range(shape.width);
        lineage.spec.height = even_in_range(shape.height);
        if video.role == VideoRole::Remix {
            lineage.spec.seconds = shape.seconds.clamp(1, 20);
        }
        lineage.parent = Some(video.video.clone());
        lineage.parent_key = Some(source.key);
        lineage.parent_prompt = source.prompt;
        lineage.parent_remote = source.remote;
        Ok(lineage)
    }

    /// The size and length of a stored video, read from its header.
    async fn shape(&self, key: &str) -> Result<Shape, JobError> {
        let storage = self.storage().clone();
        let size = storage
            .head(key)
            .await?
            .ok_or_else(|| JobError::NoSuchInput(format!("{key} is gone")))?
            .size_bytes;
        let video = crate::poster::Sparse::boxes(storage.as_ref(), key, size)
            .await
            .map_err(|e| JobError::Invalid(format!("The source video cannot be read: {e}")))?;
        let info = tokio::task::spawn_blocking(move || crate::frames::track_info(video, size))
            .await
            .map_err(|e| JobError::Io(std::io::Error::other(e)))?
            .map_err(|e| JobError::Invalid(format!("The source video cannot be used: {e}")))?;
        Ok(Shape {
            width: info.width,
            height: info.height,
            seconds: info.seconds.round() as u32,
        })
    }

    /// A hosted job's pictures: its first and last frames fitted to its size and encoded, and
    /// the provider's id of the video it remixes.
    pub(super) async fn pictures(&self, record: &JobRecord) -> Result<Pictures, EngineError> {
        let spec = record.spec;
        let mut pictures = Pictures {
            seed: record.seed,
            ..Pictures::default()
        };
        if let (Some(video), Some((_, remote))) =
            (inputs::video(&record.inputs), &record.parent_remote)
        {
            match video.role {
                VideoRole::Remix => pictures.remix_of = Some(remote.clone()),
                VideoRole::Extend => pictures.extend_of = Some(remote.clone()),
            }
        }
        for role in [ImageRole::FirstFrame, ImageRole::LastFrame] {
            let Some(input) = inputs::images(&record.inputs, role).next() else {
                continue;
            };
            let fit = record.fit;
            let picture = self
                .sent_picture(&record.project_id, &input.reference, move |image| {
                    Picture::encode(&fit_image(&image, spec.width, spec.height, fit))
                })
                .await?;
            match role {
                ImageRole::FirstFrame => pictures.first = Some(picture),
                _ => pictures.last = Some(picture),
            }
        }
        for input in inputs::images(&record.inputs, ImageRole::Reference) {
            let picture = self
                .sent_picture(&record.project_id, &input.reference, |image| {
                    Picture::reference(&image)
                })
                .await?;
            pictures
                .references
                .push(picture.of_member(input.cast.clone()));
        }
        Ok(pictures)
    }

    /// A reference image of `project`, read and encoded for sending off the async threads.
    async fn sent_picture(
        &self,
        project: &str,
        id: &str,
        encode: impl FnOnce(image::RgbImage) -> Result<Picture, String> + Send + 'static,
    ) -> Result<Picture, EngineError> {
        let image = self
            .references()
            .picture(project, id)
            .await
            .map_err(|e| EngineError::Inputs(e.to_string()))?;
        tokio::task::spawn_blocking(move || encode(image))
            .await
            .map_err(|e| EngineError::Io(std::io::Error::other(e)))?
            .map_err(EngineError::Inputs)
    }

    /// The pictures a job renders from, read from storage.
    pub(super) async fn shot(&self, record: &JobRecord) -> Result<Shot, EngineError> {
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
            seed: record.seed.unwrap_or(0),
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
