//! The Gemini API's Veo models: `POST /v1beta/models/{model}:predictLongRunning` with the key
//! in `x-goog-api-key` (never a bearer token), strict about every field name and the inline
//! frames (`{bytesBase64Encoded, mimeType}`, raw base64); `GET /v1beta/{operation}` until
//! `done`, with the google.rpc error envelope, safety-filtered runs that end without samples,
//! and a video URI under the same API that needs the key and expires.

use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use crate::content::video_response;
use crate::images;
use crate::state::{hex, with_faults, Fakes, Job, Outcome};

const ASPECTS: [&str; 2] = ["16:9", "9:16"];
const RESOLUTIONS: [&str; 2] = ["720p", "1080p"];
const SECONDS: [u64; 3] = [4, 6, 8];
const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/v1beta/models/{call}", post(predict))
        .route("/v1beta/models/{model}/operations/{id}", get(operation))
        .route("/v1beta/files/{file}", get(file));
    with_faults(routes, fakes, "gemini")
}

/// The google.rpc error envelope.
fn error(status: StatusCode, rpc: &str, message: &str) -> Response {
    let body = json!({"error": {"code": status.as_u16(), "message": message, "status": rpc}});
    (status, Json(body)).into_response()
}

fn invalid(message: &str) -> Response {
    error(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT", message)
}

/// The rejection for a request without the key in its header, if any.
fn check(fakes: &Fakes, headers: &HeaderMap) -> Option<Response> {
    match headers.get("x-goog-api-key").and_then(|v| v.to_str().ok()) {
        None => Some(error(
            StatusCode::FORBIDDEN,
            "PERMISSION_DENIED",
            "Method doesn't allow unregistered callers. Please use an API Key.",
        )),
        Some(key) if key != fakes.settings().key => {
            Some(invalid("API key not valid. Please pass a valid API key."))
        }
        Some(_) => None,
    }
}

/// Refuses a field not in `known`, as the API does.
fn only(object: &Map<String, Value>, known: &[&str], place: &str) -> Result<(), String> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(format!(
            "Invalid JSON payload received. Unknown name \"{unknown}\" at '{place}': Cannot find field."
        )),
        None => Ok(()),
    }
}

/// An inline image `{bytesBase64Encoded, mimeType}`, described (`image/jpeg 1280x720`).
fn image(value: &Value, place: &str) -> Result<String, String> {
    let object = value
        .as_object()
        .ok_or(format!("{place} must be an object"))?;
    only(object, &["bytesBase64Encoded", "mimeType"], place)?;
    let data = object
        .get("bytesBase64Encoded")
        .and_then(Value::as_str)
        .ok_or(format!("{place}.bytesBase64Encoded is required"))?;
    let mime = object
        .get("mimeType")
        .and_then(Value::as_str)
        .ok_or(format!("{place}.mimeType is required"))?;
    Ok(images::raw_base64(data, mime, MAX_IMAGE_BYTES)?.to_string())
}

/// A request whose every field has been checked.
struct Checked {
    prompt: String,
    seconds: String,
    /// Aspect and resolution: `16:9 720p`.
    shape: String,
    /// The pictures, described: `image image/jpeg 1280x720`, ...
    inputs: Vec<String>,
}

fn check_body(body: &Value) -> Result<Checked, String> {
    let top = body.as_object().ok_or("The body must be an object")?;
    only(top, &["instances", "parameters"], "")?;
    let instances = top
        .get("instances")
        .and_then(Value::as_array)
        .filter(|i| i.len() == 1)
        .ok_or("instances must hold one instance")?;
    let instance = instances[0]
        .as_object()
        .ok_or("instances[0] must be an object")?;
    only(
        instance,
        &["prompt", "image", "lastFrame", "referenceImages", "video"],
        "instances[0]",
    )?;
    let prompt = instance
        .get("prompt")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .ok_or("instances[0].prompt is required")?;
    let mut inputs = Vec::new();
    if let Some(first) = instance.get("image") {
        inputs.push(format!("image {}", image(first, "instances[0].image")?));
    }
    if let Some(last) = instance.get("lastFrame") {
        inputs.push(format!(
            "lastFrame {}",
            image(last, "instances[0].lastFrame")?
        ));
    }
    if let Some(references) = instance.get("referenceImages") {
        let references = references
            .as_array()
            .ok_or("referenceImages must be a list")?;
        if references.len() > 3 {
            return Err("At most 3 reference images are supported".into());
        }
        for (i, reference) in references.iter().enumerate() {
            let place = format!("instances[0].referenceImages[{i}]");
            let object = reference
                .as_object()
                .ok_or(format!("{place} must be an object"))?;
            only(object, &["image", "referenceType"], &place)?;
            if object.get("referenceType").and_then(Value::as_str) != Some("ASSET") {
                return Err(format!("{place}.referenceType must be ASSET"));
            }
            let seen = image(object.get("image").unwrap_or(&Value::Null), &place)?;
            inputs.push(format!("referenceImages {seen}"));
        }
    }
    let empty = Map::new();
    let parameters = top
        .get("parameters")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    only(
        parameters,
        &[
            "aspectRatio",
            "resolution",
            "durationSeconds",
            "negativePrompt",
            "seed",
            "personGeneration",
        ],
        "parameters",
    )?;
    let text = |name: &str, default: &'static str| {
        parameters
            .get(name)
            .and_then(Value::as_str)
            .map_or(default.to_owned(), str::to_owned)
    };
    let aspect = text("aspectRatio", "16:9");
    if !ASPECTS.contains(&aspect.as_str()) {
        return Err(format!("aspectRatio {aspect} is not supported"));
    }
    let resolution = text("resolution", "720p");
    if !RESOLUTIONS.contains(&resolution.as_str()) {
        return Err(format!("resolution {resolution} is not supported"));
    }
    let seconds = parameters
        .get("durationSeconds")
        .map_or(Some(8), Value::as_u64);
    let seconds = seconds
        .filter(|s| SECONDS.contains(s))
        .ok_or("durationSeconds must be 4, 6 or 8")?;
    Ok(Checked {
        prompt: prompt.to_owned(),
        seconds: seconds.to_string(),
        shape: format!("{aspect} {resolution}"),
        inputs,
    })
}

async fn predict(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(call): Path<String>,
    body: Option<Json<Value>>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("gemini.create");
    let Some(model) = call.strip_suffix(":predictLongRunning") else {
        return error(StatusCode::NOT_FOUND, "NOT_FOUND", "Method not found.");
    };
    let Some(Json(body)) = body else {
        return invalid("Invalid JSON payload received.");
    };
    let checked = match check_body(&body) {
        Ok(checked) => checked,
        Err(message) => return invalid(&message),
    };
    let name = format!("models/{model}/operations/{}", hex(12));
    let mut job = Job::new(
        name.clone(),
        model,
        &checked.prompt,
        checked.seconds,
        checked.shape,
    );
    job.inputs = checked.inputs;
    fakes.insert(job).await;
    Json(json!({ "name": name })).into_response()
}

async fn operation(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path((model, id)): Path<(String, String)>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("gemini.poll");
    let name = format!("models/{model}/operations/{id}");
    let Some(job) = fakes.job(&name) else {
        return error(StatusCode::NOT_FOUND, "NOT_FOUND", "Operation not found.");
    };
    let settings = fakes.settings();
    if !job.finished(&settings) {
        return Json(json!({ "name": name })).into_response();
    }
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    let body = match job.outcome {
        Outcome::Succeeds => json!({
            "name": name, "done": true,
            "response": {
                "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
                "generateVideoResponse": {"generatedSamples": [{"video": {
                    "uri": format!("http://{host}/gemini/v1beta/files/{id}:download?alt=media")
                }}]}
            }
        }),
        Outcome::Moderated => json!({
            "name": name, "done": true,
            "response": {"generateVideoResponse": {
                "raiMediaFilteredCount": 1,
                "raiMediaFilteredReasons": ["The video was filtered because the prompt may violate the usage guidelines."]
            }}
        }),
        Outcome::Fails => json!({
            "name": name, "done": true,
            "error": {"code": 13, "message": "Internal error while generating the video."}
        }),
    };
    Json(body).into_response()
}

async fn file(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(file): Path<String>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("gemini.content");
    let id = file.strip_suffix(":download").unwrap_or(&file);
    let settings = fakes.settings();
    let job = fakes
        .jobs()
        .into_iter()
        .find(|j| j.id.ends_with(&format!("/operations/{id}")));
    match job {
        Some(job) if job.finished(&settings) && job.outcome == Outcome::Succeeds => {
            if Instant::now() > job.expires(&settings) {
                return error(StatusCode::NOT_FOUND, "NOT_FOUND", "File has expired.");
            }
            video_response(settings.content_bytes)
        }
        _ => error(StatusCode::NOT_FOUND, "NOT_FOUND", "File not found."),
    }
}
