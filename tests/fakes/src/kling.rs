//! Kling's official API: a bearer JWT (HS256, `iss` the access key, `exp` at most 30 minutes
//! ahead, `nbf` passed) signed with the secret key (here the key followed by `-secret`);
//! `POST /v1/videos/text2video` and `/v1/videos/image2video` (`image`, `image_tail` as raw
//! base64, never a `data:` URI), strict about field names, lengths (`kling-v3`: 3 to 15 s;
//! earlier models 5 or 10) and `sound` (Kling 3.0, and 2.6 in pro mode); `GET /v1/videos/{kind}/{id}` by task
//! id or `external_task_id`; every answer in `{code, message, request_id, data}`. Elements
//! (`element_list`, Kling 3.0) are made in `kling_elements.rs`.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{json, Map, Value};

use crate::callbacks::call_back;
use crate::content::signed_url;
use crate::images;
use crate::kling_elements;
use crate::state::{finishes_after, hex, with_faults, Fakes, Job, Outcome};

const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;
const MIN_SIDE: usize = 300;
const FIELDS: [&str; 16] = [
    "model_name",
    "prompt",
    "negative_prompt",
    "mode",
    "aspect_ratio",
    "duration",
    "external_task_id",
    "image",
    "image_tail",
    "cfg_scale",
    "callback_url",
    "sound",
    "multi_shot",
    "shot_type",
    "multi_prompt",
    "element_list",
];

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/v1/videos/{kind}", post(create))
        .route("/v1/videos/{kind}/{id}", get(task))
        .route(
            "/v1/general/advanced-custom-elements",
            post(kling_elements::create),
        )
        .route(
            "/v1/general/advanced-custom-elements/{id}",
            get(kling_elements::task),
        );
    with_faults(routes, fakes, "kling")
}

/// An answer in Kling's envelope.
pub(crate) fn envelope(status: StatusCode, code: u32, message: &str, data: Value) -> Response {
    let body = json!({"code": code, "message": message, "request_id": hex(16), "data": data});
    (status, Json(body)).into_response()
}

pub(crate) fn refuse(status: StatusCode, code: u32, message: &str) -> Response {
    envelope(status, code, message, Value::Null)
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// The refusal for a request without a valid token, if any (codes as Kling documents them).
pub(crate) fn check(fakes: &Fakes, headers: &HeaderMap) -> Option<Response> {
    let key = fakes.settings().key;
    let Some(token) = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return Some(refuse(
            StatusCode::UNAUTHORIZED,
            1001,
            "Authorization is empty",
        ));
    };
    let mut validation = Validation::new(Algorithm::HS256);
    validation.validate_nbf = true;
    validation.leeway = 0;
    validation.set_issuer(&[&key]);
    validation.set_required_spec_claims(&["exp", "nbf", "iss"]);
    let secret = format!("{key}-secret");
    let claims = match jsonwebtoken::decode::<Value>(
        token,
        &DecodingKey::from_secret(secret.as_bytes()),
        &validation,
    ) {
        Ok(data) => data.claims,
        Err(e) => {
            let code = match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => 1004,
                jsonwebtoken::errors::ErrorKind::ImmatureSignature => 1003,
                _ => 1002,
            };
            return Some(refuse(
                StatusCode::UNAUTHORIZED,
                code,
                &format!("Authorization is invalid: {e}"),
            ));
        }
    };
    let exp = claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
    if exp > unix_now() + 30 * 60 + 5 {
        return Some(refuse(
            StatusCode::UNAUTHORIZED,
            1002,
            "exp is more than 30 minutes ahead",
        ));
    }
    None
}

/// A frame as raw base64 within Kling's limits, described.
pub(crate) fn frame(value: &Value, name: &str) -> Result<String, String> {
    let data = value.as_str().ok_or(format!("{name} must be a string"))?;
    let seen = ["image/jpeg", "image/png"]
        .iter()
        .find_map(|t| images::raw_base64(data, t, MAX_IMAGE_BYTES).ok())
        .ok_or_else(
            || match images::raw_base64(data, "image/jpeg", MAX_IMAGE_BYTES) {
                Err(e) => format!("{name}: {e}"),
                Ok(_) => format!("{name} is not a JPEG or PNG"),
            },
        )?;
    if seen.width < MIN_SIDE || seen.height < MIN_SIDE {
        return Err(format!(
            "{name} must be at least {MIN_SIDE} px on each side"
        ));
    }
    let ratio = seen.width as f64 / seen.height as f64;
    if !(0.4..=2.5).contains(&ratio) {
        return Err(format!(
            "{name}'s aspect ratio must be between 1:2.5 and 2.5:1"
        ));
    }
    Ok(format!("{name} {seen}"))
}

/// A multi-shot call's shots, checked (Kling 3.0; `customize`: up to six, each with its
/// index from 1, a prompt of at most 512 characters and a length, adding up to `duration`),
/// described as `shots 4+4+4`.
fn shots(model: &str, duration: &str, body: &Map<String, Value>) -> Result<String, String> {
    if model != "kling-v3" {
        return Err(format!("multi_shot is not supported by {model}"));
    }
    if body.get("shot_type").and_then(Value::as_str) != Some("customize") {
        return Err("shot_type must be customize or intelligence".into());
    }
    let shots = body
        .get("multi_prompt")
        .and_then(Value::as_array)
        .filter(|s| (1..=6).contains(&s.len()))
        .ok_or("multi_prompt must list 1 to 6 shots")?;
    let mut lengths = Vec::new();
    for (at, shot) in shots.iter().enumerate() {
        let index = shot.get("index").and_then(Value::as_u64);
        let prompt = shot.get("prompt").and_then(Value::as_str).unwrap_or("");
        let seconds = shot
            .get("duration")
            .and_then(Value::as_str)
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|d| *d >= 1);
        match (index, seconds) {
            (Some(i), Some(seconds)) if i == at as u64 + 1 && !prompt.is_empty() && prompt.chars().count() <= 512 => {
                lengths.push(seconds)
            }
            _ => return Err(format!("multi_prompt[{at}] needs its index, a prompt of 1 to 512 characters and a duration")),
        }
    }
    let total: u32 = lengths.iter().sum();
    if total.to_string() != duration {
        return Err(format!(
            "the shots' durations add up to {total}, not {duration}"
        ));
    }
    let lengths: Vec<String> = lengths.iter().map(u32::to_string).collect();
    Ok(format!("shots {}", lengths.join("+")))
}

/// The task a checked body makes.
fn checked(fakes: &Fakes, kind: &str, body: &Map<String, Value>) -> Result<Job, String> {
    if let Some(unknown) = body.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!("Unknown field {unknown}"));
    }
    let text = |field: &str| body.get(field).and_then(Value::as_str);
    let prompt = text("prompt").filter(|p| !p.is_empty() && p.chars().count() <= 2500);
    let prompt = prompt.ok_or("prompt is required (at most 2500 characters)")?;
    let model = text("model_name").unwrap_or("kling-v1");
    let v3 = model == "kling-v3";
    let duration = text("duration").unwrap_or("5");
    let lengths: Vec<String> = if v3 {
        (3..=15).map(|s: u32| s.to_string()).collect()
    } else {
        vec!["5".into(), "10".into()]
    };
    if !lengths.iter().any(|l| l == duration) {
        return Err(format!(
            "duration must be one of {} for {model}",
            lengths.join(", ")
        ));
    }
    let mode = text("mode").unwrap_or("std");
    let mut extras = vec![format!("mode {mode}")];
    if let Some(sound) = body.get("sound") {
        let takes_sound = v3 || (model == "kling-v2-6" && mode == "pro");
        if !takes_sound {
            return Err(format!("sound is not supported by {model} in {mode} mode"));
        }
        let sound = sound.as_str().filter(|s| ["on", "off"].contains(s));
        extras.push(format!(
            "sound {}",
            sound.ok_or("sound must be \"on\" or \"off\"")?
        ));
    }
    let ratio = text("aspect_ratio").unwrap_or("16:9");
    if !["16:9", "9:16", "1:1"].contains(&ratio) {
        return Err(format!("aspect_ratio {ratio} is not supported"));
    }
    if body.get("multi_shot").and_then(Value::as_bool) == Some(true) {
        extras.push(shots(model, duration, body)?);
    } else if body.contains_key("multi_prompt") || body.contains_key("shot_type") {
        return Err("multi_prompt and shot_type are taken with multi_shot only".into());
    }
    if let Some(list) = body.get("element_list") {
        extras.push(kling_elements::element_list(fakes, kind, model, list)?);
    }
    if !["std", "pro"].contains(&mode) {
        return Err("mode must be std or pro".into());
    }
    let external = text("external_task_id").map(str::to_owned);
    if let Some(id) = &external {
        if fakes
            .jobs()
            .iter()
            .any(|j| j.external_id.as_deref() == Some(id))
        {
            return Err(format!("external_task_id {id} is already used"));
        }
    }
    let mut inputs = Vec::new();
    for name in ["image", "image_tail"] {
        if let Some(value) = body.get(name) {
            if kind != "image2video" {
                return Err(format!("{name} is only taken by image2video"));
            }
            inputs.push(frame(value, name)?);
        }
    }
    if kind == "image2video" && inputs.is_empty() {
        return Err("image or image_tail is required".into());
    }
    let mut job = Job::new(
        hex(18),
        model,
        prompt,
        duration.to_owned(),
        ratio.to_owned(),
    );
    job.inputs = inputs;
    job.external_id = external;
    job.extras = extras;
    Ok(job)
}

async fn create(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(kind): Path<String>,
    body: Option<Json<Value>>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("kling.create");
    if !["text2video", "image2video"].contains(&kind.as_str()) {
        return refuse(StatusCode::NOT_FOUND, 1200, "Not found");
    }
    let Some(Json(Value::Object(body))) = body else {
        return refuse(StatusCode::BAD_REQUEST, 1200, "Invalid request body");
    };
    match checked(&fakes, &kind, &body) {
        Ok(mut job) => {
            let data = view(&fakes, &headers, &job);
            if let Some(url) = body.get("callback_url").and_then(Value::as_str) {
                job.callback = Some(url.to_owned());
                let (id, headers) = (job.id.clone(), headers.clone());
                let after = finishes_after(&fakes.settings(), &job);
                call_back(&fakes, url.to_owned(), after, move |fakes| {
                    let task = fakes.job(&id).map(|job| view(fakes, &headers, &job));
                    (Vec::new(), serde_json::to_vec(&task).unwrap_or_default())
                });
            }
            fakes.insert(job).await;
            envelope(StatusCode::OK, 0, "SUCCEED", data)
        }
        Err(message) => refuse(StatusCode::BAD_REQUEST, 1201, &message),
    }
}

/// A task as Kling answers it now.
fn view(fakes: &Fakes, headers: &HeaderMap, job: &Job) -> Value {
    let settings = fakes.settings();
    let (status, message) = match (job.finished(&settings), job.outcome) {
        (false, _) if job.fraction(&settings) < 0.2 => ("submitted", ""),
        (false, _) => ("processing", ""),
        (true, Outcome::Succeeds) => ("succeed", ""),
        (true, Outcome::Moderated) => ("failed", "The content failed the risk control check."),
        (true, Outcome::Fails) => ("failed", "Internal error while generating the video."),
    };
    let updated = if job.finished(&settings) {
        job.completed_unix(&settings)
    } else {
        job.created_unix
    };
    let mut data = json!({
        "task_id": job.id, "task_status": status, "task_status_msg": message,
        "task_info": {"external_task_id": job.external_id},
        "created_at": job.created_unix * 1000, "updated_at": updated * 1000,
    });
    if status == "succeed" {
        data["task_result"] = json!({"videos": [{
            "id": job.id, "duration": job.seconds,
            "url": signed_url(headers, &job.id, settings.content_ttl),
        }]});
        data["final_unit_deduction"] = json!("1");
    }
    data
}

async fn task(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path((kind, id)): Path<(String, String)>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("kling.poll");
    let found = fakes.jobs().into_iter().find(|j| {
        let made_as = if j.inputs.is_empty() {
            "text2video"
        } else {
            "image2video"
        };
        made_as == kind && (j.id == id || j.external_id.as_deref() == Some(id.as_str()))
    });
    match found {
        Some(job) => envelope(StatusCode::OK, 0, "SUCCEED", view(&fakes, &headers, &job)),
        None => refuse(StatusCode::NOT_FOUND, 1203, "Task not found"),
    }
}
