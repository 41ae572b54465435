//! fal.ai's queue: submit to `/{owner}/{app}[/{subpath}]`, then `.../requests/{id}/status` and
//! `.../requests/{id}` without the subpath; no percentage, only IN_QUEUE (with a position),
//! IN_PROGRESS and COMPLETED. A request submitted with `?fal_webhook=` is posted there when
//! done, signed with ED25519 under the key published at `/.well-known/jwks.json`.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{json, Value};
use sha2::Digest;

use crate::callbacks::call_back;
use crate::content::signed_url;
use crate::images;

/// The largest data URI image taken.
const MAX_DATA_URI_BYTES: usize = 10 * 1024 * 1024;
use crate::state::{authorised, finishes_after, hex, unix_now, with_faults, Fakes, Job, Outcome};

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/{owner}/{app}/requests/{id}/status", get(status))
        .route("/{owner}/{app}/requests/{id}/cancel", put(cancel))
        .route("/{owner}/{app}/requests/{id}", get(result))
        .route("/.well-known/jwks.json", get(jwks))
        .route("/{owner}/{app}", post(submit))
        .route("/{owner}/{app}/{*subpath}", post(submit));
    with_faults(routes, fakes, "fal")
}

fn detail(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "detail": message }))).into_response()
}

/// The rejection for a request without the right credentials, if any.
fn check(fakes: &Fakes, headers: &HeaderMap) -> Option<Response> {
    (!authorised(headers, "Key", &fakes.settings().key))
        .then(|| detail(StatusCode::UNAUTHORIZED, "Invalid key"))
}

fn base(headers: &HeaderMap, owner: &str, app: &str, id: &str) -> String {
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!("http://{host}/fal/{owner}/{app}/requests/{id}")
}

/// The key this fake signs its webhooks with (published at `/fal/.well-known/jwks.json`).
fn signing_key() -> SigningKey {
    SigningKey::from_bytes(&[42; 32])
}

/// `GET /.well-known/jwks.json`: the webhooks' public key, as fal publishes its own.
async fn jwks(State(fakes): State<Fakes>) -> Response {
    fakes.counted("fal.jwks");
    let x = URL_SAFE_NO_PAD.encode(signing_key().verifying_key().as_bytes());
    Json(json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "use": "sig", "kid": "fake", "x": x}]}))
        .into_response()
}

/// A webhook delivery of the request's outcome, signed as fal signs them.
fn webhook(fakes: &Fakes, headers: &HeaderMap, id: &str) -> (Vec<(String, String)>, Vec<u8>) {
    let settings = fakes.settings();
    let body = match fakes.job(id).map(|j| j.outcome) {
        Some(Outcome::Succeeds) => json!({
            "request_id": id, "gateway_request_id": id, "status": "OK",
            "payload": {"video": {"url": signed_url(headers, id, settings.content_ttl)}},
        }),
        _ => json!({
            "request_id": id, "gateway_request_id": id, "status": "ERROR",
            "error": "Internal error while generating the video.", "payload": null,
        }),
    };
    let body = serde_json::to_vec(&body).unwrap_or_default();
    let digest: String = sha2::Sha256::digest(&body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let timestamp = unix_now().to_string();
    let message = format!("{id}\nfake-user\n{timestamp}\n{digest}");
    let signature: String = signing_key()
        .sign(message.as_bytes())
        .to_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let headers = vec![
        ("x-fal-webhook-request-id".to_owned(), id.to_owned()),
        ("x-fal-webhook-user-id".to_owned(), "fake-user".to_owned()),
        ("x-fal-webhook-timestamp".to_owned(), timestamp),
        ("x-fal-webhook-signature".to_owned(), signature),
    ];
    (headers, body)
}

async fn submit(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(path): Path<Vec<(String, String)>>,
    Query(query): Query<HashMap<String, String>>,
    body: Option<Json<Value>>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("fal.submit");
    let Some(Json(input)) = body else {
        return detail(StatusCode::UNPROCESSABLE_ENTITY, "Invalid JSON input");
    };
    let Some(prompt) = input
        .get("prompt")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
    else {
        return detail(StatusCode::UNPROCESSABLE_ENTITY, "field required: prompt");
    };
    let get = |name: &str| {
        path.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_default()
    };
    let (owner, app) = (get("owner"), get("app"));
    // An image-to-video endpoint needs its `image_url`; a text-to-video one takes none.
    let image_endpoint = get("subpath").ends_with("image-to-video");
    let image = match (
        input.get("image_url").and_then(Value::as_str),
        image_endpoint,
    ) {
        (Some(uri), true) => match images::data_uri(uri, MAX_DATA_URI_BYTES) {
            Ok(seen) => Some(format!("image_url {seen}")),
            Err(message) => return detail(StatusCode::UNPROCESSABLE_ENTITY, &message),
        },
        (None, true) => {
            return detail(
                StatusCode::UNPROCESSABLE_ENTITY,
                "field required: image_url",
            )
        }
        (Some(_), false) => {
            return detail(StatusCode::UNPROCESSABLE_ENTITY, "extra field: image_url")
        }
        (None, false) => None,
    };
    let id = format!("{}-{}-{}-{}-{}", hex(8), hex(4), hex(4), hex(4), hex(12));
    let seconds = input
        .get("duration")
        .map(|d| d.to_string().trim_matches('"').to_owned())
        .unwrap_or_default();
    let ratio = input
        .get("aspect_ratio")
        .and_then(Value::as_str)
        .unwrap_or("16:9")
        .to_owned();
    let mut job = Job::new(
        id.clone(),
        &format!("{owner}/{app}"),
        prompt,
        seconds,
        ratio,
    );
    job.inputs.extend(image);
    if let Some(url) = query.get("fal_webhook") {
        job.callback = Some(url.clone());
        let (id, headers) = (id.clone(), headers.clone());
        let after = finishes_after(&fakes.settings(), &job);
        call_back(&fakes, url.clone(), after, move |fakes| {
            webhook(fakes, &headers, &id)
        });
    }
    fakes.insert(job).await;
    let base = base(&headers, owner, app, &id);
    Json(json!({
        "request_id": id,
        "response_url": base,
        "status_url": format!("{base}/status"),
        "cancel_url": format!("{base}/cancel"),
    }))
    .into_response()
}

async fn status(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path((owner, app, id)): Path<(String, String, String)>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("fal.poll");
    let Some(job) = fakes
        .job(&id)
        .filter(|j| j.model == format!("{owner}/{app}"))
    else {
        return detail(StatusCode::NOT_FOUND, "Request not found");
    };
    let settings = fakes.settings();
    let base = base(&headers, &owner, &app, &id);
    let body = match (job.finished(&settings), job.outcome) {
        (false, _) if job.fraction(&settings) < 0.2 => {
            json!({"status": "IN_QUEUE", "queue_position": 0, "response_url": base})
        }
        (false, _) => json!({"status": "IN_PROGRESS", "logs": [], "response_url": base}),
        (true, Outcome::Succeeds) => {
            json!({"status": "COMPLETED", "logs": [], "response_url": base})
        }
        (true, Outcome::Moderated) => json!({
            "status": "COMPLETED", "response_url": base,
            "error": "Content could not be processed: the prompt was flagged by the safety checker.",
        }),
        (true, Outcome::Fails) => json!({
            "status": "COMPLETED", "response_url": base, "error": "Internal error while generating the video.",
        }),
    };
    Json(body).into_response()
}

async fn result(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path((owner, app, id)): Path<(String, String, String)>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("fal.result");
    let Some(job) = fakes
        .job(&id)
        .filter(|j| j.model == format!("{owner}/{app}"))
    else {
        return detail(StatusCode::NOT_FOUND, "Request not found");
    };
    let settings = fakes.settings();
    match (job.finished(&settings), job.outcome) {
        (false, _) => detail(StatusCode::BAD_REQUEST, "Request is still in progress"),
        (true, Outcome::Succeeds) => Json(json!({
            "video": {
                "url": signed_url(&headers, &job.id, settings.content_ttl),
                "content_type": "video/mp4",
                "file_size": settings.content_bytes,
            },
            "seed": 42,
        }))
        .into_response(),
        (true, _) => detail(StatusCode::UNPROCESSABLE_ENTITY, "The request failed"),
    }
}

async fn cancel(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path((_, _, id)): Path<(String, String, String)>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("fal.cancel");
    match fakes.job(&id) {
        Some(job) if job.finished(&fakes.settings()) => (
            StatusCode::BAD_REQUEST,
            Json(json!({"status": "ALREADY_COMPLETED"})),
        )
            .into_response(),
        Some(_) => Json(json!({"status": "CANCELLATION_REQUESTED"})).into_response(),
        None => detail(StatusCode::NOT_FOUND, "Request not found"),
    }
}
