//! Veo on Vertex AI and the Google OAuth token endpoint a service account's key file names.
//! `POST /token` takes `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and an
//! `assertion`: a JWT the key file's key signed (RS256, checked against
//! `fixtures/vertex-key.pub.pem`), whose `iss` is the account, `aud` this endpoint, `scope`
//! cloud-platform, not expired; it answers `{access_token, expires_in, token_type}`. `POST
//! /v1/projects/{project}/locations/{location}/publishers/google/models/{model}:predictLongRunning`
//! (a bearer token it issued; the Veo instances and parameters, strict) answers the operation's
//! `name`; `...:fetchPredictOperation {operationName}` answers it, done with the video inline
//! (`response.videos[].bytesBase64Encoded`), filtered by safety (a moderated prompt) or failed.
//! Errors are the google.rpc envelope. Its calls are counted as `vertex.*`.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Form, Json, Router};
use base64::Engine;
use rsa::pkcs8::DecodePublicKey;
use rsa::traits::PublicKeyParts;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::content::byte_at;
use crate::gemini::{error, image, only};
use crate::state::{hex, with_faults, Fakes, Job, Outcome};

/// The test service account's key, and the public half the fake checks its tokens with.
pub const PRIVATE_KEY: &str = include_str!("../fixtures/vertex-key.pem");
const PUBLIC_KEY: &str = include_str!("../fixtures/vertex-key.pub.pem");
pub const ACCOUNT: &str = "studio@studio-test.iam.gserviceaccount.com";
pub const PROJECT: &str = "studio-test";
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
const MODELS: [&str; 2] = ["veo-3.1-generate-001", "veo-3.1-fast-generate-001"];

/// A service account key file whose token endpoint is this fake at `base` (its address).
pub fn key_file(base: &str) -> String {
    json!({
        "type": "service_account",
        "project_id": PROJECT,
        "private_key_id": "test-key-1",
        "private_key": PRIVATE_KEY,
        "client_email": ACCOUNT,
        "token_uri": format!("{base}/vertex/token"),
    })
    .to_string()
}

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    let routes = Router::new().route("/token", post(token)).route(
        "/v1/projects/{project}/locations/{location}/publishers/google/models/{call}",
        post(model_call),
    );
    with_faults(routes, fakes, "vertex")
}

#[derive(Deserialize)]
struct Grant {
    grant_type: String,
    assertion: String,
}

async fn token(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Form(grant): Form<Grant>,
) -> Response {
    fakes.counted("vertex.token");
    let refused = |why: &str| {
        (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant", "error_description": why})),
        )
            .into_response()
    };
    if grant.grant_type != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
        return refused("Invalid grant_type");
    }
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_audience(&[format!("http://{host}/vertex/token")]);
    validation.set_issuer(&[ACCOUNT]);
    validation.set_required_spec_claims(&["exp", "iat", "iss", "aud"]);
    let public = rsa::RsaPublicKey::from_public_key_pem(PUBLIC_KEY).expect("the fixture key");
    let key = jsonwebtoken::DecodingKey::from_rsa_raw_components(
        &public.n().to_bytes_be(),
        &public.e().to_bytes_be(),
    );
    let claims = match jsonwebtoken::decode::<Value>(&grant.assertion, &key, &validation) {
        Ok(data) => data.claims,
        Err(e) => return refused(&format!("Invalid JWT: {e}")),
    };
    if claims.get("scope").and_then(Value::as_str) != Some(SCOPE) {
        return refused("Invalid scope");
    }
    let token = format!("ya29.{}", hex(24));
    fakes.insert_token(&token);
    Json(json!({"access_token": token, "expires_in": 3599, "token_type": "Bearer"})).into_response()
}

fn predicted(model: &str, body: &Value, name: String) -> Result<Job, String> {
    let top = body.as_object().ok_or("The body must be an object")?;
    only(top, &["instances", "parameters"], "body")?;
    let instance = top
        .get("instances")
        .and_then(Value::as_array)
        .and_then(|i| i.first())
        .and_then(Value::as_object)
        .ok_or("instances[0] is required")?;
    only(
        instance,
        &["prompt", "image", "lastFrame", "referenceImages", "video"],
        "instances[0]",
    )?;
    let prompt = instance.get("prompt").and_then(Value::as_str).unwrap_or("");
    let empty = Map::new();
    let parameters = top
        .get("parameters")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let known = [
        "aspectRatio",
        "resolution",
        "durationSeconds",
        "sampleCount",
        "seed",
        "generateAudio",
        "personGeneration",
        "storageUri",
        "negativePrompt",
    ];
    only(parameters, &known, "parameters")?;
    let seconds = parameters
        .get("durationSeconds")
        .and_then(Value::as_u64)
        .unwrap_or(8);
    if ![4, 6, 8].contains(&seconds) {
        return Err(format!(
            "durationSeconds {seconds} is not supported by {model}"
        ));
    }
    let aspect = parameters
        .get("aspectRatio")
        .and_then(Value::as_str)
        .unwrap_or("16:9");
    let resolution = parameters
        .get("resolution")
        .and_then(Value::as_str)
        .unwrap_or("720p");
    if !["16:9", "9:16"].contains(&aspect) || !["720p", "1080p"].contains(&resolution) {
        return Err(format!("{aspect} at {resolution} is not supported"));
    }
    if parameters
        .get("sampleCount")
        .and_then(Value::as_u64)
        .is_some_and(|n| !(1..=4).contains(&n))
    {
        return Err("sampleCount must be 1 to 4".into());
    }
    let mut job = Job::new(
        name,
        model,
        prompt,
        seconds.to_string(),
        format!("{aspect} {resolution}"),
    );
    for (field, label) in [("image", "image"), ("lastFrame", "lastFrame")] {
        if let Some(value) = instance.get(field) {
            job.inputs.push(format!(
                "{label} {}",
                image(value, &format!("instances[0].{field}"))?
            ));
        }
    }
    for (at, reference) in instance
        .get("referenceImages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let place = format!("instances[0].referenceImages[{at}]");
        let object = reference
            .as_object()
            .ok_or(format!("{place} must be an object"))?;
        only(object, &["image", "referenceType"], &place)?;
        let seen = image(
            object.get("image").unwrap_or(&Value::Null),
            &format!("{place}.image"),
        )?;
        job.inputs.push(format!("referenceImages {seen}"));
    }
    Ok(job)
}

/// The operation as `fetchPredictOperation` answers it now.
fn operation(fakes: &Fakes, job: &Job) -> Value {
    let settings = fakes.settings();
    if !job.finished(&settings) {
        return json!({ "name": job.id });
    }
    let kind = "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse";
    match job.outcome {
        Outcome::Succeeds => {
            let bytes: Vec<u8> = (0..settings.content_bytes).map(byte_at).collect();
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            json!({ "name": job.id, "done": true, "response": {
                "@type": kind, "raiMediaFilteredCount": 0,
                "videos": [{ "bytesBase64Encoded": data, "mimeType": "video/mp4" }],
            }})
        }
        Outcome::Moderated => json!({ "name": job.id, "done": true, "response": {
            "@type": kind, "raiMediaFilteredCount": 1,
            "raiMediaFilteredReasons": ["The video was filtered because the prompt may violate the usage guidelines."],
        }}),
        Outcome::Fails => json!({ "name": job.id, "done": true,
            "error": { "code": 13, "message": "Internal error while generating the video." } }),
    }
}

async fn model_call(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path((project, location, call)): Path<(String, String, String)>,
    body: Option<Json<Value>>,
) -> Response {
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if !bearer.is_some_and(|t| fakes.has_token(t)) {
        return error(
            StatusCode::UNAUTHORIZED,
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials. Expected OAuth 2 access token.",
        );
    }
    if project != PROJECT {
        return error(
            StatusCode::FORBIDDEN,
            "PERMISSION_DENIED",
            &format!("Permission denied on resource project {project}."),
        );
    }
    let Some((model, method)) = call.split_once(':') else {
        return error(StatusCode::NOT_FOUND, "NOT_FOUND", "Method not found.");
    };
    if !MODELS.contains(&model) {
        return error(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            &format!("Publisher Model {model} was not found."),
        );
    }
    let Some(Json(body)) = body else {
        return error(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            "Invalid JSON payload received.",
        );
    };
    match method {
        "predictLongRunning" => {
            fakes.counted("vertex.create");
            let name = format!("projects/{project}/locations/{location}/publishers/google/models/{model}/operations/{}", hex(16));
            match predicted(model, &body, name) {
                Ok(job) => {
                    let name = job.id.clone();
                    fakes.insert(job).await;
                    Json(json!({ "name": name })).into_response()
                }
                Err(message) => error(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT", &message),
            }
        }
        "fetchPredictOperation" => {
            fakes.counted("vertex.poll");
            let name = body
                .get("operationName")
                .and_then(Value::as_str)
                .unwrap_or("");
            match fakes.job(name) {
                Some(job) if job.model == model => Json(operation(&fakes, &job)).into_response(),
                _ => error(StatusCode::NOT_FOUND, "NOT_FOUND", "Operation not found."),
            }
        }
        _ => error(StatusCode::NOT_FOUND, "NOT_FOUND", "Method not found."),
    }
}
