//! GET /api/projects/{projectId}/assets: the project's saved videos, newest first.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, PublicBase};
use super::{valid_project, AppState};

/// A saved video.
#[derive(Serialize, ToSchema)]
pub struct Asset {
    /// `projects/{projectId}/{soraJobId}.mp4`; the last segment is the file name.
    key: String,
    size_bytes: u64,
    /// RFC 3339.
    last_modified: String,
    /// The metadata is at the same address with .mp4 replaced by .json.
    public_url: String,
}

#[derive(Serialize, ToSchema)]
pub struct Assets {
    videos: Vec<Asset>,
}

#[utoipa::path(
    get,
    path = "/projects/{project_id}/assets",
    tag = "assets",
    params(("project_id" = String, Path, description = "a-z, 0-9 and '-', 1 to 64 characters")),
    responses(
        (status = 200, description = "The project's saved videos, newest first", body = Assets),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 401, description = "Missing or wrong bearer token", body = ErrorBody),
    ),
)]
pub async fn list(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<String>,
) -> Result<Json<Assets>, ApiError> {
    valid_project(&project)?;
    let mut objects = state
        .jobs
        .storage()
        .list(&format!("projects/{project}/"))
        .await?;
    objects.retain(|o| o.key.ends_with(".mp4"));
    objects.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| b.key.cmp(&a.key)));
    let videos = objects
        .into_iter()
        .map(|o| Asset {
            last_modified: rfc3339(o.modified),
            public_url: base.url(&state, &o.key),
            size_bytes: o.size_bytes,
            key: o.key,
        })
        .collect();
    Ok(Json(Assets { videos }))
}

fn rfc3339(unix: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}
