//! GET /api/projects/{projectId}/assets.zip?names=a.mp4,b.mp4: the chosen videos with their
//! `.json` metadata in one ZIP, streamed as it is written (`crate::zip`), in constant memory.

use std::collections::HashSet;

use axum::body::Body;
use axum::extract::State;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;

use super::assets::valid_file_name;
use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, ApiQuery};
use super::AppState;
use crate::project::ProjectId;
use crate::zip::{self, portable, Entry, Source};

/// The most videos one archive holds.
const MAX_VIDEOS: usize = 100;

/// A saved video's file name, as the document says it.
pub const FILE_NAME_PATTERN: &str = r"^[A-Za-z0-9._:-]{1,200}$";

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Chosen {
    /// File names of saved videos, separated by commas (1 to 100).
    #[param(pattern = r"^[A-Za-z0-9._:-]{1,200}(,[A-Za-z0-9._:-]{1,200}){0,99}$")]
    names: String,
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/assets.zip",
    tag = "assets",
    params(("project_id" = String, Path), Chosen),
    responses(
        (status = 200, description = "A ZIP of the videos and their .json metadata, stored without compression (`:` in names becomes `_`)", content_type = "application/zip", body = Vec<u8>),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "A named video is not in the library", body = ErrorBody),
        (status = 422, description = "No names, more than 100, or more than 4 GiB together", body = ErrorBody),
    ),
)]
pub async fn download(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
    ApiQuery(chosen): ApiQuery<Chosen>,
) -> Result<Response, ApiError> {
    let names = chosen_names(chosen.names.split(','))?;
    archive_of(&state, &project, &names).await
}

/// The names of a download, each once: 1 to 100 of them, or 422.
pub(super) fn chosen_names<'a>(
    names: impl Iterator<Item = &'a str>,
) -> Result<Vec<String>, ApiError> {
    let mut seen = HashSet::new();
    let names: Vec<String> = names
        .map(str::trim)
        .filter(|n| !n.is_empty() && seen.insert(*n))
        .map(str::to_owned)
        .collect();
    if names.is_empty() || names.len() > MAX_VIDEOS {
        return Err(ApiError::Unprocessable(format!(
            "names must list 1 to {MAX_VIDEOS} saved videos"
        )));
    }
    Ok(names)
}

/// The archive's entries: each named video of `project` and its `.json` metadata; 404 naming
/// a video that is not in the library.
pub(super) async fn entries_of(
    state: &AppState,
    project: &ProjectId,
    names: &[String],
) -> Result<Vec<Entry>, ApiError> {
    let folder = project.folder();
    let storage = state.storage();
    let mut entries = Vec::new();
    for name in names {
        let missing = || ApiError::NotFound(format!("No such video: {name}"));
        let stem = name
            .strip_suffix(".mp4")
            .filter(|_| valid_file_name(name))
            .ok_or_else(missing)?;
        let key = folder.file(name);
        let video = storage.head(&key).await?.ok_or_else(missing)?;
        entries.push(Entry {
            name: portable(name),
            source: Source::Stored(key),
            size: video.size_bytes,
            modified: video.modified,
        });
        let metadata = folder.companion(stem, "json");
        if let Some(json) = storage.head(&metadata).await? {
            entries.push(Entry {
                name: portable(&format!("{stem}.json")),
                source: Source::Stored(metadata),
                size: json.size_bytes,
                modified: json.modified,
            });
        }
    }
    Ok(entries)
}

/// The ZIP of the named videos of `project` with their metadata.
pub(super) async fn archive_of(
    state: &AppState,
    project: &ProjectId,
    names: &[String],
) -> Result<Response, ApiError> {
    let entries = entries_of(state, project, names).await?;
    tracing::info!(project = %project, files = entries.len(), "a ZIP download");
    zip_response(
        state.storage().clone(),
        entries,
        &format!("{project}-videos.zip"),
        "the chosen videos come to more than 4 GiB: download fewer at once",
    )
}

/// The ZIP of `entries`, streamed as it is written, downloaded as `file_name`; 422 saying
/// `too_large` when it would pass 4 GiB.
pub(super) fn zip_response(
    storage: std::sync::Arc<dyn crate::storage::Storage>,
    entries: Vec<Entry>,
    file_name: &str,
    too_large: &str,
) -> Result<Response, ApiError> {
    let length = zip::length(&entries);
    if length > zip::MAX_BYTES {
        return Err(ApiError::Unprocessable(too_large.into()));
    }
    let mut response = Body::from_stream(zip::archive(storage, entries)).into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/zip"));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
    if let Ok(disposition) = HeaderValue::from_str(&format!("attachment; filename=\"{file_name}\""))
    {
        headers.insert(CONTENT_DISPOSITION, disposition);
    }
    Ok(response)
}
