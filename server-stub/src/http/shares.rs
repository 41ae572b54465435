//! The studio's side of review links: POST /api/projects/{projectId}/shares makes a link to some
//! of the project's videos, GET lists the links with what reviewers said, DELETE revokes one.

use std::collections::HashSet;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::assets::valid_file_name;
use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, JsonBody, PublicBase};
use super::text_fields::one_line;
use super::AppState;
use crate::project::ProjectId;
use crate::reviews::{self, Note, ReviewComment, ReviewDecision, Share};

/// The most videos one link shares.
pub const MAX_SHARED: usize = 50;
/// How long a link lives unless told: 72 hours.
const DEFAULT_HOURS: f64 = 72.0;
/// The longest a link lives: 30 days.
const MAX_HOURS: f64 = 720.0;
/// A review link's title, its page's heading: 1 to 120 characters.
const TITLE_MAX: usize = 120;

/// A new review link.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewShare {
    /// File names of the project's saved videos, 1 to 50.
    #[schema(min_items = 1, max_items = 50)]
    videos: Vec<String>,
    /// 1 to 720; 72 when left out.
    #[schema(minimum = 1, maximum = 720, value_type = Option<u32>)]
    expires_in_hours: Option<f64>,
    /// Whether reviewers may comment (they may always approve or request changes). True when
    /// left out.
    #[serde(default = "yes")]
    comments: bool,
    /// What the link's page shows as its heading: 1 to 120 characters (not all spaces) on one
    /// line, with no text-direction controls.
    #[schema(
        min_length = 1,
        max_length = 120,
        pattern = "^[^\\x00-\\x1F\\x7F-\\x9F\\u061C\\u200E\\u200F\\u2028-\\u202E\\u2066-\\u2069]*$"
    )]
    #[serde(default)]
    title: Option<String>,
}

fn yes() -> bool {
    true
}

/// A link made: the `url` holds the token and is shown only this once.
#[derive(Serialize, ToSchema)]
pub struct ShareCreated {
    id: String,
    /// `<public base>/review/<token>`.
    url: String,
    /// RFC 3339.
    expires_at: String,
}

/// A link as the studio sees it, with what its reviewers said.
#[derive(Serialize, ToSchema)]
pub struct ShareView {
    id: String,
    /// The link's title, when it was given one.
    title: Option<String>,
    videos: Vec<String>,
    /// Whether reviewers may comment.
    comments_enabled: bool,
    created_at: String,
    expires_at: String,
    /// Past `expires_at`: the link opens nothing.
    expired: bool,
    /// Oldest first.
    comments: Vec<ReviewComment>,
    /// Oldest first.
    decisions: Vec<ReviewDecision>,
}

#[derive(Serialize, ToSchema)]
pub struct Shares {
    /// Newest first.
    shares: Vec<ShareView>,
}

/// A share with its notes split into comments and decisions.
pub(super) fn split(notes: Vec<Note>) -> (Vec<ReviewComment>, Vec<ReviewDecision>) {
    let mut comments = Vec::new();
    let mut decisions = Vec::new();
    for note in notes {
        match note {
            Note::Comment(c) => comments.push(c),
            Note::Decision(d) => decisions.push(d),
        }
    }
    (comments, decisions)
}

async fn view(state: &AppState, share: Share) -> Result<ShareView, ApiError> {
    let notes = reviews::notes(state.storage().as_ref(), &share.id).await?;
    let (comments, decisions) = split(notes);
    Ok(ShareView {
        expired: share.expired(),
        id: share.id,
        title: share.title,
        videos: share.videos,
        comments_enabled: share.comments,
        created_at: share.created_at,
        expires_at: share.expires_at,
        comments,
        decisions,
    })
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/shares",
    tag = "reviews",
    params(("project_id" = String, Path)),
    request_body = NewShare,
    responses(
        (status = 201, description = "The link; its url is shown only now", body = ShareCreated),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 404, description = "A named video is not in the project's library", body = ErrorBody),
        (status = 422, description = "No videos, too many, or an expiry outside 1 to 720 hours", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
    JsonBody(body): JsonBody<NewShare>,
) -> Result<(StatusCode, Json<ShareCreated>), ApiError> {
    let title = body
        .title
        .as_deref()
        .map(|title| one_line("title", title, TITLE_MAX))
        .transpose()?;
    let hours = body.expires_in_hours.unwrap_or(DEFAULT_HOURS);
    if hours.fract() != 0.0 || !(1.0..=MAX_HOURS).contains(&hours) {
        return Err(ApiError::Unprocessable(
            "expires_in_hours must be a whole number from 1 to 720".into(),
        ));
    }
    let mut seen = HashSet::new();
    let videos: Vec<String> = body
        .videos
        .into_iter()
        .filter(|v| seen.insert(v.clone()))
        .collect();
    if videos.is_empty() || videos.len() > MAX_SHARED {
        return Err(ApiError::Unprocessable(format!(
            "videos must name 1 to {MAX_SHARED} saved videos"
        )));
    }
    let folder = project.folder();
    let storage = state.storage();
    for name in &videos {
        let saved = name.ends_with(".mp4")
            && valid_file_name(name)
            && storage.head(&folder.file(name)).await?.is_some();
        if !saved {
            return Err(ApiError::NotFound(format!("No such video: {name}")));
        }
    }
    let (share, token) = reviews::create(
        storage.as_ref(),
        &project,
        &folder,
        videos,
        hours as u32,
        body.comments,
        title,
    )
    .await?;
    tracing::info!(project = %project, share = %share.id, videos = share.videos.len(), "shared for review");
    Ok((
        StatusCode::CREATED,
        Json(ShareCreated {
            url: format!("{}/review/{token}", base.0),
            id: share.id,
            expires_at: share.expires_at,
        }),
    ))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/shares",
    tag = "reviews",
    params(("project_id" = String, Path)),
    responses(
        (status = 200, description = "The project's review links, newest first, with their comments and decisions", body = Shares),
        (status = 400, description = "Invalid project id", body = ErrorBody),
    ),
)]
pub async fn list(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
) -> Result<Json<Shares>, ApiError> {
    let storage = state.storage();
    let mut shares = Vec::new();
    for share in reviews::of_project(storage.as_ref(), &project, &project.folder()).await? {
        shares.push(view(&state, share).await?);
    }
    Ok(Json(Shares { shares }))
}

#[utoipa::path(
    delete,
    context_path = super::API,
    path = "/projects/{project_id}/shares/{share_id}",
    tag = "reviews",
    params(("project_id" = String, Path), ("share_id" = String, Path)),
    responses(
        (status = 204, description = "Revoked: the link opens nothing, on every server"),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such link in this project", body = ErrorBody),
    ),
)]
pub async fn revoke(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
) -> Result<StatusCode, ApiError> {
    let storage = state.storage();
    let share = reviews::get(storage.as_ref(), &project, &id)
        .await?
        .ok_or_else(|| ApiError::NotFound("No such review link".into()))?;
    reviews::revoke(storage.as_ref(), &project.folder(), &share).await?;
    tracing::info!(project = %project, share = %share.id, "revoked a review link");
    Ok(StatusCode::NO_CONTENT)
}
