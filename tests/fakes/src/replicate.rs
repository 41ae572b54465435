//! Replicate: `POST /v1/models/{owner}/{name}/predictions` (bearer token; `{input}` checked
//! against each known model's own input names, images as data URIs), `GET /v1/predictions/{id}`
//! walking `status` starting, processing, succeeded, failed or canceled, with `output` a URI
//! that expires, and `POST /v1/predictions/{id}/cancel`. A prediction with a `webhook` is
//! posted there when it is done, signed by Standard Webhooks under the account's secret
//! (`GET /v1/webhooks/default/secret`).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use crate::callbacks::call_back;
use crate::content::signed_url;
use crate::images;
use crate::state::{
    authorised, finishes_after, hex, seed, unix_now, with_faults, Fakes, Job, Outcome,
};

const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;

/// Each known model's inputs, and which of them are images (a list for `reference_images`).
/// `acme/clip-2` stands for a model Studio knows only by a mapping in its configuration.
const SCHEMAS: [(&str, &[&str], &[&str]); 6] = [
    (
        "acme/clip-2",
        &["prompt", "init_image", "tail_image", "duration"],
        &["init_image", "tail_image"],
    ),
    (
        "google/veo-3.1",
        &[
            "prompt",
            "image",
            "last_frame",
            "reference_images",
            "duration",
            "aspect_ratio",
            "resolution",
            "negative_prompt",
            "seed",
            "generate_audio",
        ],
        &["image", "last_frame", "reference_images"],
    ),
    (
        "bytedance/seedance-1-pro",
        &[
            "prompt",
            "image",
            "last_frame_image",
            "duration",
            "resolution",
            "aspect_ratio",
            "fps",
            "seed",
            "camera_fixed",
        ],
        &["image", "last_frame_image"],
    ),
    (
        "minimax/hailuo-2.3",
        &[
            "prompt",
            "first_frame_image",
            "duration",
            "resolution",
            "prompt_optimizer",
        ],
        &["first_frame_image"],
    ),
    (
        "wan-video/wan-2.5-i2v",
        &[
            "prompt",
            "image",
            "duration",
            "resolution",
            "negative_prompt",
            "seed",
        ],
        &["image"],
    ),
    (
        "luma/ray-flash-2-720p",
        &[
            "prompt",
            "start_image",
            "end_image",
            "duration",
            "aspect_ratio",
            "loop",
        ],
        &["start_image", "end_image"],
    ),
];

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/v1/models/{owner}/{name}/predictions", post(create))
        .route("/v1/predictions/{id}", get(prediction))
        .route("/v1/predictions/{id}/cancel", post(cancel))
        .route("/v1/webhooks/default/secret", get(signing_secret));
    with_faults(routes, fakes, "replicate")
}

fn problem(status: StatusCode, title: &str, detail: &str) -> Response {
    let body = json!({"title": title, "detail": detail, "status": status.as_u16()});
    (status, Json(body)).into_response()
}

fn unauthorised() -> Response {
    problem(
        StatusCode::UNAUTHORIZED,
        "Unauthenticated",
        "You did not pass a valid authentication token",
    )
}

/// The inputs of `model`, checked; the images described.
fn checked(model: &str, input: &Map<String, Value>) -> Result<(String, Vec<String>), String> {
    let prompt = input
        .get("prompt")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .ok_or("prompt is required")?;
    let mut seen = Vec::new();
    if let Some((_, known, pictures)) = SCHEMAS.iter().find(|(m, _, _)| *m == model) {
        if let Some(unknown) = input.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!(
                "{unknown}: Additional property {unknown} is not allowed"
            ));
        }
        for name in pictures.iter() {
            let uris: Vec<&Value> = match input.get(*name) {
                Some(Value::Array(items)) => items.iter().collect(),
                Some(one) => vec![one],
                None => Vec::new(),
            };
            for uri in uris {
                let uri = uri.as_str().ok_or(format!("{name} must be a URI"))?;
                let picture =
                    images::data_uri(uri, MAX_IMAGE_BYTES).map_err(|e| format!("{name}: {e}"))?;
                seen.push(format!("{name} {picture}"));
            }
        }
    }
    seen.extend(seed(input.get("seed"))?);
    Ok((prompt.to_owned(), seen))
}

async fn create(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path((owner, name)): Path<(String, String)>,
    body: Option<Json<Value>>,
) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return unauthorised();
    }
    fakes.counted("replicate.create");
    let model = format!("{owner}/{name}");
    let Some(Json(Value::Object(body))) = body else {
        return problem(
            StatusCode::BAD_REQUEST,
            "Invalid request",
            "The body must be a JSON object",
        );
    };
    if let Some(unknown) = body
        .keys()
        .find(|k| !["input", "webhook", "webhook_events_filter"].contains(&k.as_str()))
    {
        return problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid request",
            &format!("Unknown field {unknown}"),
        );
    }
    let Some(input) = body.get("input").and_then(Value::as_object) else {
        return problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Input validation failed",
            "input is required",
        );
    };
    let (prompt, inputs) = match checked(&model, input) {
        Ok(checked) => checked,
        Err(detail) => {
            return problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                "Input validation failed",
                &detail,
            )
        }
    };
    let seconds = input
        .get("duration")
        .map(Value::to_string)
        .unwrap_or_default();
    let mut job = Job::new(
        hex(26).to_lowercase(),
        &model,
        &prompt,
        seconds,
        String::new(),
    );
    job.inputs = inputs;
    let view = view(&fakes, &headers, &job);
    if let Some(webhook) = body.get("webhook") {
        let events = body.get("webhook_events_filter").cloned();
        if let Err(detail) = webhook_checked(webhook, events.as_ref()) {
            return problem(StatusCode::UNPROCESSABLE_ENTITY, "Invalid request", &detail);
        }
        let url = webhook.as_str().unwrap_or_default().to_owned();
        job.callback = Some(url.clone());
        let (id, headers) = (job.id.clone(), headers.clone());
        let after = finishes_after(&fakes.settings(), &job);
        call_back(&fakes, url, after, move |fakes| {
            let prediction = fakes.job(&id).map(|job| self::view(fakes, &headers, &job));
            signed(&serde_json::to_vec(&prediction).unwrap_or_default())
        });
    }
    fakes.insert(job).await;
    (StatusCode::CREATED, Json(view)).into_response()
}

/// A webhook address (http or https) and the events it asks for (Replicate's four).
fn webhook_checked(webhook: &Value, events: Option<&Value>) -> Result<(), String> {
    let url = webhook.as_str().unwrap_or_default();
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err("webhook must be an http or https URL".into());
    }
    let known = ["start", "output", "logs", "completed"];
    match events {
        None => Ok(()),
        Some(Value::Array(events))
            if events
                .iter()
                .all(|e| e.as_str().is_some_and(|e| known.contains(&e))) =>
        {
            Ok(())
        }
        Some(_) => Err("webhook_events_filter takes start, output, logs and completed".into()),
    }
}

/// The account's webhook signing secret (Standard Webhooks: `whsec_` and a base64 key).
const SIGNING_SECRET: &str = "whsec_c3R1ZGlvLWZha2UtcmVwbGljYXRlLXNpZ25pbmcta2V5";

/// `GET /v1/webhooks/default/secret`.
async fn signing_secret(State(fakes): State<Fakes>, headers: HeaderMap) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return unauthorised();
    }
    fakes.counted("replicate.secret");
    Json(json!({ "key": SIGNING_SECRET })).into_response()
}

/// A delivery of `body` with its Standard Webhooks headers.
fn signed(body: &[u8]) -> (Vec<(String, String)>, Vec<u8>) {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use hmac::{Hmac, Mac};
    let id = format!("msg_{}", hex(24));
    let timestamp = unix_now();
    let key = STANDARD
        .decode(SIGNING_SECRET.trim_start_matches("whsec_"))
        .expect("the secret is base64");
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).expect("any key length");
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    let signature = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
    let headers = vec![
        ("webhook-id".to_owned(), id),
        ("webhook-timestamp".to_owned(), timestamp.to_string()),
        ("webhook-signature".to_owned(), signature),
    ];
    (headers, body.to_vec())
}

/// A prediction as Replicate answers it now.
fn view(fakes: &Fakes, headers: &HeaderMap, job: &Job) -> Value {
    let settings = fakes.settings();
    let (status, error) = match (job.finished(&settings), job.outcome) {
        (false, _) if job.fraction(&settings) < 0.2 => ("starting", Value::Null),
        (false, _) => ("processing", Value::Null),
        (true, Outcome::Succeeds) => ("succeeded", Value::Null),
        (true, Outcome::Moderated) => (
            "failed",
            json!("E005: The input or output was flagged as sensitive."),
        ),
        (true, Outcome::Fails) => (
            "failed",
            json!("Internal error while generating the video."),
        ),
    };
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    json!({
        "id": job.id, "model": job.model, "status": status, "error": error,
        "output": if status == "succeeded" { json!(signed_url(headers, &job.id, settings.content_ttl)) } else { Value::Null },
        "metrics": if status == "succeeded" { json!({"predict_time": 42.5}) } else { json!({}) },
        "urls": {
            "get": format!("http://{host}/replicate/v1/predictions/{}", job.id),
            "cancel": format!("http://{host}/replicate/v1/predictions/{}/cancel", job.id),
        },
    })
}

async fn prediction(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return unauthorised();
    }
    fakes.counted("replicate.poll");
    match fakes.job(&id) {
        Some(job) => Json(view(&fakes, &headers, &job)).into_response(),
        None => problem(
            StatusCode::NOT_FOUND,
            "Not found",
            "The requested resource could not be found",
        ),
    }
}

async fn cancel(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if !authorised(&headers, "Bearer", &fakes.settings().key) {
        return unauthorised();
    }
    fakes.counted("replicate.cancel");
    match fakes.job(&id) {
        Some(job) => {
            let mut view = view(&fakes, &headers, &job);
            view["status"] = json!("canceled");
            Json(view).into_response()
        }
        None => problem(
            StatusCode::NOT_FOUND,
            "Not found",
            "The requested resource could not be found",
        ),
    }
}
