//! `POST /callbacks/{provider}/{job}/{token}`: a provider's call that a job is done, outside
//! `/api` (providers carry no bearer token). Refused with 401 unless this server made the
//! address and the provider signed the call (where it signs), or when the delivery was taken
//! before; 503 when the provider's signing key cannot be had now (the provider calls again);
//! else 204, and the job's poller asks the provider at once.

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;

use super::error::ApiError;
use super::AppState;
use crate::callbacks::Refusal;

/// The largest call taken: a Replicate prediction repeats its input, pictures included.
const BODY_LIMIT: usize = 16 * 1024 * 1024;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/callbacks/{provider}/{job}/{token}", post(called))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

async fn called(
    State(state): State<AppState>,
    Path((provider, job, token)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    match state
        .jobs
        .called_back(&provider, &job, &token, &headers, &body)
        .await
    {
        Ok(()) => Ok(StatusCode::NO_CONTENT),
        Err(Refusal::Unverifiable(reason)) => {
            tracing::warn!(%provider, %job, %reason, "a callback could not be checked");
            Err(ApiError::Unavailable(
                Refusal::Unverifiable(reason).to_string(),
            ))
        }
        Err(refusal) => {
            tracing::warn!(%provider, %job, %refusal, "refused a callback");
            Err(ApiError::CallbackRefused(refusal.to_string()))
        }
    }
}
