//! The job routes: create and list a project's jobs, read one job, save one to the library.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::ApiError;
use super::extract::{ApiPath, JsonBody, PublicBase};
use super::{valid_project, AppState};
use crate::engine::VideoSpec;
use crate::jobs::record::{is_valid_id, JobRecord};
use crate::jobs::NewJob;

const PROMPT_MAX_CHARS: usize = 4000;
const SECONDS_RANGE: std::ops::RangeInclusive<u32> = 1..=20;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateJob {
    prompt: String,
    #[serde(default)]
    seconds: Option<Seconds>,
    #[serde(default)]
    size: Option<String>,
    #[serde(default)]
    model: Option<String>,
}

/// `seconds` as a number or, as the OpenAI videos API sends it, a string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Seconds {
    Number(u32),
    Text(String),
}

#[derive(Deserialize)]
pub struct SaveJob {
    project_id: String,
    #[serde(default)]
    prompt: String,
}

fn checked_prompt(prompt: &str) -> Result<String, ApiError> {
    let prompt = prompt.trim();
    match prompt.chars().count() {
        0 => Err(ApiError::Unprocessable("prompt must not be empty".into())),
        n if n > PROMPT_MAX_CHARS => Err(ApiError::Unprocessable(format!(
            "prompt is longer than {PROMPT_MAX_CHARS} characters"
        ))),
        _ => Ok(prompt.to_owned()),
    }
}

fn spec(body: &CreateJob) -> Result<VideoSpec, ApiError> {
    let mut spec = VideoSpec::default();
    if let Some(seconds) = &body.seconds {
        let value = match seconds {
            Seconds::Number(n) => Some(*n),
            Seconds::Text(t) => t.trim().parse().ok(),
        };
        spec.seconds = value.filter(|s| SECONDS_RANGE.contains(s)).ok_or_else(|| {
            ApiError::Unprocessable("seconds must be a whole number from 1 to 20".into())
        })?;
    }
    if let Some(size) = &body.size {
        (spec.width, spec.height) = VideoSpec::parse_size(size).ok_or_else(|| {
            ApiError::Unprocessable(
                "size must be WIDTHxHEIGHT, even numbers from 128 to 1920".into(),
            )
        })?;
    }
    Ok(spec)
}

fn job_id(id: &str) -> Result<(), ApiError> {
    if is_valid_id(id) {
        Ok(())
    } else {
        Err(ApiError::NotFound("Job not found".into()))
    }
}

fn view(state: &AppState, base: &PublicBase, record: &JobRecord) -> Value {
    record.to_api(|key| base.url(state, key))
}

pub async fn create(
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<String>,
    JsonBody(body): JsonBody<CreateJob>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    valid_project(&project)?;
    let prompt = checked_prompt(&body.prompt)?;
    let spec = spec(&body)?;
    let record = state.jobs.create(NewJob {
        project_id: project,
        prompt,
        model: body.model,
        spec,
    })?;
    Ok((StatusCode::CREATED, Json(view(&state, &base, &record))))
}

pub async fn list(
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    valid_project(&project)?;
    let jobs: Vec<Value> = state
        .jobs
        .list(&project)
        .iter()
        .map(|r| view(&state, &base, r))
        .collect();
    Ok(Json(json!({ "jobs": jobs })))
}

pub async fn get(
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    job_id(&id)?;
    let record = state
        .jobs
        .get(&id)
        .ok_or_else(|| ApiError::NotFound("Job not found".into()))?;
    Ok(Json(view(&state, &base, &record)))
}

pub async fn save(
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(id): ApiPath<String>,
    JsonBody(body): JsonBody<SaveJob>,
) -> Result<Json<Value>, ApiError> {
    job_id(&id)?;
    valid_project(&body.project_id)?;
    let key = state
        .jobs
        .save(&id, &body.project_id, body.prompt.trim())
        .await?;
    Ok(Json(
        json!({ "r2_key": key, "public_url": base.url(&state, &key) }),
    ))
}
