//! GET /metrics: the Prometheus text exposition, behind the same guard as the API: the API's
//! bearer token, or `STUDIO_METRICS_TOKEN` so a scraper need not hold the API's.

use axum::extract::State;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use subtle::ConstantTimeEq;

use super::error::ApiError;
use super::AppState;

/// The content type Prometheus scrapers ask for.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

pub async fn scrape(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<impl IntoResponse, ApiError> {
    let presented = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    let matches = |token: &str| bool::from(presented.as_bytes().ct_eq(token.as_bytes()));
    let allowed = !presented.is_empty()
        && (matches(&state.token) || state.metrics_token.as_deref().is_some_and(matches));
    if !allowed {
        return Err(ApiError::Unauthorized);
    }
    Ok(([(CONTENT_TYPE, TEXT_FORMAT)], state.jobs.metrics_text()))
}
