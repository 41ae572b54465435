//! Public media (no auth): saved videos, their `.json` metadata, their `.jpg` posters and
//! finished previews, with Range requests (206) for seeking, Last-Modified and an ETag.

use axum::extract::{Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, LAST_MODIFIED,
};
use axum::http::{HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::storage::check_key;

/// Adds a weak ETag from the file's size and modification time.
pub async fn etag(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers();
    let size = headers
        .get(CONTENT_RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit('/').next())
        .or_else(|| headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()))
        .map(str::to_owned);
    let modified = headers
        .get(LAST_MODIFIED)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let (Some(size), Some(modified)) = (size, modified) {
        let tag = format!("W/\"{size}-{:x}\"", crate::engine::fnv1a(&modified));
        if let Ok(value) = HeaderValue::from_str(&tag) {
            response.headers_mut().insert(ETAG, value);
        }
    }
    response
}

/// Review links' records (`shares/`) are kept beside the media but are not media: 404.
pub async fn private() -> StatusCode {
    StatusCode::NOT_FOUND
}

/// A poster that is not in the folder: made from its video on this first request (then kept in
/// storage, so the next listing points at the stored file). Anything else missing is 404.
pub async fn missing(State(state): State<AppState>, uri: Uri) -> Response {
    let key = uri.path().trim_start_matches('/');
    let Some(video) = key
        .strip_suffix(".jpg")
        .filter(|_| check_key(key).is_ok())
        .map(|stem| format!("{stem}.mp4"))
    else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match state.jobs.posters().ensure(&video).await {
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
