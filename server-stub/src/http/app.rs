//! The built app: static files with a fallback to index.html for `/{projectId}`, review.html for
//! `/review/{token}`, the runtime `config.json`, and the caching rules (hashed assets
//! immutable, the rest revalidated).

use std::path::Path;

use axum::extract::{Request, State};
use axum::http::header::CACHE_CONTROL;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tower_http::services::{ServeDir, ServeFile};

use super::AppState;

/// The built app; hashed assets go out as the build's precompressed .br or .gz when the
/// browser accepts them.
pub fn files(dist: &Path) -> ServeDir<ServeFile> {
    ServeDir::new(dist)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(ServeFile::new(dist.join("index.html")))
}

/// The page a review link opens: its own small entry (`review.html`), none of the studio.
pub fn review_page(dist: &Path) -> ServeFile {
    ServeFile::new(dist.join("review.html"))
}

/// `{ apiBase, token, models }`, the runtime configuration the core loads at start (the models
/// offered, the default first). Never cached.
pub async fn config(State(state): State<AppState>) -> Response {
    let mut response = Json(json!({
        "apiBase": state.client_api_base,
        "token": state.token,
        "models": super::models::ids(&state),
    }))
    .into_response();
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Hashed files under /assets/ never change; everything else (index.html above all) is never
/// cached, unless the handler chose its own policy.
pub async fn cache_policy(request: Request, next: Next) -> Response {
    let immutable = request.uri().path().starts_with("/assets/");
    let mut response = next.run(request).await;
    if response.headers().contains_key(CACHE_CONTROL) {
        return response;
    }
    let value = if immutable && response.status().is_success() {
        "public, max-age=31536000, immutable"
    } else {
        "no-store"
    };
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static(value));
    response
}
