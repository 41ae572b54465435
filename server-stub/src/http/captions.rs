//! A sequence's captions as a file: GET /api/projects/{projectId}/sequences/{id}/captions.srt
//! (SubRip) and `captions.vtt` (WebVTT), written by `sequences::captions` at the cut's times.
//! A sequence with no caption answers a file with no cue.

use axum::extract::State;
use axum::response::Response;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::ApiPath;
use super::sequences::no_such;
use super::timelines::attachment;
use super::AppState;
use crate::project::ProjectId;
use crate::sequences::{self, captions, Sequence};

async fn answer(
    state: &AppState,
    (project, id): (ProjectId, String),
    extension: &str,
    content_type: &str,
    write: fn(&Sequence) -> String,
) -> Result<Response, ApiError> {
    let sequence = sequences::get(state.storage().as_ref(), &project.folder(), &id)
        .await?
        .ok_or_else(no_such)?;
    Ok(attachment(
        &sequence.name,
        extension,
        content_type,
        write(&sequence),
    ))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}/captions.srt",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    responses(
        (status = 200, description = "The shots' captions as SubRip, at the cut's times: each the part of its range its shot shows, none across a cut", content_type = "application/x-subrip", body = String),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
    ),
)]
pub async fn srt(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(path): ApiPath<(ProjectId, String)>,
) -> Result<Response, ApiError> {
    answer(
        &state,
        path,
        "srt",
        "application/x-subrip; charset=utf-8",
        captions::srt,
    )
    .await
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}/captions.vtt",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    responses(
        (status = 200, description = "The shots' captions as WebVTT, at the cut's times, a speaker named in capitals (`MARY: line`) as the cue's voice", content_type = "text/vtt", body = String),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
    ),
)]
pub async fn vtt(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(path): ApiPath<(ProjectId, String)>,
) -> Result<Response, ApiError> {
    answer(
        &state,
        path,
        "vtt",
        "text/vtt; charset=utf-8",
        captions::vtt,
    )
    .await
}
