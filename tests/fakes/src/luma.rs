//! Luma's Agents API: `POST /v1/generations` (bearer key; `model` `ray-3.2`, `type` `video`,
//! strict about every field, frames as exactly one of `{url}`, `{data, media_type}` or
//! `{generation_id}` of a completed generation), `GET /v1/generations/{id}` walking `state`
//! queued, processing, completed or failed (with `failure_reason`), and output URLs presigned
//! for an hour.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use crate::content::signed_url;
use crate::images;
use crate::state::{authorised, hex, with_faults, Fakes, Job, Outcome};

const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/v1/generations", post(create))
        .route("/v1/generations/{id}", get(generation));
    with_faults(routes, fakes, "luma")
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "detail": message }))).into_response()
}

fn only(object: &Map<String, Value>, known: &[&str], place: &str) -> Result<(), String> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(format!("{place}: extra field {unknown} is not permitted")),
        None => Ok(()),
    }
}

/// A frame: exactly one of `{url}`, `{data, media_type}` or `{generation_id}`; described.
fn frame(fakes: &Fakes, value: &Value, place: &str) -> Result<String, String> {
    let object = value
        .as_object()
        .ok_or(format!("{place} must be an object"))?;
    only(
        object,
        &["url", "data", "media_type", "generation_id"],
        place,
    )?;
    let text = |field: &str| object.get(field).and_then(Value::as_str);
    match (text("url"), text("data"), text("generation_id")) {
        (Some(url), None, None) => Ok(format!("url {url}")),
        (None, Some(data), None) => {
            let media_type = text("media_type").ok_or(format!("{place}.media_type is required"))?;
            Ok(images::raw_base64(data, media_type, MAX_IMAGE_BYTES)?.to_string())
        }
        (None, None, Some(id)) => {
            let settings = fakes.settings();
            match fakes.job(id) {
                Some(job) if job.finished(&settings) && job.outcome == Outcome::Succeeds => {
                    Ok(format!("generation {id}"))
                }
                _ => Err(format!(
                    "{place}: generation {id} is not a completed generation"
                )),
            }
        }
        _ => Err(format!(
            "{place} must be exactly one of url, data with media_type, or generation_id"
        )),
    }
}

async fn create(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Value>>,
) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return error(StatusCode::UNAUTHORIZED, "Invalid API key");
    }
    fakes.counted("luma.create");
    let Some(Json(body)) = body else {
        return error(StatusCode::BAD_REQUEST, "Invalid JSON body");
    };
    match checked(&fakes, &body) {
        Ok(job) => {
            let body = view(&fakes, &headers, &job);
            fakes.insert(job).await;
            (StatusCode::CREATED, Json(body)).into_response()
        }
        Err(message) => error(StatusCode::BAD_REQUEST, &message),
    }
}

/// The generation a checked request makes.
fn checked(fakes: &Fakes, body: &Value) -> Result<Job, String> {
    let top = body.as_object().ok_or("The body must be an object")?;
    only(
        top,
        &["model", "type", "prompt", "aspect_ratio", "video"],
        "body",
    )?;
    let text = |field: &str| top.get(field).and_then(Value::as_str);
    if text("model") != Some("ray-3.2") {
        return Err("model must be ray-3.2".into());
    }
    if text("type") != Some("video") {
        return Err("type must be video".into());
    }
    let prompt = text("prompt")
        .filter(|p| !p.is_empty())
        .ok_or("prompt is required")?;
    let ratio = text("aspect_ratio").unwrap_or("16:9");
    if !["16:9", "9:16", "1:1", "4:3", "3:4", "21:9", "9:21"].contains(&ratio) {
        return Err(format!("aspect_ratio {ratio} is not supported"));
    }
    let empty = Map::new();
    let video = top
        .get("video")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    only(
        video,
        &["resolution", "duration", "start_frame", "end_frame"],
        "video",
    )?;
    let duration = video
        .get("duration")
        .and_then(Value::as_str)
        .unwrap_or("5s");
    if !["5s", "10s"].contains(&duration) {
        return Err(format!("video.duration {duration} must be 5s or 10s"));
    }
    let resolution = video
        .get("resolution")
        .and_then(Value::as_str)
        .unwrap_or("720p");
    if !["540p", "720p", "1080p", "4k"].contains(&resolution) {
        return Err(format!("video.resolution {resolution} is not supported"));
    }
    let mut job = Job::new(
        hex(8) + "-" + &hex(4) + "-" + &hex(4) + "-" + &hex(4) + "-" + &hex(12),
        "ray-3.2",
        prompt,
        duration.trim_end_matches('s').to_owned(),
        format!("{ratio} {resolution}"),
    );
    for name in ["start_frame", "end_frame"] {
        if let Some(value) = video.get(name) {
            let seen = frame(fakes, value, &format!("video.{name}"))?;
            job.inputs.push(format!("{name} {seen}"));
        }
    }
    Ok(job)
}

/// A generation as the API answers it now.
fn view(fakes: &Fakes, headers: &HeaderMap, job: &Job) -> Value {
    let settings = fakes.settings();
    let (state, failure) = match (job.finished(&settings), job.outcome) {
        (false, _) if job.fraction(&settings) < 0.2 => ("queued", Value::Null),
        (false, _) => ("processing", Value::Null),
        (true, Outcome::Succeeds) => ("completed", Value::Null),
        (true, Outcome::Moderated) => (
            "failed",
            json!("The prompt was rejected by content moderation."),
        ),
        (true, Outcome::Fails) => (
            "failed",
            json!("Internal error while generating the video."),
        ),
    };
    let output = if state == "completed" {
        json!([{ "type": "video", "url": signed_url(headers, &job.id, settings.content_ttl) }])
    } else {
        json!([])
    };
    json!({
        "id": job.id, "model": job.model, "type": "video", "prompt": job.prompt,
        "state": state, "failure_reason": failure, "output": output,
        "created_at": job.created_unix,
    })
}

async fn generation(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return error(StatusCode::UNAUTHORIZED, "Invalid API key");
    }
    fakes.counted("luma.poll");
    match fakes.job(&id) {
        Some(job) => Json(view(&fakes, &headers, &job)).into_response(),
        None => error(StatusCode::NOT_FOUND, "Generation not found"),
    }
}
