//! Public media (no auth): saved videos, their `.json` metadata and finished previews, with
//! Range requests (206) for seeking, Last-Modified and an ETag.

use axum::extract::Request;
use axum::http::header::{CONTENT_LENGTH, CONTENT_RANGE, ETAG, LAST_MODIFIED};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

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
