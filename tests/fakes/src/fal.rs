//! fal.ai's queue: submit to `/{owner}/{app}[/{subpath}]`, then `.../requests/{id}/status` and
//! `.../requests/{id}` without the subpath; no percentage, only IN_QUEUE (with a position),
//! IN_PROGRESS and COMPLETED.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::content::signed_url;
use crate::images;

/// The largest data URI image taken.
const MAX_DATA_URI_BYTES: usize = 10 * 1024 * 1024;
use crate::state::{authorised, hex, with_faults, Fakes, Job, Outcome};

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new()
        .route("/{owner}/{app}/requests/{id}/status", get(status))
        .route("/{owner}/{app}/requests/{id}/cancel", put(cancel))
        .route("/{owner}/{app}/requests/{id}", get(result))
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

async fn submit(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(path): Path<Vec<(String, String)>>,
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
