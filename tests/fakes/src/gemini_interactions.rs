//! The Gemini API's Interactions API for its Omni video model (`gemini-omni-1.1-flash`), as
//! Google's generated types state it: `POST /v1beta/interactions` with the key in
//! `x-goog-api-key`, `model`, `input` (a string or content blocks: `{type: "text", text}`,
//! `{type: "image", data, mime_type}` raw base64), `background`, `store`,
//! `response_modalities`, `response_format {type: "video", aspect_ratio, duration, resolution,
//! delivery}`, `previous_interaction_id` (a completed interaction of this key, stored), strict
//! about every field; it answers the Interaction, `status` `in_progress`. `GET
//! /v1beta/interactions/{id}` answers it as it stands: `completed` with a `model_output` step
//! whose video content is a `uri` under `/v1beta/files/` (fetched with the key, as Veo's) or,
//! for a prompt containing `inline`, base64 `data`; `failed` with the step's `error` (a
//! moderated prompt) or `errors` (one that fails). `POST .../{id}/cancel` cancels it. The
//! duration is a google.protobuf.Duration in JSON (`"8s"`), 3 to 10 s (third-party guides),
//! the aspect 16:9 or 9:16, the resolution 720p, at most five images. Its calls are counted as
//! `omni.create`, `omni.poll` and `omni.cancel`, apart from Veo's.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use serde_json::{json, Map, Value};

use super::gemini::{check, error, invalid, only};
use crate::content::byte_at;
use crate::images;
use crate::state::{hex, Fakes, Job, Outcome};

const MODEL: &str = "gemini-omni-1.1-flash";
const MAX_IMAGES: usize = 5;
const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

pub fn routes() -> Router<Fakes> {
    Router::new()
        .route("/v1beta/interactions", post(create))
        .route("/v1beta/interactions/{id}", get(interaction))
        .route("/v1beta/interactions/{id}/cancel", post(cancel))
}

/// The job that stands for interaction `id`.
fn job_id(id: &str) -> String {
    format!("interactions/{id}")
}

fn text<'a>(object: &'a Map<String, Value>, field: &str) -> Option<&'a str> {
    object.get(field).and_then(Value::as_str)
}

/// The content blocks of `input`, described (`image image/jpeg 1280x720`), and its prompt.
fn input(value: Option<&Value>) -> Result<(String, Vec<String>), String> {
    let blocks = match value {
        Some(Value::String(prompt)) => return Ok((prompt.clone(), Vec::new())),
        Some(Value::Array(blocks)) => blocks,
        _ => return Err("input is required".into()),
    };
    let (mut prompt, mut seen) = (String::new(), Vec::new());
    for (at, block) in blocks.iter().enumerate() {
        let place = format!("input[{at}]");
        let object = block
            .as_object()
            .ok_or(format!("{place} must be an object"))?;
        match text(object, "type") {
            Some("text") => {
                only(object, &["type", "text"], &place)?;
                prompt.push_str(text(object, "text").unwrap_or(""));
            }
            Some("image") => {
                only(
                    object,
                    &["type", "data", "mime_type", "uri", "resolution"],
                    &place,
                )?;
                let data = text(object, "data").ok_or(format!("{place}.data is required"))?;
                let mime =
                    text(object, "mime_type").ok_or(format!("{place}.mime_type is required"))?;
                seen.push(format!(
                    "image {}",
                    images::raw_base64(data, mime, MAX_IMAGE_BYTES)?
                ));
            }
            other => {
                return Err(format!(
                    "{place}.type {other:?} is not supported by {MODEL}"
                ))
            }
        }
    }
    if seen.len() > MAX_IMAGES {
        return Err(format!("{MODEL} takes at most {MAX_IMAGES} images"));
    }
    Ok((prompt, seen))
}

/// The checked `response_format`: seconds, and the shape (`16:9 720p`).
fn format(value: Option<&Value>) -> Result<(u64, String), String> {
    let object = value
        .and_then(Value::as_object)
        .ok_or("response_format is required for a video")?;
    only(
        object,
        &[
            "type",
            "aspect_ratio",
            "duration",
            "resolution",
            "delivery",
            "gcs_uri",
        ],
        "response_format",
    )?;
    if text(object, "type") != Some("video") {
        return Err("response_format.type must be video".into());
    }
    let aspect = text(object, "aspect_ratio").unwrap_or("16:9");
    if !["16:9", "9:16"].contains(&aspect) {
        return Err(format!(
            "response_format.aspect_ratio {aspect} is not supported"
        ));
    }
    let resolution = text(object, "resolution").unwrap_or("720p");
    if resolution != "720p" {
        return Err(format!(
            "response_format.resolution {resolution} is not supported"
        ));
    }
    let duration = text(object, "duration").unwrap_or("8s");
    let seconds = duration
        .strip_suffix('s')
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|n| (3..=10).contains(n))
        .ok_or(format!(
            "response_format.duration {duration:?} must be 3s to 10s"
        ))?;
    Ok((seconds, format!("{aspect} {resolution}")))
}

fn checked(fakes: &Fakes, body: &Value) -> Result<Job, String> {
    let top = body.as_object().ok_or("The body must be an object")?;
    let known = [
        "model",
        "input",
        "background",
        "store",
        "response_modalities",
        "response_format",
        "previous_interaction_id",
        "generation_config",
        "webhook_config",
        "system_instruction",
    ];
    only(top, &known, "body")?;
    if text(top, "model") != Some(MODEL) {
        return Err(format!(
            "models/{} is not found for the Interactions API",
            text(top, "model").unwrap_or("")
        ));
    }
    if top.get("background").and_then(Value::as_bool) != Some(true) {
        return Err("A video interaction must run in the background".into());
    }
    let modalities = top.get("response_modalities").and_then(Value::as_array);
    if !modalities.is_some_and(|m| m.iter().any(|v| v == "video")) {
        return Err("response_modalities must ask for video".into());
    }
    let (prompt, images) = input(top.get("input"))?;
    let (seconds, shape) = format(top.get("response_format"))?;
    let mut job = Job::new(job_id(&hex(16)), MODEL, &prompt, seconds.to_string(), shape);
    job.inputs = images;
    if let Some(previous) = text(top, "previous_interaction_id") {
        let settings = fakes.settings();
        match fakes.job(&job_id(previous)) {
            Some(before) if before.finished(&settings) && before.outcome == Outcome::Succeeds => {
                job.inputs
                    .push(format!("previous_interaction_id {previous}"));
            }
            _ => {
                return Err(format!(
                    "previous_interaction_id {previous} is not a completed interaction"
                ))
            }
        }
    }
    Ok(job)
}

/// The Interaction as the API answers it now.
fn view(fakes: &Fakes, headers: &HeaderMap, job: &Job) -> Value {
    let settings = fakes.settings();
    let id = job.id.strip_prefix("interactions/").unwrap_or(&job.id);
    let user = json!({ "type": "user_input", "content": [{ "type": "text", "text": job.prompt }] });
    let (status, steps, errors) = match (job.finished(&settings), job.outcome) {
        (false, _) => ("in_progress", json!([user]), json!([])),
        (true, Outcome::Succeeds) => {
            let video = if job.prompt.contains("inline") {
                let bytes: Vec<u8> = (0..settings.content_bytes).map(byte_at).collect();
                let data = base64::engine::general_purpose::STANDARD.encode(bytes);
                json!({ "type": "video", "mime_type": "video/mp4", "data": data })
            } else {
                let host = headers
                    .get("host")
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("127.0.0.1");
                let uri = format!("http://{host}/gemini/v1beta/files/{id}:download?alt=media");
                json!({ "type": "video", "mime_type": "video/mp4", "uri": uri })
            };
            let output = json!({ "type": "model_output", "content": [video] });
            ("completed", json!([user, output]), json!([]))
        }
        (true, Outcome::Moderated) => {
            let message = "The video was blocked by safety filters: the prompt may violate the usage guidelines.";
            let output =
                json!({ "type": "model_output", "error": { "code": 3, "message": message } });
            ("failed", json!([user, output]), json!([]))
        }
        (true, Outcome::Fails) => {
            let error = json!({ "code": "internal", "message": "Internal error while generating the video." });
            ("failed", json!([user]), json!([error]))
        }
    };
    json!({
        "id": id, "model": job.model, "object": "interaction", "status": status,
        "steps": steps, "errors": errors, "role": "model",
    })
}

async fn create(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Value>>,
) -> Response {
    if let Some(refused) = check(&fakes, &headers) {
        return refused;
    }
    fakes.counted("omni.create");
    let Some(Json(body)) = body else {
        return invalid("Invalid JSON payload received.");
    };
    match checked(&fakes, &body) {
        Ok(job) => {
            let answer = view(&fakes, &headers, &job);
            fakes.insert(job).await;
            Json(answer).into_response()
        }
        Err(message) => invalid(&message),
    }
}

async fn interaction(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(refused) = check(&fakes, &headers) {
        return refused;
    }
    fakes.counted("omni.poll");
    match fakes.job(&job_id(&id)) {
        Some(job) => Json(view(&fakes, &headers, &job)).into_response(),
        None => error(StatusCode::NOT_FOUND, "NOT_FOUND", "Interaction not found."),
    }
}

async fn cancel(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(refused) = check(&fakes, &headers) {
        return refused;
    }
    fakes.counted("omni.cancel");
    match fakes.job(&job_id(&id)) {
        Some(job) => {
            let mut answer = view(&fakes, &headers, &job);
            answer["status"] = json!("cancelled");
            Json(answer).into_response()
        }
        None => error(StatusCode::NOT_FOUND, "NOT_FOUND", "Interaction not found."),
    }
}
