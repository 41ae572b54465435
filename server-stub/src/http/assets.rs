//! GET /api/projects/{projectId}/assets: the project's saved videos, newest first.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::error::ApiError;
use super::extract::{ApiPath, PublicBase};
use super::{valid_project, AppState};

pub async fn list(
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    valid_project(&project)?;
    let mut objects = state
        .jobs
        .storage()
        .list(&format!("projects/{project}/"))
        .await?;
    objects.retain(|o| o.key.ends_with(".mp4"));
    objects.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| b.key.cmp(&a.key)));
    let videos: Vec<Value> = objects
        .iter()
        .map(|o| {
            json!({
                "key": o.key,
                "size_bytes": o.size_bytes,
                "last_modified": rfc3339(o.modified),
                "public_url": base.url(&state, &o.key),
            })
        })
        .collect();
    Ok(Json(json!({ "videos": videos })))
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
