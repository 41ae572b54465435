//! The fakes' own controls, for tests that drive them from another process: counts, a
//! redirect, faults and the video every finished job serves.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::state::Fakes;

#[derive(Deserialize)]
struct Redirect {
    to: String,
}

#[derive(Deserialize)]
struct FaultRequest {
    provider: String,
    count: u32,
    status: u16,
    retry_after: Option<String>,
}

/// `POST /_fake/fail {provider, count, status, retry_after}`: `fail_next` for tests that drive
/// the fakes from another process; `PUT /_fake/video` (an MP4, at most 64 MiB): the video every
/// finished job serves from then on.
pub fn control_router() -> Router<Fakes> {
    Router::new()
        .route(
            "/_fake/video",
            axum::routing::put(
                |State(fakes): State<Fakes>, video: bytes::Bytes| async move {
                    let mut settings = fakes.settings();
                    settings.video = Some(video);
                    fakes.set_settings(settings);
                    axum::http::StatusCode::NO_CONTENT
                },
            )
            .layer(axum::extract::DefaultBodyLimit::max(64 * 1024 * 1024)),
        )
        .route(
            "/_fake/count/{kind}",
            axum::routing::get(
                |State(fakes): State<Fakes>,
                 axum::extract::Path(kind): axum::extract::Path<String>| async move {
                    Json(json!({ "count": fakes.count(&kind) }))
                },
            ),
        )
        .route(
            "/_fake/redirect",
            axum::routing::get(
                |axum::extract::Query(to): axum::extract::Query<Redirect>| async move {
                    axum::response::Redirect::temporary(&to.to)
                },
            ),
        )
        .route(
            "/_fake/fail",
            post(
                |State(fakes): State<Fakes>, Json(f): Json<FaultRequest>| async move {
                    fakes.fail_next(&f.provider, f.count, f.status, f.retry_after.as_deref());
                    StatusCode::NO_CONTENT
                },
            ),
        )
}
