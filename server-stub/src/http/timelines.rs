//! A sequence handed to an editor: GET /api/projects/{projectId}/sequences/{id}/timeline.otio,
//! `.xml` (Final Cut Pro 7 XML) and `.edl` (CMX 3600), written by `sequences::timeline`, and
//! `package.zip`, the three with the source videos under `media/`, where the timelines look
//! for them, and the captions as `captions.srt` when a shot has one. A shot whose take is not chosen, or no longer in the library, refuses the export
//! with 409 naming the shot.

use std::collections::{HashMap, HashSet};

use bytes::Bytes;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::archive::zip_response;
use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::ApiPath;
use super::sequences::{library, no_such};
use super::AppState;
use crate::project::ProjectId;
use crate::sequences::timeline::{self, Cut};
use crate::sequences::{captions, probe, Sequence};
use crate::sounds;
use crate::zip::{Entry, Source};

/// The three ways a timeline is written.
#[derive(Clone, Copy)]
enum Format {
    Otio,
    Xml,
    Edl,
}

impl Format {
    const ALL: [Format; 3] = [Format::Otio, Format::Xml, Format::Edl];

    fn extension(self) -> &'static str {
        match self {
            Format::Otio => "otio",
            Format::Xml => "xml",
            Format::Edl => "edl",
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::Otio => "application/json",
            Format::Xml => "application/xml",
            Format::Edl => "text/plain; charset=utf-8",
        }
    }

    fn write(self, cut: &Cut) -> String {
        match self {
            Format::Otio => timeline::otio::write(cut),
            Format::Xml => timeline::xmeml::write(cut),
            Format::Edl => timeline::edl::write(cut),
        }
    }
}

/// The sequence `id` of `project` as a cut for an editor: every chosen take in the library,
/// with the lengths its metadata gives, and its lanes' clips.
async fn cut(state: &AppState, project: &ProjectId, id: &str) -> Result<(Sequence, Cut), ApiError> {
    let (sequence, cut) = sequence_cut(state, project, id).await?;
    let folder = project.folder();
    let sounds = sounds::by_id(
        state.storage().as_ref(),
        &folder,
        !sequence.lanes.is_empty(),
    )
    .await?;
    let cut = cut.with_lanes(&sequence, &sounds, &folder);
    Ok((sequence, cut))
}

/// The sequence `id` of `project`, and its cut.
pub(super) async fn sequence_cut(
    state: &AppState,
    project: &ProjectId,
    id: &str,
) -> Result<(Sequence, Cut), ApiError> {
    let storage = state.storage();
    let folder = project.folder();
    let sequence = crate::sequences::get(storage.as_ref(), &folder, id)
        .await?
        .ok_or_else(no_such)?;
    let saved = library(storage.as_ref(), &folder).await?;
    let mut sources = HashMap::new();
    for take in sequence.shots.iter().filter_map(|s| s.take.as_ref()) {
        if saved.contains(take) && !sources.contains_key(take) {
            if let Some(source) =
                probe::take_file(storage.as_ref(), &folder, take, sequence.fps).await
            {
                sources.insert(take.clone(), source);
            }
        }
    }
    let cut = Cut::new(&sequence, &|take| saved.contains(take), &sources)
        .map_err(|e| ApiError::Conflict(e.to_string()))?;
    Ok((sequence, cut))
}

/// A file name for the download: the sequence's name with only letters, digits, spaces, `-`
/// and `_` kept, and `extension`.
fn file_name(name: &str, extension: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_') => c,
            _ => '_',
        })
        .collect();
    format!("{}.{extension}", stem.trim())
}

async fn answer(
    state: &AppState,
    (project, id): (ProjectId, String),
    format: Format,
) -> Result<Response, ApiError> {
    let (_, cut) = cut(state, &project, &id).await?;
    Ok(attachment(
        &cut.name,
        format.extension(),
        format.content_type(),
        format.write(&cut),
    ))
}

/// `body` as a download named after the sequence `name`, of `content_type`.
pub(super) fn attachment(
    name: &str,
    extension: &str,
    content_type: &str,
    body: String,
) -> Response {
    let disposition = format!("attachment; filename=\"{}\"", file_name(name, extension));
    (
        [
            (header::CONTENT_TYPE, content_type.to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response()
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}/timeline.otio",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    responses(
        (status = 200, description = "The cut as an OpenTimelineIO timeline: one video track, each clip with its source range at its file's own rate and its file under `media/`, and an audio track for each lane with clips (its gain in the clip's metadata)", content_type = "application/json", body = Object),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
        (status = 409, description = "A shot has no take chosen, or its take is no longer in the library: the message names the shot", body = ErrorBody),
    ),
)]
pub async fn otio(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(path): ApiPath<(ProjectId, String)>,
) -> Result<Response, ApiError> {
    answer(&state, path, Format::Otio).await
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}/timeline.xml",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    responses(
        (status = 200, description = "The cut as Final Cut Pro 7 XML (xmeml 4), which Premiere Pro and DaVinci Resolve import: a video track, and an audio track for each lane with clips (its gain as Audio Levels)", content_type = "application/xml", body = String),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
        (status = 409, description = "A shot has no take chosen, or its take is no longer in the library: the message names the shot", body = ErrorBody),
    ),
)]
pub async fn xml(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(path): ApiPath<(ProjectId, String)>,
) -> Result<Response, ApiError> {
    answer(&state, path, Format::Xml).await
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}/timeline.edl",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    responses(
        (status = 200, description = "The cut as a CMX 3600 EDL (non-drop timecode: the source side at each file's own rate, the record side at the sequence's from 01:00:00:00)", content_type = "text/plain", body = String),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
        (status = 409, description = "A shot has no take chosen, or its take is no longer in the library: the message names the shot", body = ErrorBody),
    ),
)]
pub async fn edl(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(path): ApiPath<(ProjectId, String)>,
) -> Result<Response, ApiError> {
    answer(&state, path, Format::Edl).await
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}/package.zip",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    responses(
        (status = 200, description = "The cut for an editor: timeline.otio, timeline.xml and timeline.edl, captions.srt when a shot has a caption, and every source video and lane sound under media/ where they look for it (`:` in names becomes `_`, and a name taken already gets `-2`, `-3` ...), stored without compression", content_type = "application/zip", body = Vec<u8>),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
        (status = 409, description = "A shot has no take chosen, or its take is no longer in the library: the message names the shot", body = ErrorBody),
        (status = 422, description = "The source videos come to more than 4 GiB", body = ErrorBody),
    ),
)]
pub async fn package(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
) -> Result<Response, ApiError> {
    let (sequence, cut) = cut(&state, &project, &id).await?;
    let storage = state.storage();
    let folder = project.folder();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let mut entries: Vec<Entry> = Format::ALL
        .into_iter()
        .map(|f| {
            let name = format!("timeline.{}", f.extension());
            Entry::made(name, Bytes::from(f.write(&cut)), now)
        })
        .collect();
    if !captions::cues(&sequence).is_empty() {
        let srt = Bytes::from(captions::srt(&sequence));
        entries.push(Entry::made("captions.srt".into(), srt, now));
    }
    let mut packed = HashSet::new();
    for clip in &cut.clips {
        if !packed.insert(clip.file_name.as_str()) {
            continue;
        }
        let key = folder.file(&clip.file_name);
        // Deleted since the cut was read: refused as the cut would have been.
        let gone = || ApiError::Conflict(format!("{} is no longer in the library", clip.file_name));
        let video = storage.head(&key).await?.ok_or_else(gone)?;
        entries.push(Entry {
            name: clip.path(),
            source: Source::Stored(key),
            size: video.size_bytes,
            modified: video.modified,
        });
    }
    for clip in &cut.audio {
        if !packed.insert(clip.key.as_str()) {
            continue;
        }
        entries.push(Entry {
            name: clip.path(),
            source: Source::Stored(clip.key.clone()),
            size: clip.size_bytes,
            modified: now,
        });
    }
    tracing::info!(project = %project, sequence = %id, files = entries.len(), "a sequence package");
    zip_response(
        storage.clone(),
        entries,
        &file_name(&cut.name, "zip"),
        "the sequence's videos come to more than 4 GiB",
    )
}
