//! The OpenAI-compatible Videos API: create (JSON or multipart, as the official SDK sends it,
//! with an `input_reference` first frame that must be exactly the requested size), remix of a
//! completed video, retrieve with `openai-poll-after-ms`, and content that is gone once
//! `expires_at` passes.

use std::collections::HashMap;
use std::time::Instant;

use axum::extract::{FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::content::video_response;
use crate::images;
use crate::state::{authorised, hex, with_faults, Fakes, Gate, Job, Outcome};

const SECONDS: [&str; 3] = ["4", "8", "12"];
const SIZES: [&str; 4] = ["720x1280", "1280x720", "1024x1792", "1792x1024"];

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/videos", post(create).get(list))
        .route("/videos/{id}", get(retrieve))
        .route("/videos/{id}/remix", post(remix))
        .route("/videos/{id}/content", get(content));
    with_faults(routes, fakes, "openai")
}

fn error(
    status: StatusCode,
    kind: &str,
    message: &str,
    param: Option<&str>,
    code: Option<&str>,
) -> Response {
    (
        status,
        Json(json!({"error": {"message": message, "type": kind, "param": param, "code": code}})),
    )
        .into_response()
}

fn invalid(message: &str, param: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        message,
        Some(param),
        None,
    )
}

/// As OpenAI words it, quoting a masked fragment of the key it was given.
fn unauthorised(headers: &axum::http::HeaderMap) -> Response {
    let presented = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    let masked = format!(
        "{}{}{}",
        presented.get(..4).unwrap_or(""),
        "*".repeat(presented.len().saturating_sub(8).max(4)),
        presented
            .get(presented.len().saturating_sub(4)..)
            .unwrap_or("")
    );
    error(
        StatusCode::UNAUTHORIZED,
        "invalid_request_error",
        &format!(
            "Incorrect API key provided: {masked}. You can find your API key at \
             https://platform.openai.com/account/api-keys."
        ),
        None,
        Some("invalid_api_key"),
    )
}

fn not_found(id: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        &format!("Video with id '{id}' not found."),
        None,
        Some("not_found"),
    )
}

/// The largest `input_reference` taken.
const MAX_REFERENCE_BYTES: usize = 20 * 1024 * 1024;

/// The create form as text fields, from JSON or multipart; an `input_reference` file is checked
/// as a picture and described (`image/jpeg 1280x720`).
async fn fields(request: Request) -> Result<HashMap<String, String>, Response> {
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let mut out = HashMap::new();
    if multipart {
        let mut form = Multipart::from_request(request, &())
            .await
            .map_err(|e| invalid(&e.body_text(), "body"))?;
        while let Ok(Some(field)) = form.next_field().await {
            let name = field.name().unwrap_or_default().to_owned();
            if name == "input_reference" {
                let bytes = field
                    .bytes()
                    .await
                    .map_err(|e| invalid(&e.body_text(), &name))?;
                if bytes.len() > MAX_REFERENCE_BYTES {
                    return Err(invalid("input_reference is too large", &name));
                }
                let seen = images::picture(&bytes).map_err(|e| invalid(&e, &name))?;
                out.insert(name, seen.to_string());
                continue;
            }
            let text = field
                .text()
                .await
                .map_err(|e| invalid(&e.body_text(), &name))?;
            out.insert(name, text);
        }
    } else {
        let Json(body) = Json::<Value>::from_request(request, &())
            .await
            .map_err(|e| invalid(&e.body_text(), "body"))?;
        for (name, value) in body.as_object().into_iter().flatten() {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.insert(name.clone(), text);
        }
    }
    Ok(out)
}

async fn create(State(fakes): State<Fakes>, request: Request) -> Response {
    fakes.counted("openai.create");
    let settings = fakes.settings();
    if !authorised(request.headers(), "Bearer", &settings.key) {
        return unauthorised(request.headers());
    }
    let form = match fields(request).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let prompt = form.get("prompt").cloned().unwrap_or_default();
    if prompt.is_empty() || prompt.chars().count() > 32_000 {
        return invalid("prompt must be 1 to 32000 characters", "prompt");
    }
    let seconds = form.get("seconds").cloned().unwrap_or_else(|| "4".into());
    if !SECONDS.contains(&seconds.as_str()) {
        return invalid(
            &format!("Invalid value: '{seconds}'. Supported values are: '4', '8', and '12'."),
            "seconds",
        );
    }
    let size = form
        .get("size")
        .cloned()
        .unwrap_or_else(|| "720x1280".into());
    if !SIZES.contains(&size.as_str()) {
        return invalid(&format!("Invalid value: '{size}'."), "size");
    }
    let model = form
        .get("model")
        .cloned()
        .unwrap_or_else(|| "sora-2".into());
    let mut job = Job::new(format!("video_{}", hex(48)), &model, &prompt, seconds, size);
    if let Some(reference) = form.get("input_reference") {
        // The API takes only a first frame of exactly the video's size.
        let (width, height) = job.size.split_once('x').unwrap_or_default();
        if !reference.ends_with(&format!(" {width}x{height}")) {
            return invalid(
                "Inpaint image must match the requested width and height",
                "input_reference",
            );
        }
        job.inputs.push(format!("first_frame {reference}"));
    }
    let body = video(&fakes, &job);
    fakes.insert(job).await;
    Json(body).into_response()
}

/// `POST /videos/{id}/remix {prompt}`: a new video from a completed one, at its size and length.
async fn remix(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Option<Json<Value>>,
) -> Response {
    let settings = fakes.settings();
    if !authorised(&headers, "Bearer", &settings.key) {
        return unauthorised(&headers);
    }
    fakes.counted("openai.create");
    let Some(source) = fakes.job(&id) else {
        return not_found(&id);
    };
    if !(source.finished(&settings) && source.outcome == Outcome::Succeeds) {
        return invalid("Only completed videos can be remixed.", "video_id");
    }
    let prompt = body
        .as_ref()
        .and_then(|Json(b)| b.get("prompt")?.as_str().map(str::to_owned))
        .unwrap_or_default();
    if prompt.is_empty() || prompt.chars().count() > 32_000 {
        return invalid("prompt must be 1 to 32000 characters", "prompt");
    }
    let mut job = Job::new(
        format!("video_{}", hex(48)),
        &source.model,
        &prompt,
        source.seconds.clone(),
        source.size.clone(),
    );
    job.inputs.push(format!("remix_of {id}"));
    let mut body = video(&fakes, &job);
    body["remixed_from_video_id"] = json!(id);
    fakes.insert(job).await;
    Json(body).into_response()
}

/// The Video object for `job` as it stands now.
fn video(fakes: &Fakes, job: &Job) -> Value {
    let settings = fakes.settings();
    let fraction = job.fraction(&settings);
    let finished = job.finished(&settings);
    let (status, error) = match (finished, job.outcome) {
        (false, _) if fraction < 0.1 => ("queued", Value::Null),
        (false, _) => ("in_progress", Value::Null),
        (true, Outcome::Succeeds) => ("completed", Value::Null),
        (true, Outcome::Moderated) => (
            "failed",
            json!({"code": "moderation_blocked", "message": "Your request was blocked by our moderation system."}),
        ),
        (true, Outcome::Fails) => (
            "failed",
            json!({"code": "video_generation_failed", "message": "Video generation failed."}),
        ),
    };
    let completed = status == "completed";
    let completed_at = job.completed_unix(&settings);
    json!({
        "id": job.id,
        "object": "video",
        "model": job.model,
        "status": status,
        "progress": if completed { 100 } else { (fraction * 100.0) as u32 },
        "created_at": job.created_unix,
        "completed_at": if completed { json!(completed_at) } else { Value::Null },
        "expires_at": if completed { json!(completed_at + settings.content_ttl.as_secs()) } else { Value::Null },
        "size": job.size,
        "seconds": job.seconds,
        "quality": "standard",
        "prompt": job.prompt,
        "remixed_from_video_id": null,
        "error": error,
    })
}

/// `GET /videos?limit=&order=desc&after=`: the account's videos, newest first.
async fn list(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let settings = fakes.settings();
    if !authorised(&headers, "Bearer", &settings.key) {
        return unauthorised(&headers);
    }
    fakes.counted("openai.list");
    fakes.pass(Gate::Find).await;
    let limit = query
        .get("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(20)
        .clamp(1, 100);
    let mut jobs: Vec<Job> = fakes
        .jobs()
        .into_iter()
        .filter(|j| j.id.starts_with("video_"))
        .collect();
    if query.get("order").is_some_and(|o| o == "asc") {
        jobs.reverse();
    }
    if let Some(after) = query.get("after") {
        if let Some(at) = jobs.iter().position(|j| &j.id == after) {
            jobs.drain(..=at);
        }
    }
    let has_more = jobs.len() > limit;
    let data: Vec<Value> = jobs.iter().take(limit).map(|j| video(&fakes, j)).collect();
    Json(json!({
        "object": "list",
        "first_id": data.first().map(|v| v["id"].clone()),
        "last_id": data.last().map(|v| v["id"].clone()),
        "has_more": has_more,
        "data": data,
    }))
    .into_response()
}

async fn retrieve(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let settings = fakes.settings();
    if !authorised(&headers, "Bearer", &settings.key) {
        return unauthorised(&headers);
    }
    fakes.counted("openai.poll");
    let Some(job) = fakes.job(&id) else {
        return not_found(&id);
    };
    let advice = settings.poll_after.as_millis().to_string();
    (
        [("openai-poll-after-ms", advice)],
        Json(video(&fakes, &job)),
    )
        .into_response()
}

async fn content(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let settings = fakes.settings();
    if !authorised(&headers, "Bearer", &settings.key) {
        return unauthorised(&headers);
    }
    fakes.counted("openai.content");
    let Some(job) = fakes.job(&id) else {
        return not_found(&id);
    };
    if query.get("variant").is_some_and(|v| v != "video") {
        return invalid("This fake serves the video variant only", "variant");
    }
    if !(job.finished(&settings) && job.outcome == Outcome::Succeeds) {
        return invalid(
            "Video is not ready yet, use GET /videos/{video_id} to check status.",
            "video_id",
        );
    }
    if Instant::now() > job.expires(&settings) {
        return error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "Video content has expired.",
            None,
            Some("video_expired"),
        );
    }
    video_response(&fakes, &settings)
}
