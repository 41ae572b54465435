//! A project's sounds (music, voice-over): POST uploads one (its bytes as the body, its name in
//! `?name=`), GET lists them newest first, DELETE removes one no sequence uses.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::Json;
use futures_util::TryStreamExt;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, ApiQuery, PublicBase};
use super::AppState;
use crate::project::{ProjectFolder, ProjectId};
use crate::sequences;
use crate::sounds::decode::DecodeError;
use crate::sounds::{self, Sound, SoundError, MAX_NAME};

/// A sound as the API answers it.
#[derive(Serialize, ToSchema)]
pub struct SoundView {
    #[serde(flatten)]
    sound: Sound,
    /// Where the file is served (public, as library videos are).
    url: String,
}

impl SoundView {
    fn new(state: &AppState, base: &PublicBase, folder: &ProjectFolder, sound: Sound) -> Self {
        let url = base.url(state, &sound.key(folder));
        SoundView { sound, url }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SoundList {
    sounds: Vec<SoundView>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Named {
    /// What the sound is called in the project: 1 to 200 characters, not only white space
    /// (kept trimmed), no control characters; "Sound" when left out. The pattern spells out
    /// Rust's control characters and white space rather than `\s`, which JavaScript's and
    /// Python's regex engines read differently.
    #[param(
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\x00-\x1F\x7F-\x9F \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000][^\x00-\x1F\x7F-\x9F]*$"
    )]
    name: Option<String>,
}

impl From<SoundError> for ApiError {
    fn from(e: SoundError) -> Self {
        match e {
            SoundError::Decode(e @ DecodeError::NotSound(_)) => {
                ApiError::UnsupportedSound(e.to_string())
            }
            SoundError::Decode(e @ DecodeError::Damaged(_)) => {
                ApiError::Unprocessable(e.to_string())
            }
            SoundError::TooLarge => ApiError::PayloadTooLarge,
            e @ SoundError::Full => ApiError::Conflict(e.to_string()),
            SoundError::Storage(e) => e.into(),
        }
    }
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/sounds",
    tag = "sounds",
    params(("project_id" = String, Path), Named),
    request_body(
        description = "The sound file's bytes: WAV, FLAC, MP3, AAC/M4A or Ogg Vorbis (told by the bytes; Opus is not decoded here), at most 500 MB",
        content((Vec<u8> = "application/octet-stream")),
    ),
    responses(
        (status = 201, description = "The sound, decoded to its end and kept", body = SoundView),
        (status = 400, description = "Invalid project id or name", body = ErrorBody),
        (status = 409, description = "The project keeps 200 sounds already", body = ErrorBody),
        (status = 413, description = "Over 500 MB", body = ErrorBody),
        (status = 415, description = "Not a sound file this server reads: the message says why", body = ErrorBody),
        (status = 422, description = "A sound file that does not decode: the message says where", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
    ApiQuery(named): ApiQuery<Named>,
    request: Request,
) -> Result<(StatusCode, Json<SoundView>), ApiError> {
    let name = named.name.unwrap_or_else(|| "Sound".into());
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(ApiError::BadRequest(format!(
            "name must be 1 to {MAX_NAME} characters, none of them control characters"
        )));
    }
    let body = request
        .into_body()
        .into_data_stream()
        .map_err(std::io::Error::other);
    let folder = project.folder();
    let sound = sounds::upload(state.storage(), &folder, name.to_owned(), Box::pin(body)).await?;
    tracing::info!(project = %project, sound = %sound.id, seconds = sound.duration_s, "a sound");
    Ok((
        StatusCode::CREATED,
        Json(SoundView::new(&state, &base, &folder, sound)),
    ))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sounds",
    tag = "sounds",
    params(("project_id" = String, Path)),
    responses(
        (status = 200, description = "The project's sounds, newest first", body = SoundList),
        (status = 400, description = "Invalid project id", body = ErrorBody),
    ),
)]
pub async fn list(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
) -> Result<Json<SoundList>, ApiError> {
    let folder = project.folder();
    let sounds = sounds::list(state.storage().as_ref(), &folder)
        .await?
        .into_iter()
        .map(|s| SoundView::new(&state, &base, &folder, s))
        .collect();
    Ok(Json(SoundList { sounds }))
}

#[utoipa::path(
    delete,
    context_path = super::API,
    path = "/projects/{project_id}/sounds/{sound_id}",
    tag = "sounds",
    params(("project_id" = String, Path), ("sound_id" = String, Path)),
    responses(
        (status = 204, description = "Removed (exports made with it keep what they made)"),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sound in this project", body = ErrorBody),
        (status = 409, description = "A sequence's lanes use it: the message names them", body = ErrorBody),
    ),
)]
pub async fn remove(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
) -> Result<StatusCode, ApiError> {
    let storage = state.storage().as_ref();
    let folder = project.folder();
    let sound = sounds::get(storage, &folder, &id)
        .await?
        .ok_or_else(|| ApiError::NotFound("No such sound".into()))?;
    let users: Vec<String> = sequences::all(storage, &folder)
        .await?
        .into_iter()
        .filter(|s| s.lanes.uses(&sound.id))
        .map(|s| format!("\"{}\"", s.name))
        .collect();
    if !users.is_empty() {
        return Err(ApiError::Conflict(format!(
            "The sound is used by {}: take it out of their lanes first",
            users.join(", ")
        )));
    }
    sounds::remove(storage, &folder, &sound).await?;
    Ok(StatusCode::NO_CONTENT)
}
