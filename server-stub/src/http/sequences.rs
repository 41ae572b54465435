//! A project's sequences: POST /api/projects/{projectId}/sequences makes one, GET lists them,
//! GET /sequences/{id} reads one whole, PUT changes it from the version it names (409 with the
//! current one when that is not the current version), DELETE removes it. Each change is a
//! `sequence` event on the project's stream.

use std::collections::HashSet;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::assets::valid_file_name;
use super::auth::Authorized;
use super::error::{ApiError, ConflictBody, ErrorBody};
use super::extract::{ApiPath, JsonBody};
use super::{valid_project, AppState};
use crate::engine::Fit;
use crate::jobs::record::project_folder;
use crate::project_events::Change;
use crate::sequences::{
    self, frames, locked, new_id, now, valid_id, Sequence, Shot, DEFAULT_SIZE, FPS_OFFERED,
    MAX_LABEL, MAX_SHOTS, MAX_SHOT_TAKES,
};
use crate::storage::{Storage, StorageError};

/// A new sequence.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSequence {
    /// 1 to 200 characters, not only white space (kept trimmed).
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    name: String,
    /// 24, 25 or 30; 24 when left out (JSON's 25.0 is 25).
    #[schema(value_type = Option<i64>)]
    fps: Option<f64>,
    /// `WxH`, each side even and 128 to 1920; 1280x720 when left out.
    size: Option<String>,
    /// How a take of another shape fills the frame; crop when left out.
    fit: Option<Fit>,
}

/// A sequence as a PUT sends it: the whole of it, with the version it was made from. Fields
/// the server keeps (`id`, `duration_s`, `updated_at`, a shot's `take_missing`) may be sent
/// back as they were read; they are ignored.
#[derive(Deserialize, ToSchema)]
pub struct SequenceChange {
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    name: String,
    /// 24, 25 or 30 (JSON's 25.0 is 25).
    #[schema(value_type = i64)]
    fps: f64,
    size: String,
    fit: Fit,
    /// The version this change was made from.
    #[schema(value_type = i64, minimum = 0)]
    version: f64,
    /// In order, at most 500.
    #[schema(max_items = 500)]
    shots: Vec<ShotChange>,
}

/// A shot as a PUT sends it.
#[derive(Deserialize, ToSchema)]
pub struct ShotChange {
    /// Kept when given (letters, digits, `_` and `-`); made when left out.
    id: Option<String>,
    /// At most 200 characters: "Shot 3: close-up".
    #[schema(max_length = 200)]
    label: String,
    prompt: Option<String>,
    /// The candidate takes: file names of the project's library videos, at most 100 (a name
    /// given twice counts once).
    #[serde(default)]
    takes: Vec<String>,
    /// The chosen take; it joins `takes` when it is not there.
    take: Option<String>,
    /// Where the shot starts in its take, in seconds (kept as the nearest frame).
    #[schema(minimum = 0, maximum = 86400)]
    in_s: f64,
    /// Where it ends, after `in_s`.
    #[schema(minimum = 0, maximum = 86400)]
    out_s: f64,
}

/// A sequence whole.
#[derive(Serialize, ToSchema)]
pub struct SequenceView {
    id: String,
    name: String,
    fps: u32,
    size: String,
    fit: Fit,
    version: u64,
    shots: Vec<ShotView>,
    /// The shots' lengths added, in whole frames, as seconds.
    duration_s: f64,
    /// RFC 3339.
    updated_at: String,
}

/// A shot as read.
#[derive(Serialize, ToSchema)]
pub struct ShotView {
    id: String,
    label: String,
    prompt: Option<String>,
    takes: Vec<String>,
    take: Option<String>,
    in_s: f64,
    out_s: f64,
    /// The chosen take is no longer in the library: the shot keeps its place, and an export
    /// refuses until another take is chosen.
    take_missing: bool,
}

/// A sequence in the project's list.
#[derive(Serialize, ToSchema)]
pub struct SequenceSummary {
    id: String,
    name: String,
    version: u64,
    shot_count: usize,
    duration_s: f64,
    updated_at: String,
}

#[derive(Serialize, ToSchema)]
pub struct Sequences {
    /// Most recently changed first.
    sequences: Vec<SequenceSummary>,
}

/// The file names of the project's library videos.
pub(super) async fn library(
    storage: &dyn Storage,
    folder: &str,
) -> Result<HashSet<String>, StorageError> {
    Ok(storage
        .list(&format!("projects/{folder}/"))
        .await?
        .iter()
        .map(|o| crate::storage::file_name(&o.key))
        .filter(|name| name.ends_with(".mp4"))
        .map(str::to_owned)
        .collect())
}

fn view(sequence: Sequence, library: &HashSet<String>) -> SequenceView {
    let fps = sequence.fps;
    SequenceView {
        duration_s: frames::seconds(sequence.frames(), fps),
        shots: sequence
            .shots
            .into_iter()
            .map(|shot| ShotView {
                take_missing: shot.take.as_ref().is_some_and(|t| !library.contains(t)),
                in_s: frames::seconds(shot.in_frame, fps),
                out_s: frames::seconds(shot.out_frame, fps),
                id: shot.id,
                label: shot.label,
                prompt: shot.prompt,
                takes: shot.takes,
                take: shot.take,
            })
            .collect(),
        id: sequence.id,
        name: sequence.name,
        fps,
        size: sequence.size,
        fit: sequence.fit,
        version: sequence.version,
        updated_at: sequence.updated_at,
    }
}

fn check_name(name: &str) -> Result<String, ApiError> {
    if name.trim().is_empty() || name.chars().count() > MAX_LABEL {
        return Err(ApiError::Unprocessable(format!(
            "name must be 1 to {MAX_LABEL} characters"
        )));
    }
    Ok(name.trim().to_owned())
}

/// The frame rate `fps` names, when it is one offered; and `size`, checked.
fn check_format(fps: f64, size: &str) -> Result<u32, ApiError> {
    let Some(&fps) = FPS_OFFERED.iter().find(|&&f| f64::from(f) == fps) else {
        return Err(ApiError::Unprocessable(format!(
            "fps must be 24, 25 or 30, not {fps}"
        )));
    };
    if studio_core::video_size::parse(size).is_none() {
        return Err(ApiError::Unprocessable(format!(
            "size must be WxH, each side even and 128 to 1920, not {size}"
        )));
    }
    Ok(fps)
}

/// How long the library video `name` is, in seconds, when its metadata says.
pub(super) async fn length_of(storage: &dyn Storage, folder: &str, name: &str) -> Option<f64> {
    let stem = name.strip_suffix(".mp4")?;
    let bytes = storage
        .read(&format!("projects/{folder}/{stem}.json"), 64 * 1024)
        .await
        .ok()?;
    let metadata: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    metadata.get("seconds")?.as_f64()
}

/// The shots of a change, checked: each refusal names the shot. Takes and ends already in
/// `current` are not checked again (a take deleted since stays, and says it is missing).
async fn checked_shots(
    storage: &dyn Storage,
    folder: &str,
    saved: &HashSet<String>,
    fps: u32,
    shots: Vec<ShotChange>,
    current: &Sequence,
) -> Result<Vec<Shot>, ApiError> {
    if shots.len() > MAX_SHOTS {
        return Err(ApiError::Unprocessable(format!(
            "a sequence holds at most {MAX_SHOTS} shots, not {}",
            shots.len()
        )));
    }
    let mut ids = HashSet::new();
    let mut checked = Vec::with_capacity(shots.len());
    for (at, shot) in shots.into_iter().enumerate() {
        let named = format!("Shot {} (\"{}\")", at + 1, shot.label);
        let refuse = |why: String| Err(ApiError::Unprocessable(format!("{named}: {why}")));
        if shot.label.chars().count() > MAX_LABEL {
            return refuse(format!("the label is over {MAX_LABEL} characters"));
        }
        let id = match shot.id {
            Some(id) if !valid_id(&id) => return refuse(format!("{id} is not a shot id")),
            Some(id) => id,
            None => new_id("shot"),
        };
        if !ids.insert(id.clone()) {
            return refuse(format!("the id {id} is given twice"));
        }
        let before = current.shots.iter().find(|s| s.id == id);
        // Each take once, in the order given; the chosen one joins them when it is not there.
        let mut seen = HashSet::new();
        let takes: Vec<String> = shot
            .takes
            .into_iter()
            .chain(shot.take.clone())
            .filter(|t| seen.insert(t.clone()))
            .collect();
        if takes.len() > MAX_SHOT_TAKES {
            return refuse(format!(
                "a shot holds at most {MAX_SHOT_TAKES} takes, not {}",
                takes.len()
            ));
        }
        for take in &takes {
            let kept = before.is_some_and(|b| b.takes.contains(take));
            let saved_now = valid_file_name(take) && saved.contains(take);
            if !(kept || saved_now) {
                return refuse(format!("the take {take} is not in the project's library"));
            }
        }
        let (Some(in_frame), Some(out_frame)) = (
            frames::of_seconds(shot.in_s, fps),
            frames::of_seconds(shot.out_s, fps),
        ) else {
            return refuse("in_s and out_s must be seconds from 0".into());
        };
        if in_frame >= out_frame {
            return refuse("in_s must come before out_s by a frame or more".into());
        }
        let unchanged = before.is_some_and(|b| b.take == shot.take && b.out_frame == out_frame);
        if let (Some(take), false) = (&shot.take, unchanged) {
            if let Some(length) = length_of(storage, folder, take).await {
                if frames::seconds(out_frame, fps) > length + 0.5 / f64::from(fps) {
                    return refuse(format!("out_s is past the end of {take} ({length} s)"));
                }
            }
        }
        checked.push(Shot {
            id,
            label: shot.label,
            prompt: shot.prompt,
            takes,
            take: shot.take,
            in_frame,
            out_frame,
        });
    }
    Ok(checked)
}

/// A job's shot link names a shot of one of the project's sequences (404 otherwise).
pub(super) async fn check_link(
    state: &AppState,
    project: &str,
    link: &sequences::ShotLink,
) -> Result<(), ApiError> {
    let storage = state.jobs.storage();
    let sequence = sequences::get(storage.as_ref(), &project_folder(project), &link.sequence)
        .await?
        .ok_or_else(no_such)?;
    if !sequence.shots.iter().any(|s| s.id == link.shot) {
        return Err(ApiError::NotFound(format!(
            "No shot {} in the sequence {}",
            link.shot, link.sequence
        )));
    }
    Ok(())
}

/// A saved take joins its shot (see `sequences::join_take`); a failure is logged, since the
/// save itself is done.
pub(super) async fn join_take(
    state: &AppState,
    project: &str,
    link: &sequences::ShotLink,
    take: &str,
) {
    let storage = state.jobs.storage();
    let database = state.jobs.database();
    let folder = project_folder(project);
    match sequences::join_take(
        storage.as_ref(),
        database.as_ref(),
        project,
        &folder,
        link,
        take,
    )
    .await
    {
        Ok(Some(sequence)) => announce(state, project, &sequence, false),
        Ok(None) => {}
        Err(e) => {
            tracing::warn!(sequence = %link.sequence, shot = %link.shot, error = %e, "a saved take did not join its shot")
        }
    }
}

fn announce(state: &AppState, project: &str, sequence: &Sequence, removed: bool) {
    state.project_events().publish(
        project,
        Change::Sequence {
            id: sequence.id.clone(),
            version: sequence.version,
            removed,
        },
    );
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/sequences",
    tag = "sequences",
    params(("project_id" = String, Path)),
    request_body = NewSequence,
    responses(
        (status = 201, description = "The sequence, with no shots yet", body = SequenceView),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 422, description = "A name, fps or size not offered", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<String>,
    JsonBody(body): JsonBody<NewSequence>,
) -> Result<(StatusCode, Json<SequenceView>), ApiError> {
    valid_project(&project)?;
    let name = check_name(&body.name)?;
    let size = body.size.unwrap_or_else(|| DEFAULT_SIZE.to_owned());
    let fps = check_format(body.fps.unwrap_or(f64::from(FPS_OFFERED[0])), &size)?;
    let sequence = Sequence {
        id: new_id("seq"),
        name,
        fps,
        size,
        fit: body.fit.unwrap_or_default(),
        version: 1,
        shots: Vec::new(),
        updated_at: now(),
    };
    let storage = state.jobs.storage();
    sequences::put(storage.as_ref(), &project_folder(&project), &sequence).await?;
    tracing::info!(project = %project, sequence = %sequence.id, "made a sequence");
    announce(&state, &project, &sequence, false);
    Ok((StatusCode::CREATED, Json(view(sequence, &HashSet::new()))))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sequences",
    tag = "sequences",
    params(("project_id" = String, Path)),
    responses(
        (status = 200, description = "The project's sequences, most recently changed first", body = Sequences),
        (status = 400, description = "Invalid project id", body = ErrorBody),
    ),
)]
pub async fn list(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<String>,
) -> Result<Json<Sequences>, ApiError> {
    valid_project(&project)?;
    let storage = state.jobs.storage();
    let all = sequences::all(storage.as_ref(), &project_folder(&project)).await?;
    Ok(Json(Sequences {
        sequences: all
            .into_iter()
            .map(|s| SequenceSummary {
                duration_s: frames::seconds(s.frames(), s.fps),
                shot_count: s.shots.len(),
                id: s.id,
                name: s.name,
                version: s.version,
                updated_at: s.updated_at,
            })
            .collect(),
    }))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    responses(
        (status = 200, description = "The sequence whole", body = SequenceView),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
    ),
)]
pub async fn get(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(String, String)>,
) -> Result<Json<SequenceView>, ApiError> {
    valid_project(&project)?;
    let storage = state.jobs.storage();
    let folder = project_folder(&project);
    let sequence = sequences::get(storage.as_ref(), &folder, &id)
        .await?
        .ok_or_else(no_such)?;
    Ok(Json(view(
        sequence,
        &library(storage.as_ref(), &folder).await?,
    )))
}

pub(super) fn no_such() -> ApiError {
    ApiError::NotFound("No such sequence".into())
}

#[utoipa::path(
    put,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    request_body = SequenceChange,
    responses(
        (status = 200, description = "The sequence changed, at its next version", body = SequenceView),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
        (status = 409, description = "Made from another version: `{error, current}`, the sequence as it now is", body = ErrorBody),
        (status = 422, description = "A refusal that names the shot: a take not in the library, points outside the take or out of order, more than 500 shots, a label over 200 characters; or an fps or size not offered", body = ErrorBody),
    ),
)]
pub async fn put(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(String, String)>,
    JsonBody(body): JsonBody<SequenceChange>,
) -> Result<Response, ApiError> {
    valid_project(&project)?;
    let storage = state.jobs.storage();
    let folder = project_folder(&project);
    let database = state.jobs.database();
    let version = body.version;
    let changed = locked::changing(database.as_ref(), &project, &id, async {
        let Some(current) = sequences::get(storage.as_ref(), &folder, &id).await? else {
            return Ok(Changed::Refused(no_such()));
        };
        let saved = library(storage.as_ref(), &folder).await?;
        if current.version as f64 != version {
            return Ok(Changed::Stale(current, saved));
        }
        match next_version(storage.as_ref(), &folder, &saved, body, current).await {
            Ok(next) => {
                sequences::put(storage.as_ref(), &folder, &next).await?;
                Ok(Changed::Made(next, saved))
            }
            Err(refused) => Ok(Changed::Refused(refused)),
        }
    })
    .await?;
    match changed {
        Changed::Made(next, saved) => {
            announce(&state, &project, &next, false);
            Ok(Json(view(next, &saved)).into_response())
        }
        Changed::Stale(current, saved) => Ok(ConflictBody::response(
            format!(
                "The sequence is at version {}, not {version}: it was changed elsewhere",
                current.version
            ),
            view(current, &saved),
        )),
        Changed::Refused(refused) => Err(refused),
    }
}

/// `current` as `change` makes it, checked, at its next version.
async fn next_version(
    storage: &dyn Storage,
    folder: &str,
    saved: &HashSet<String>,
    change: SequenceChange,
    current: Sequence,
) -> Result<Sequence, ApiError> {
    let name = check_name(&change.name)?;
    let fps = check_format(change.fps, &change.size)?;
    let shots = checked_shots(storage, folder, saved, fps, change.shots, &current).await?;
    Ok(Sequence {
        name,
        fps,
        size: change.size,
        fit: change.fit,
        version: current.version + 1,
        shots,
        updated_at: now(),
        id: current.id,
    })
}

/// What became of a change, decided under the sequence's lock.
enum Changed {
    /// Written, at its next version (with the library it was checked against).
    Made(Sequence, HashSet<String>),
    /// Made from another version than this current one.
    Stale(Sequence, HashSet<String>),
    Refused(ApiError),
}

#[utoipa::path(
    delete,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    responses(
        (status = 204, description = "Removed"),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
    ),
)]
pub async fn remove(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(String, String)>,
) -> Result<StatusCode, ApiError> {
    valid_project(&project)?;
    let storage = state.jobs.storage();
    let folder = project_folder(&project);
    let database = state.jobs.database();
    let removed = locked::changing(database.as_ref(), &project, &id, async {
        let Some(current) = sequences::get(storage.as_ref(), &folder, &id).await? else {
            return Ok(None);
        };
        sequences::remove(storage.as_ref(), &folder, &id).await?;
        Ok(Some(current))
    })
    .await?
    .ok_or_else(no_such)?;
    tracing::info!(project = %project, sequence = %id, "removed a sequence");
    announce(&state, &project, &removed, true);
    Ok(StatusCode::NO_CONTENT)
}
