//! Public media (no auth): saved videos, their `.json` metadata, their `.jpg` posters and
//! finished previews, with Range requests (206) for seeking, Last-Modified and an ETag.

mod file;

use std::path::Path;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::storage::check_key;

/// Review links' records (`shares/`) are kept beside the media but are not media: 404.
pub async fn private() -> StatusCode {
    StatusCode::NOT_FOUND
}

/// The media folder and the service that makes posters missing from it.
#[derive(Clone)]
pub struct Folder {
    pub root: Arc<Path>,
    pub app: AppState,
}

/// A file of the folder (GET and HEAD), or what [`missing`] makes of a path that names none.
pub async fn serve(
    State(folder): State<Folder>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    match file::MediaFile::open(&folder.root, uri.path()) {
        Some(file) => file.answer(&method, &headers),
        None => missing(&folder.app, &uri).await,
    }
}

/// A poster that is not in the folder: made from its video on this first request (then kept in
/// storage, so the next listing points at the stored file). Anything else missing is 404.
async fn missing(state: &AppState, uri: &Uri) -> Response {
    let key = uri.path().trim_start_matches('/');
    let Some(video) = key
        .strip_suffix(".jpg")
        .filter(|_| check_key(key).is_ok())
        .map(|stem| format!("{stem}.mp4"))
    else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match state.posters().ensure(&video).await {
        Ok(jpeg) => (
            [
                (CONTENT_TYPE, HeaderValue::from_static("image/jpeg")),
                (CACHE_CONTROL, HeaderValue::from_static(POSTER_CACHING)),
            ],
            jpeg,
        )
            .into_response(),
        Err(e) => {
            tracing::debug!(key = %key, error = %e, "no poster");
            StatusCode::NOT_FOUND.into_response()
        }
    }
}

/// Posters never change under their key (a key names one job's video): cached for a year.
const POSTER_CACHING: &str = "public, max-age=31536000, immutable";

/// Stored posters get the same long caching as made ones.
pub async fn poster_caching(request: Request, next: Next) -> Response {
    let poster = request.uri().path().ends_with(".jpg");
    let mut response = next.run(request).await;
    if poster && response.status().is_success() {
        response
            .headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static(POSTER_CACHING));
    }
    response
}
