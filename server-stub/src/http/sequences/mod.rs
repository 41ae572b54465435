//! A project's sequences: POST /api/projects/{projectId}/sequences makes one, GET lists them,
//! GET /sequences/{id} reads one whole, PUT changes it from the version it names (409 with the
//! current one when that is not the current version), DELETE removes it. Each change is a
//! `sequence` event on the project's stream.

mod bodies;
mod checks;
mod view;

use std::collections::HashSet;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

pub(super) use self::bodies::SequenceView;
use self::bodies::{NewSequence, SequenceChange, SequenceSummary, Sequences, ShotChange};
pub(super) use self::checks::library;
use self::checks::{check_format, check_name, checked_shots};
pub(super) use self::view::view;
use super::auth::Authorized;
use super::error::{ApiError, ConflictBody, ErrorBody};
use super::extract::{ApiPath, JsonBody};
use super::AppState;
use crate::clock::now;
use crate::project::{ProjectFolder, ProjectId};
use crate::project_events::Change;
use crate::sequences::lanes;
use crate::sequences::{self, frames, locked, new_id, Sequence, DEFAULT_SIZE, FPS_OFFERED};
use crate::sounds;
use crate::storage::Storage;

/// The largest sequence change accepted: a sequence at its limits (500 shots, each with its
/// label, prompt and up to 100 candidate takes) is about 2.5 MB of JSON. Every other route
/// keeps `BODY_LIMIT`.
pub const SEQUENCE_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// A job's shot link names a shot of one of the project's sequences (404 otherwise).
pub(super) async fn check_link(
    state: &AppState,
    project: &str,
    link: &sequences::ShotLink,
) -> Result<(), ApiError> {
    let storage = state.storage();
    let sequence = sequences::get(
        storage.as_ref(),
        &ProjectFolder::of(project),
        &link.sequence,
    )
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
    project: &ProjectId,
    link: &sequences::ShotLink,
    take: &str,
) {
    let storage = state.storage();
    let folder = project.folder();
    match sequences::join_take(
        storage.as_ref(),
        state.database(),
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

pub(super) fn announce(state: &AppState, project: &str, sequence: &Sequence, removed: bool) {
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
        (status = 200, description = "With `first`: the project already had a sequence, its most recently changed one", body = SequenceView),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 422, description = "A name, fps or size not offered", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
    JsonBody(body): JsonBody<NewSequence>,
) -> Result<(StatusCode, Json<SequenceView>), ApiError> {
    let first = body.first;
    let name = check_name(&body.name)?;
    let size = body.size.unwrap_or_else(|| DEFAULT_SIZE.to_owned());
    let fps = check_format(body.fps.unwrap_or(f64::from(FPS_OFFERED[0])), &size)?;
    let sequence = Sequence {
        id: new_id("seq"),
        name,
        fps,
        size,
        fit: body.fit.unwrap_or_default(),
        loudness: body.loudness.unwrap_or_default(),
        lanes: Default::default(),
        duck_db: crate::sequences::lanes::DUCK_DB,
        version: 1,
        shots: Vec::new(),
        updated_at: now(),
    };
    let storage = state.storage();
    let folder = project.folder();
    let make = async {
        sequences::put(storage.as_ref(), &folder, &sequence).await?;
        Ok(None)
    };
    // A first sequence is made under the project's own lock, so that of two made at once
    // one is made and the other is answered with it, on any servers: the listing is read
    // afresh under the lock, never from what this server kept of it.
    let existing = if first {
        locked::changing(state.database(), &project, "", async {
            storage.changed_elsewhere(&folder.sequences());
            match sequences::all(storage.as_ref(), &folder)
                .await?
                .into_iter()
                .next()
            {
                Some(existing) => Ok(Some(existing)),
                None => make.await,
            }
        })
        .await?
    } else {
        make.await?
    };
    if let Some(existing) = existing {
        let saved = library(storage.as_ref(), &folder).await?;
        return Ok((StatusCode::OK, Json(view(existing, &saved))));
    }
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
    ApiPath(project): ApiPath<ProjectId>,
) -> Result<Json<Sequences>, ApiError> {
    let storage = state.storage();
    let all = sequences::all(storage.as_ref(), &project.folder()).await?;
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
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
) -> Result<Json<SequenceView>, ApiError> {
    let storage = state.storage();
    let folder = project.folder();
    let sequence = sequences::get(storage.as_ref(), &folder, &id)
        .await?
        .ok_or_else(no_such)?;
    Ok(Json(view(
        sequence,
        &library(storage.as_ref(), &folder).await?,
    )))
}

pub(in crate::http) fn no_such() -> ApiError {
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
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
    JsonBody(body): JsonBody<SequenceChange, SEQUENCE_BODY_LIMIT>,
) -> Result<Response, ApiError> {
    let storage = state.storage();
    let folder = project.folder();
    let version = body.version;
    let changed = locked::changing(state.database(), &project, &id, async {
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
    folder: &ProjectFolder,
    saved: &HashSet<String>,
    change: SequenceChange,
    current: Sequence,
) -> Result<Sequence, ApiError> {
    let name = check_name(&change.name)?;
    let fps = check_format(change.fps, &change.size)?;
    let shots = checked_shots(storage, folder, saved, fps, change.shots, &current).await?;
    let lanes = match change.lanes {
        Some(given) => {
            let any = !(given.music.is_empty() && given.voice.is_empty());
            let sounds = sounds::by_id(storage, folder, any).await?;
            lanes::checked(given, fps, &sounds).map_err(ApiError::Unprocessable)?
        }
        None => current.lanes.at_rate(current.fps, fps),
    };
    let duck_db = change
        .duck_db
        .map(lanes::checked_duck)
        .transpose()
        .map_err(ApiError::Unprocessable)?
        .unwrap_or(current.duck_db);
    Ok(Sequence {
        name,
        fps,
        size: change.size,
        fit: change.fit,
        loudness: change.loudness.unwrap_or(current.loudness),
        lanes,
        duck_db,
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
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
) -> Result<StatusCode, ApiError> {
    let storage = state.storage();
    let folder = project.folder();
    let removed = locked::changing(state.database(), &project, &id, async {
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
