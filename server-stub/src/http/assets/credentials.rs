//! A saved video's Content Credentials, read from the file itself with the library that
//! wrote them.

use crate::project::ProjectId;
use axum::extract::State;
use axum::Json;

use super::video::{stored, Stored};
use crate::credentials::{self, Report};
use crate::http::auth::Authorized;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::extract::ApiPath;
use crate::http::AppState;
use crate::sequences::export::take_reader::TakeReader;

/// Credentials read at once.
static READING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

#[utoipa::path(
    get,
    context_path = crate::http::API,
    path = "/projects/{project_id}/assets/{file_name}/credentials",
    tag = "assets",
    params(
        ("project_id" = String, Path),
        ("file_name" = String, Path, description = "The last segment of the video's key", pattern = r"^[A-Za-z0-9._:-]{1,196}\.mp4$"),
    ),
    responses(
        (status = 200, description = "The video's Content Credentials: `present: false` when it carries none, `valid: false` with the reasons when they are broken (a changed byte of the media)", body = Report),
        (status = 400, description = "Malformed project id", body = ErrorBody),
        (status = 404, description = "No such video", body = ErrorBody),
    ),
)]
pub async fn credentials(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, name)): ApiPath<(ProjectId, String)>,
) -> Result<Json<Report>, ApiError> {
    let Stored { key, video, .. } = stored(&state, &project, &name).await?;
    Ok(Json(read_credentials(&state, key, video.size_bytes).await?))
}

/// The Content Credentials of the stored video `key` of `size` bytes, read by range.
pub(in crate::http) async fn read_credentials(
    state: &AppState,
    key: String,
    size: u64,
) -> Result<Report, ApiError> {
    let file = TakeReader::stored(
        state.storage().clone(),
        tokio::runtime::Handle::current(),
        key,
        size,
    );
    // The crate hashes the whole file in chunks of up to 256 MB, two at a time: one read at a
    // time bounds that memory however many dialogs and review pages ask at once.
    let _turn = READING.acquire().await;
    tokio::task::spawn_blocking(move || credentials::read(file))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))
}
