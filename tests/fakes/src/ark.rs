//! Seedance on BytePlus ModelArk: `POST /api/v3/contents/generations/tasks` (bearer key; `model`
//! and `content[]` of one `text` and `image_url` items whose `url` is a data URI or https, each
//! image in a `role` of `first_frame`, `last_frame` or `reference_image`; strict about fields),
//! `GET .../tasks/{id}` walking `status` queued, running, succeeded or failed (with `error`), and
//! `DELETE .../tasks/{id}` for a queued task.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use crate::callbacks::call_back;
use crate::content::{signed_frame_url, signed_url};
use crate::images;
use crate::state::{authorised, finishes_after, hex, seed, with_faults, Fakes, Job, Outcome};

const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;
const FIELDS: [&str; 9] = [
    "model",
    "content",
    "resolution",
    "ratio",
    "duration",
    "seed",
    "return_last_frame",
    "watermark",
    "callback_url",
];

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/api/v3/contents/generations/tasks", post(create))
        .route(
            "/api/v3/contents/generations/tasks/{id}",
            get(task).delete(cancel),
        );
    with_faults(routes, fakes, "ark")
}

fn error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = json!({"error": {"code": code, "message": message, "type": "BadRequest"}});
    (status, Json(body)).into_response()
}

fn invalid(message: &str) -> Response {
    error(StatusCode::BAD_REQUEST, "InvalidParameter", message)
}

/// One `content[]` item: the text, or an image in a role (described).
fn item(value: &Value, text: &mut Option<String>, inputs: &mut Vec<String>) -> Result<(), String> {
    let object = value.as_object().ok_or("content items must be objects")?;
    match object.get("type").and_then(Value::as_str) {
        Some("text") => {
            if object.keys().any(|k| k != "type" && k != "text") {
                return Err("a text item takes type and text".into());
            }
            let prompt = object
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            *text = Some(prompt.to_owned());
        }
        Some("image_url") => {
            if object
                .keys()
                .any(|k| !["type", "image_url", "role"].contains(&k.as_str()))
            {
                return Err("an image_url item takes type, image_url and role".into());
            }
            let url = object
                .get("image_url")
                .and_then(|i| i.get("url"))
                .and_then(Value::as_str)
                .ok_or("image_url.url is required")?;
            let role = object
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or("first_frame");
            if !["first_frame", "last_frame", "reference_image"].contains(&role) {
                return Err(format!("role {role} is not supported"));
            }
            let seen = images::data_uri(url, MAX_IMAGE_BYTES)?;
            inputs.push(format!("{role} {seen}"));
        }
        _ => return Err("content item type must be text or image_url".into()),
    }
    Ok(())
}

fn checked(body: &Map<String, Value>) -> Result<Job, String> {
    if let Some(unknown) = body.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!("The parameter `{unknown}` is not supported"));
    }
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .ok_or("model is required")?;
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or("content is required")?;
    let (mut text, mut inputs) = (None, Vec::new());
    for value in content {
        item(value, &mut text, &mut inputs)?;
    }
    let prompt = text
        .filter(|t| !t.is_empty())
        .ok_or("a text content item is required")?;
    let count = |role: &str| inputs.iter().filter(|i| i.starts_with(role)).count();
    if count("first_frame ") > 1 || count("last_frame ") > 1 || count("reference_image ") > 4 {
        return Err("at most one first_frame, one last_frame and four reference_image".into());
    }
    let duration = body.get("duration").and_then(Value::as_u64).unwrap_or(5);
    if !(2..=12).contains(&duration) {
        return Err("duration must be 2 to 12".into());
    }
    let ratio = body.get("ratio").and_then(Value::as_str).unwrap_or("16:9");
    let resolution = body
        .get("resolution")
        .and_then(Value::as_str)
        .unwrap_or("720p");
    if !["480p", "720p", "1080p"].contains(&resolution) {
        return Err(format!("resolution {resolution} is not supported"));
    }
    let id = format!("cgt-{}", hex(16));
    let mut job = Job::new(
        id,
        model,
        &prompt,
        duration.to_string(),
        format!("{ratio} {resolution}"),
    );
    job.inputs = inputs;
    job.inputs.extend(seed(body.get("seed"))?);
    Ok(job)
}

async fn create(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Value>>,
) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return error(
            StatusCode::UNAUTHORIZED,
            "AuthenticationError",
            "The API key is invalid",
        );
    }
    fakes.counted("ark.create");
    let Some(Json(Value::Object(body))) = body else {
        return invalid("The request body must be a JSON object");
    };
    match checked(&body) {
        Ok(mut job) => {
            let id = job.id.clone();
            if let Some(url) = body.get("callback_url").and_then(Value::as_str) {
                job.callback = Some(url.to_owned());
                let (id, headers) = (id.clone(), headers.clone());
                let after = finishes_after(&fakes.settings(), &job);
                call_back(&fakes, url.to_owned(), after, move |fakes| {
                    let task = fakes.job(&id).map(|job| view(fakes, &headers, &job));
                    (Vec::new(), serde_json::to_vec(&task).unwrap_or_default())
                });
            }
            fakes.insert(job).await;
            Json(json!({ "id": id })).into_response()
        }
        Err(message) => invalid(&message),
    }
}

async fn task(State(fakes): State<Fakes>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return error(
            StatusCode::UNAUTHORIZED,
            "AuthenticationError",
            "The API key is invalid",
        );
    }
    fakes.counted("ark.poll");
    let Some(job) = fakes.job(&id) else {
        return error(StatusCode::NOT_FOUND, "NotFound", "The task was not found");
    };
    Json(view(&fakes, &headers, &job)).into_response()
}

/// A task as ModelArk answers it now.
fn view(fakes: &Fakes, headers: &HeaderMap, job: &Job) -> Value {
    let settings = fakes.settings();
    let status = match (job.finished(&settings), job.outcome) {
        (false, _) if job.fraction(&settings) < 0.2 => "queued",
        (false, _) => "running",
        (true, Outcome::Succeeds) => "succeeded",
        (true, _) => "failed",
    };
    let updated = if job.finished(&settings) {
        job.completed_unix(&settings)
    } else {
        job.created_unix
    };
    let mut body = json!({"id": job.id, "model": job.model, "status": status,
        "created_at": job.created_unix, "updated_at": updated});
    match (status, job.outcome) {
        ("succeeded", _) => {
            body["content"] = json!({
                "video_url": signed_url(headers, &job.id, settings.content_ttl),
                "last_frame_url": signed_frame_url(headers, &job.id, settings.content_ttl),
            });
            body["usage"] = json!({"completion_tokens": 108900, "total_tokens": 108900});
        }
        ("failed", Outcome::Moderated) => {
            body["error"] = json!({"code": "OutputVideoSensitiveContentDetected",
                "message": "The output video may contain sensitive information."});
        }
        ("failed", _) => {
            body["error"] = json!({"code": "InternalServiceError",
                "message": "Internal error while generating the video."});
        }
        _ => {}
    }
    body
}

async fn cancel(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return error(
            StatusCode::UNAUTHORIZED,
            "AuthenticationError",
            "The API key is invalid",
        );
    }
    fakes.counted("ark.cancel");
    match fakes.job(&id) {
        Some(job) if job.fraction(&fakes.settings()) < 0.2 => Json(json!({})).into_response(),
        Some(_) => error(
            StatusCode::CONFLICT,
            "InvalidAction",
            "Only a queued task can be cancelled",
        ),
        None => error(StatusCode::NOT_FOUND, "NotFound", "The task was not found"),
    }
}
