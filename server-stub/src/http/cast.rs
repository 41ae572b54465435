//! A project's cast: POST adds a member, GET lists them by name, GET/PUT/DELETE
//! `/cast/{cast_id}` read, change (the whole member) and remove one.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, JsonBody};
use super::AppState;
use crate::cast::{self, CastError, Draft, Kind, Member};
use crate::project::ProjectId;
use crate::references::ReferenceError;

/// A member as a create or change sends it.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MemberBody {
    /// One word of 1 to 40 letters, digits, `-` or `_`, unique in the project regardless of
    /// case: prompts mention the member as `@Name`.
    #[schema(min_length = 1, max_length = 40, pattern = r"^[\p{L}\p{N}_-]{1,40}$")]
    name: String,
    kind: Kind,
    /// At most 2000 characters (kept trimmed; blank is none).
    #[serde(default)]
    #[schema(max_length = 2000)]
    description: Option<String>,
    /// Ids of the project's reference images, at most 8 (one given twice counts once).
    #[serde(default)]
    #[schema(max_items = 8)]
    references: Vec<String>,
}

#[derive(Serialize, ToSchema)]
pub struct CastList {
    /// By name, case aside.
    cast: Vec<Member>,
}

impl From<CastError> for ApiError {
    fn from(e: CastError) -> Self {
        match e {
            CastError::NotFound => ApiError::NotFound(e.to_string()),
            CastError::Invalid(message) => ApiError::Unprocessable(message),
            e @ (CastError::Taken(_) | CastError::Full) => ApiError::Conflict(e.to_string()),
            e @ (CastError::Damaged(..) | CastError::Database(_)) => {
                ApiError::Internal(e.to_string())
            }
            CastError::Storage(e) => e.into(),
        }
    }
}

/// The body as a draft whose pictures are all the project's (422 naming one that is not).
async fn draft(state: &AppState, project: &ProjectId, body: MemberBody) -> Result<Draft, ApiError> {
    let draft = Draft {
        name: body.name,
        kind: body.kind,
        description: body.description,
        references: body.references,
    }
    .checked()?;
    for reference in &draft.references {
        match state.references().get(project, reference).await {
            Ok(_) => {}
            Err(ReferenceError::NotFound) => {
                return Err(ApiError::Unprocessable(format!(
                    "the reference image {reference} is not in this project"
                )))
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(draft)
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/cast",
    tag = "cast",
    params(("project_id" = String, Path)),
    request_body = MemberBody,
    responses(
        (status = 201, description = "The member, added", body = Member),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 409, description = "The name is taken (case aside), or the cast holds 200 members", body = ErrorBody),
        (status = 422, description = "A name, description or reference that breaks a rule: the message names it", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
    JsonBody(body): JsonBody<MemberBody>,
) -> Result<(StatusCode, Json<Member>), ApiError> {
    let draft = draft(&state, &project, body).await?;
    let storage = state.storage().as_ref();
    let member = cast::create(storage, state.database(), &project.folder(), draft).await?;
    Ok((StatusCode::CREATED, Json(member)))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/cast",
    tag = "cast",
    params(("project_id" = String, Path)),
    responses(
        (status = 200, description = "The project's cast", body = CastList),
        (status = 400, description = "Invalid project id", body = ErrorBody),
    ),
)]
pub async fn list(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
) -> Result<Json<CastList>, ApiError> {
    let cast = cast::list(state.storage().as_ref(), &project.folder()).await?;
    Ok(Json(CastList { cast }))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/cast/{cast_id}",
    tag = "cast",
    params(("project_id" = String, Path), ("cast_id" = String, Path)),
    responses(
        (status = 200, description = "The member", body = Member),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such member in this project", body = ErrorBody),
    ),
)]
pub async fn get(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
) -> Result<Json<Member>, ApiError> {
    let member = cast::get(state.storage().as_ref(), &project.folder(), &id)
        .await?
        .ok_or(CastError::NotFound)?;
    Ok(Json(member))
}

#[utoipa::path(
    put,
    context_path = super::API,
    path = "/projects/{project_id}/cast/{cast_id}",
    tag = "cast",
    params(("project_id" = String, Path), ("cast_id" = String, Path)),
    request_body = MemberBody,
    responses(
        (status = 200, description = "The member, changed", body = Member),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 404, description = "No such member in this project", body = ErrorBody),
        (status = 409, description = "Another member has the name (case aside)", body = ErrorBody),
        (status = 422, description = "A name, description or reference that breaks a rule: the message names it", body = ErrorBody),
    ),
)]
pub async fn put(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
    JsonBody(body): JsonBody<MemberBody>,
) -> Result<Json<Member>, ApiError> {
    let draft = draft(&state, &project, body).await?;
    let storage = state.storage().as_ref();
    let member = cast::update(storage, state.database(), &project.folder(), &id, draft).await?;
    Ok(Json(member))
}

#[utoipa::path(
    delete,
    context_path = super::API,
    path = "/projects/{project_id}/cast/{cast_id}",
    tag = "cast",
    params(("project_id" = String, Path), ("cast_id" = String, Path)),
    responses(
        (status = 204, description = "Removed (jobs made with its pictures keep them)"),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such member in this project", body = ErrorBody),
    ),
)]
pub async fn remove(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
) -> Result<StatusCode, ApiError> {
    let storage = state.storage().as_ref();
    cast::remove(storage, state.database(), &project.folder(), &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
