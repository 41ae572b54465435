//! Runway: `POST /v1/text_to_video`, `POST /v1/image_to_video` (`promptImage`: a URI, or frames
//! at `position` first and last; data URIs of at most 5 MB) and `GET /v1/tasks/{id}` with the
//! required
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
use crate::images;
use crate::state::{authorised, hex, with_faults, Fakes, Job, Outcome};

pub const VERSION: &str = "2024-11-06";
const RATIOS: [&str; 2] = ["1280:720", "720:1280"];

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/v1/text_to_video", post(create))
        .route("/v1/image_to_video", post(create_from_image))
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
    #[serde(default)]
    prompt_image: Option<Value>,
}

/// The largest data URI image Runway takes.
const MAX_DATA_URI_BYTES: usize = 5 * 1024 * 1024;

/// `promptImage` as Runway reads it: one URI (the first frame), or `[{uri, position}]` with
/// each position once; each picture described (`first image/jpeg 1280x720`).
fn prompt_images(value: &Value) -> Result<Vec<String>, String> {
    let frames: Vec<(String, &str)> = match value {
        Value::String(uri) => vec![("first".into(), uri.as_str())],
        Value::Array(items) => items
            .iter()
            .map(|item| {
                let uri = item
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or("uri is required")?;
                let position = item
                    .get("position")
                    .and_then(Value::as_str)
                    .unwrap_or("first");
                Ok((position.to_owned(), uri))
            })
            .collect::<Result<_, String>>()?,
        _ => return Err("promptImage must be a string or an array".into()),
    };
    let mut seen = Vec::new();
    for (position, uri) in frames {
        if !matches!(position.as_str(), "first" | "last") {
            return Err(format!("Invalid position {position}"));
        }
        if seen
            .iter()
            .any(|s: &String| s.starts_with(&format!("{position} ")))
        {
            return Err(format!("position {position} is given twice"));
        }
        let picture = images::data_uri(uri, MAX_DATA_URI_BYTES)?;
        seen.push(format!("{position} {picture}"));
    }
    if seen.is_empty() {
        return Err("promptImage is required".into());
    }
    Ok(seen)
}

async fn create_from_image(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Create>>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    let image = body.as_ref().and_then(|Json(b)| b.prompt_image.clone());
    match prompt_images(&image.unwrap_or_default()) {
        Ok(frames) => make(&fakes, body, frames).await,
        Err(message) => error(StatusCode::BAD_REQUEST, &message),
    }
}

async fn create(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Create>>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    if body
        .as_ref()
        .is_some_and(|Json(b)| b.prompt_image.is_some())
    {
        return error(
            StatusCode::BAD_REQUEST,
            "promptImage is not taken by text_to_video",
        );
    }
    make(&fakes, body, Vec::new()).await
}

/// A task from a checked create body, made from `frames` (`first image/jpeg 1280x720`, ...).
async fn make(fakes: &Fakes, body: Option<Json<Create>>, frames: Vec<String>) -> Response {
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
    let mut job = Job::new(
        id.clone(),
        &body.model,
        &body.prompt_text,
        duration.to_string(),
        body.ratio,
    );
    job.inputs = frames
        .into_iter()
        .map(|frame| format!("promptImage {frame}"))
        .collect();
    fakes.insert(job).await;
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
