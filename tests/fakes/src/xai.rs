//! xAI's video API (Grok Imagine), as its OpenAPI document states it: `POST
//! /v1/videos/generations` (`model` `grok-imagine-video`, `duration` 1 to 15 as a number or a
//! string, `aspect_ratio`, `resolution` 480p or 720p, a first frame as `image` and
//! `reference_images`, each `{url}` a public URL or a data URI), `/v1/videos/extensions`
//! (`duration` 2 to 10) and `/v1/videos/edits`, whose `video` is `{url}` of a video; each
//! answers 200 `{request_id}`. `GET /v1/videos/{request_id}` answers 202 while pending (first
//! without a body, then with `{status: "pending", progress}`), then 200 with `status` `done`
//! (`video {url, duration, respect_moderation}`, `usage.cost_in_usd_ticks`) or `failed`
//! (`error {code, message}`). A moderated video is done with `respect_moderation` false and no
//! URL. Errors are `{code, error}`; unknown fields are refused.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use crate::content::signed_url;
use crate::images;
use crate::state::{authorised, hex, with_faults, Fakes, Job, Outcome};

const MODEL: &str = "grok-imagine-video";
const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;
/// What a second of 720p costs, in USD ticks (10^10 to the dollar).
const TICKS_PER_SECOND: u64 = 700_000_000;

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/v1/videos/generations", post(generation))
        .route("/v1/videos/extensions", post(extension))
        .route("/v1/videos/edits", post(edit))
        .route("/v1/videos/{id}", get(request));
    with_faults(routes, fakes, "xai")
}

fn error(status: StatusCode, message: &str) -> Response {
    let code = match status {
        StatusCode::UNAUTHORIZED => "Unauthorized",
        StatusCode::NOT_FOUND => "Not found",
        _ => "Client specified an invalid argument",
    };
    (status, Json(json!({ "code": code, "error": message }))).into_response()
}

fn only(object: &Map<String, Value>, known: &[&str], place: &str) -> Result<(), String> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(format!("{place}: unknown field `{unknown}`")),
        None => Ok(()),
    }
}

/// A number, or a string of one, within `range`.
fn seconds(value: Option<&Value>, default: u32, range: (u32, u32)) -> Result<u32, String> {
    let seconds = match value {
        None | Some(Value::Null) => default,
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or("duration must be a whole number")?,
        Some(Value::String(s)) => s
            .parse()
            .map_err(|_| format!("duration {s:?} is not a number"))?,
        Some(_) => return Err("duration must be a number".into()),
    };
    if seconds < range.0 || seconds > range.1 {
        return Err(format!(
            "duration must be between {} and {}",
            range.0, range.1
        ));
    }
    Ok(seconds)
}

/// An image `{url}`: a data URI (checked) or a public URL.
fn image(value: &Value, place: &str) -> Result<String, String> {
    let object = value
        .as_object()
        .ok_or(format!("{place} must be an object"))?;
    only(object, &["url", "file_id"], place)?;
    match object.get("url").and_then(Value::as_str) {
        Some(uri) if uri.starts_with("data:") => {
            let seen = images::data_uri(uri, MAX_IMAGE_BYTES)?;
            Ok(format!(
                "{} {}x{}",
                seen.content_type, seen.width, seen.height
            ))
        }
        Some(url) if url.starts_with("https://") => Ok(format!("url {url}")),
        _ => Err(format!("{place}.url must be a public URL or a data URI")),
    }
}

/// A video `{url}` of a request this fake made and finished: the request's id.
fn video(fakes: &Fakes, value: Option<&Value>) -> Result<String, String> {
    let object = value
        .and_then(Value::as_object)
        .ok_or("video is required")?;
    only(object, &["url", "file_id"], "video")?;
    let url = object
        .get("url")
        .and_then(Value::as_str)
        .ok_or("video.url is required")?;
    let settings = fakes.settings();
    fakes
        .jobs()
        .into_iter()
        .find(|job| {
            url.contains(&format!("/{}", job.id))
                && job.finished(&settings)
                && job.outcome == Outcome::Succeeds
        })
        .map(|job| job.id)
        .ok_or(format!("video.url {url} could not be fetched"))
}

fn body_of(body: Option<Json<Value>>) -> Result<Map<String, Value>, String> {
    match body {
        Some(Json(Value::Object(object))) => Ok(object),
        _ => Err("The body must be a JSON object".into()),
    }
}

fn model(top: &Map<String, Value>) -> Result<(), String> {
    match top.get("model").and_then(Value::as_str) {
        None | Some(MODEL) => Ok(()),
        Some(other) => Err(format!(
            "The model {other} does not exist or you do not have access to it."
        )),
    }
}

/// Answers a checked request, or refuses it.
async fn start(fakes: &Fakes, headers: &HeaderMap, made: Result<Job, String>) -> Response {
    if !authorised(headers, "Bearer", &fakes.settings().key) {
        return error(StatusCode::UNAUTHORIZED, "Incorrect API key provided");
    }
    fakes.counted("xai.create");
    match made {
        Ok(job) => {
            let id = job.id.clone();
            fakes.insert(job).await;
            Json(json!({ "request_id": id })).into_response()
        }
        Err(message) => error(StatusCode::UNPROCESSABLE_ENTITY, &message),
    }
}

fn new_job(prompt: &str, seconds: u32, size: String) -> Job {
    let id = hex(8) + "-" + &hex(4) + "-" + &hex(4) + "-" + &hex(4) + "-" + &hex(12);
    Job::new(id, MODEL, prompt, seconds.to_string(), size)
}

async fn generation(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Value>>,
) -> Response {
    let made = body_of(body).and_then(|top| {
        let known = [
            "model",
            "prompt",
            "duration",
            "aspect_ratio",
            "resolution",
            "image",
            "reference_images",
            "keyframes",
            "reference_audios",
            "output",
            "storage_options",
            "user",
        ];
        only(&top, &known, "body")?;
        model(&top)?;
        let first = top.get("image").filter(|v| !v.is_null());
        let references = top.get("reference_images").and_then(Value::as_array);
        let prompt = top.get("prompt").and_then(Value::as_str).unwrap_or("");
        if prompt.is_empty() && first.is_none() {
            return Err("prompt is required for text-to-video and reference-to-video".into());
        }
        let seconds = seconds(top.get("duration"), 8, (1, 15))?;
        let ratio = top
            .get("aspect_ratio")
            .and_then(Value::as_str)
            .unwrap_or("16:9");
        if !["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3"].contains(&ratio) {
            return Err(format!("aspect_ratio {ratio} is not supported"));
        }
        let resolution = top
            .get("resolution")
            .and_then(Value::as_str)
            .unwrap_or("480p");
        if !["480p", "720p"].contains(&resolution) {
            return Err(format!(
                "resolution {resolution} is not supported by {MODEL}"
            ));
        }
        let mut job = new_job(prompt, seconds, format!("{ratio} {resolution}"));
        if let Some(first) = first {
            job.inputs.push(format!("image {}", image(first, "image")?));
        }
        for (at, reference) in references.into_iter().flatten().enumerate() {
            let seen = image(reference, &format!("reference_images[{at}]"))?;
            job.inputs.push(format!("reference_image {seen}"));
        }
        Ok(job)
    });
    start(&fakes, &headers, made).await
}

/// A request that starts from a video this fake made (an extension or an edit), checked: its
/// fields (`known`), its model, prompt and video; `seconds` reads its length. The job made is
/// of size `kind`, its input described as `{verb} {source}`.
fn from_video(
    fakes: &Fakes,
    body: Option<Json<Value>>,
    known: &[&str],
    seconds: impl Fn(&Map<String, Value>) -> Result<u32, String>,
    kind: &str,
    verb: &str,
) -> Result<Job, String> {
    let top = body_of(body)?;
    only(&top, known, "body")?;
    model(&top)?;
    let prompt = top
        .get("prompt")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .ok_or("prompt is required")?;
    let length = seconds(&top)?;
    let source = video(fakes, top.get("video"))?;
    let mut job = new_job(prompt, length, kind.into());
    job.inputs.push(format!("{verb} {source}"));
    Ok(job)
}

async fn extension(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Value>>,
) -> Response {
    let known = [
        "model",
        "prompt",
        "duration",
        "video",
        "output",
        "storage_options",
    ];
    let length = |top: &Map<String, Value>| seconds(top.get("duration"), 6, (2, 10));
    let made = from_video(&fakes, body, &known, length, "extension", "extends");
    start(&fakes, &headers, made).await
}

async fn edit(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Value>>,
) -> Response {
    let known = [
        "model",
        "prompt",
        "video",
        "output",
        "storage_options",
        "user",
    ];
    let made = from_video(&fakes, body, &known, |_| Ok(8), "edit", "edits");
    start(&fakes, &headers, made).await
}

async fn request(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return error(StatusCode::UNAUTHORIZED, "Incorrect API key provided");
    }
    fakes.counted("xai.poll");
    let Some(job) = fakes.job(&id) else {
        return error(
            StatusCode::NOT_FOUND,
            &format!("No deferred video for request {id}"),
        );
    };
    let settings = fakes.settings();
    let fraction = job.fraction(&settings);
    if !job.finished(&settings) {
        // Early on a bare 202, as the SDK allows; later one with the progress.
        if fraction < 0.25 {
            return StatusCode::ACCEPTED.into_response();
        }
        let progress = (fraction * 100.0).min(99.0) as u64;
        return (
            StatusCode::ACCEPTED,
            Json(json!({ "status": "pending", "progress": progress })),
        )
            .into_response();
    }
    let seconds: u64 = job.seconds.parse().unwrap_or(8);
    let body = match job.outcome {
        Outcome::Succeeds => json!({
            "status": "done", "model": MODEL, "progress": 100,
            "video": {
                "url": signed_url(&headers, &job.id, settings.content_ttl),
                "duration": seconds, "respect_moderation": true,
            },
            "usage": { "cost_in_usd_ticks": seconds * TICKS_PER_SECOND },
        }),
        Outcome::Moderated => json!({
            "status": "done", "model": MODEL, "progress": 100,
            "video": { "url": "", "duration": seconds, "respect_moderation": false },
            "usage": { "cost_in_usd_ticks": seconds * TICKS_PER_SECOND },
        }),
        Outcome::Fails => json!({
            "status": "failed",
            "error": { "code": "internal_error", "message": "Video generation failed: internal error" },
        }),
    };
    Json(body).into_response()
}
