//! A project's reference images: POST uploads a picture (its bytes as the body) or grabs a
//! frame of a project's video (a JSON body), GET lists them newest first, DELETE removes one.

use axum::extract::{FromRequest, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, JsonBody, PublicBase};
use super::AppState;
use crate::project::ProjectId;
use crate::references::probe::{ProbeError, MAX_BYTES};
use crate::references::{Moment, Reference, ReferenceError, Source};

/// A reference image as the API answers it.
#[derive(Serialize, ToSchema)]
pub struct ReferenceView {
    #[serde(flatten)]
    reference: Reference,
    /// Where the image is served (public, as library videos are).
    url: String,
}

impl ReferenceView {
    fn new(state: &AppState, base: &PublicBase, project: &str, reference: Reference) -> Self {
        let url = base.url(state, &reference.key(project));
        ReferenceView { reference, url }
    }
}

#[derive(Serialize, ToSchema)]
pub struct ReferenceList {
    references: Vec<ReferenceView>,
}

/// A frame to grab: of a library video (its file name) or a finished job (its id).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Grab {
    #[schema(min_length = 1, max_length = 200)]
    from_video: String,
    /// `"first"`, `"last"` or seconds from the start.
    at: Moment,
}

impl From<ReferenceError> for ApiError {
    fn from(e: ReferenceError) -> Self {
        match e {
            ReferenceError::NotFound => ApiError::NotFound("No such reference image".into()),
            ReferenceError::Probe(ProbeError::NotAnImage) => ApiError::UnsupportedImage,
            ReferenceError::Probe(ProbeError::TooLarge) => ApiError::PayloadTooLarge,
            ReferenceError::Probe(ProbeError::Refused(m)) => ApiError::Unprocessable(m),
            e @ ReferenceError::Frame(_) => ApiError::Unprocessable(e.to_string()),
            e @ ReferenceError::Full => ApiError::Conflict(e.to_string()),
            ReferenceError::Storage(e) => e.into(),
        }
    }
}

fn is_json(request: &Request) -> bool {
    request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/references",
    tag = "references",
    params(("project_id" = String, Path)),
    request_body(
        description = "The image's bytes (PNG, JPEG or WebP, told by the bytes; at most 20 MB, sides 64 to 8192 px, at most 40 megapixels), or a JSON `Grab` to take a frame of a video as a PNG",
        content(
            (Grab = "application/json"),
            (Vec<u8> = "image/png"),
            (Vec<u8> = "image/jpeg"),
            (Vec<u8> = "image/webp"),
        ),
    ),
    responses(
        (status = 201, description = "The reference image, kept", body = ReferenceView),
        (status = 404, description = "No such video in this project", body = ErrorBody),
        (status = 409, description = "The job is not finished, or the project keeps 200 reference images already", body = ErrorBody),
        (status = 413, description = "Over 20 MB", body = ErrorBody),
        (status = 415, description = "Not a PNG, JPEG or WebP image", body = ErrorBody),
        (status = 422, description = "Outside the size limits, damaged, or no frame at that moment", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
    request: Request,
) -> Result<(StatusCode, Json<ReferenceView>), ApiError> {
    let references = state.references();
    let reference = if is_json(&request) {
        let JsonBody(grab) = JsonBody::<Grab>::from_request(request, &state).await?;
        let video = state.jobs.video_source(&project, &grab.from_video).await?;
        let source = Source {
            from_video: grab.from_video,
            at: grab.at,
        };
        references.grab(&project, &video.key, source).await?
    } else {
        let bytes = axum::body::to_bytes(request.into_body(), MAX_BYTES)
            .await
            .map_err(|_| ApiError::PayloadTooLarge)?;
        references.upload(&project, bytes).await?
    };
    Ok((
        StatusCode::CREATED,
        Json(ReferenceView::new(&state, &base, &project, reference)),
    ))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/references",
    tag = "references",
    params(("project_id" = String, Path)),
    responses(
        (status = 200, description = "The project's reference images, newest first", body = ReferenceList),
    ),
)]
pub async fn list(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
) -> Result<Json<ReferenceList>, ApiError> {
    let references = state
        .references()
        .list(&project)
        .await?
        .into_iter()
        .map(|r| ReferenceView::new(&state, &base, &project, r))
        .collect();
    Ok(Json(ReferenceList { references }))
}

#[utoipa::path(
    delete,
    context_path = super::API,
    path = "/projects/{project_id}/references/{reference_id}",
    tag = "references",
    params(("project_id" = String, Path), ("reference_id" = String, Path)),
    responses(
        (status = 204, description = "Removed (jobs made from it keep what they made)"),
        (status = 404, description = "No such reference image", body = ErrorBody),
    ),
)]
pub async fn remove(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
) -> Result<StatusCode, ApiError> {
    state.references().delete(&project, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
