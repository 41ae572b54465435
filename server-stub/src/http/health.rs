//! For load balancers, without a token: `/healthz` answers while the process serves, `/readyz`
//! while its storage and (with `--database-url`) its database answer too.

use axum::extract::State;
use axum::http::StatusCode;

use super::AppState;

pub async fn alive() -> &'static str {
    "ok"
}

pub async fn ready(State(state): State<AppState>) -> (StatusCode, String) {
    match state.jobs.ready().await {
        Ok(()) => (StatusCode::OK, "ready".into()),
        Err(part) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: the {part} does not answer"),
        ),
    }
}
