//! Runway: `POST /v1/text_to_video` and `GET /v1/tasks/{id}` with the required
//! `X-Runway-Version`; progress as a 0..1 float while RUNNING; output URLs that expire, fresh
//! ones at every read of the task.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::content::signed_url;
use crate::state::{authorised, hex, with_faults, Fakes, Job, Outcome};

pub const VERSION: &str = "2024-11-06";
const RATIOS: [&str; 2] = ["1280:720", "720:1280"];

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/v1/text_to_video", post(create))
        .route("/v1/tasks/{id}", get(task).delete(cancel));
    with_faults(routes, fakes, "runway")
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

/// Checks the key and the version header.
/// The rejection for a request without the right credentials, if any.
fn check(fakes: &Fakes, headers: &HeaderMap) -> Option<Response> {
    if !authorised(headers, "Bearer", &fakes.settings().key) {
        return Some(error(StatusCode::UNAUTHORIZED, "Invalid API key"));
    }
    if headers
        .get("x-runway-version")
        .and_then(|v| v.to_str().ok())
        != Some(VERSION)
    {
        return Some(error(
            StatusCode::BAD_REQUEST,
            "The X-Runway-Version header is required and must be 2024-11-06",
        ));
    }
    None
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Create {
    model: String,
    prompt_text: String,
    ratio: String,
    #[serde(default)]
    duration: Option<u32>,
}

async fn create(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Create>>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("runway.create");
    let Some(Json(body)) = body else {
        return error(
            StatusCode::BAD_REQUEST,
            "Invalid body: model, promptText and ratio are required",
        );
    };
    if body.prompt_text.is_empty() || body.prompt_text.chars().count() > 1000 {
        return error(
            StatusCode::BAD_REQUEST,
            "promptText must be 1 to 1000 characters",
        );
    }
    if !RATIOS.contains(&body.ratio.as_str()) {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("Invalid ratio {}", body.ratio),
        );
    }
    let duration = body.duration.unwrap_or(5);
    if !(2..=10).contains(&duration) {
        return error(StatusCode::BAD_REQUEST, "duration must be 2 to 10");
    }
    let id = format!("{}-{}-4{}-a{}-{}", hex(8), hex(4), hex(3), hex(3), hex(12));
    fakes
        .insert(Job::new(
            id.clone(),
            &body.model,
            &body.prompt_text,
            duration.to_string(),
            body.ratio,
        ))
        .await;
    Json(json!({ "id": id })).into_response()
}

async fn task(State(fakes): State<Fakes>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("runway.poll");
    let Some(job) = fakes.job(&id) else {
        return error(StatusCode::NOT_FOUND, "Task not found");
    };
    let settings = fakes.settings();
    let fraction = job.fraction(&settings);
    let mut body = json!({ "id": job.id, "status": "PENDING" });
    match (job.finished(&settings), job.outcome) {
        (false, _) if fraction < 0.1 => {}
        (false, _) => {
            body["status"] = json!("RUNNING");
            body["progress"] = json!((fraction * 100.0).floor() / 100.0);
        }
        (true, Outcome::Succeeds) => {
            body["status"] = json!("SUCCEEDED");
            body["output"] = json!([signed_url(&headers, &job.id, settings.content_ttl)]);
        }
        (true, Outcome::Moderated) => {
            body["status"] = json!("FAILED");
            body["failure"] = json!("The prompt was flagged by content moderation.");
            body["failureCode"] = json!("SAFETY.INPUT.TEXT");
        }
        (true, Outcome::Fails) => {
            body["status"] = json!("FAILED");
            body["failure"] = json!("An unexpected error occurred.");
            body["failureCode"] = json!("INTERNAL");
        }
    }
    Json::<Value>(body).into_response()
}

async fn cancel(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("runway.cancel");
    match fakes.job(&id) {
        Some(_) => StatusCode::NO_CONTENT.into_response(),
        None => error(StatusCode::NOT_FOUND, "Task not found"),
    }
}
