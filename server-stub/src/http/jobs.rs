//! The job routes: create and list a project's jobs, read, cancel and remove one job, save one
//! to the library.

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody, OverBudgetBody};
use super::extract::{ApiPath, JsonBody, PublicBase};
use super::{valid_project, AppState};
use crate::engine::{Fit, VideoSpec};
use crate::jobs::cost::Cost;
use crate::jobs::inputs::Input;
use crate::jobs::record::{is_valid_id, JobRecord, Status, Take};
use crate::jobs::{NewJob, MAX_TAKES};
use crate::project_events::Change;
use crate::providers::Usage;
use crate::sequences::ShotLink;

const PROMPT_MAX_CHARS: usize = 4000;
/// The documented form of `seconds` as a string.
pub const SECONDS_PATTERN: &str = "^([1-9]|1[0-9]|20)$";
/// A size: `WxH`, each side even and 128 to 1920.
pub const SIZE_PATTERN: &str = r"^(1(28|[3-9][02468])|[2-9][0-9][02468]|1[0-8][0-9][02468]|1920)x(1(28|[3-9][02468])|[2-9][0-9][02468]|1[0-8][0-9][02468]|1920)$";
const SECONDS_RANGE: std::ops::RangeInclusive<u32> = 1..=20;

/// A new job: the prompt, and optionally its length, size and model.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateJob {
    /// 1 to 4000 characters, not only whitespace (sent trimmed to the provider).
    #[schema(min_length = 1, max_length = 4000, pattern = r"\S")]
    prompt: String,
    /// 1 to 20 (default 10); a number or a string such as "8".
    #[serde(default)]
    seconds: Option<Seconds>,
    /// WIDTHxHEIGHT, even, 128 to 1920 (default 1280x720; `SIZE_PATTERN` in the document).
    /// Hosted models make the nearest length and size they offer.
    #[serde(default)]
    size: Option<String>,
    /// One of GET /models (the server's default model when unset).
    #[serde(default)]
    model: Option<String>,
    /// Reference images in roles, and at most one video to extend or remix; the roles the
    /// model takes are in GET /models.
    #[serde(default)]
    #[schema(max_items = 8)]
    inputs: Vec<Input>,
    /// How images of another aspect are fitted to the job's size (default `crop`).
    #[serde(default)]
    fit: Fit,
    /// 0 to 4294967295: the same prompt, seed, size, length and inputs make the same video on
    /// local-1; sent to hosted models whose contract takes a seed.
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 4_294_967_295_i64)]
    seed: Option<f64>,
    /// The shot of one of the project's sequences this job is a take of: saved to the
    /// library, its video joins the shot's takes (and is chosen if the shot had none).
    #[serde(default)]
    shot: Option<ShotLink>,
}

/// Several takes of one shot: a job body and how many.
#[derive(Deserialize, ToSchema)]
pub struct CreateTakes {
    /// A job body, as for POST /projects/{project_id}/jobs.
    #[serde(flatten)]
    #[schema(value_type = CreateJob)]
    job: serde_json::Map<String, serde_json::Value>,
    /// 1 to 8 (JSON's 3.0 is 3).
    #[schema(value_type = i64, minimum = 1, maximum = 8)]
    count: f64,
}

/// The takes made, one job each.
#[derive(Serialize, ToSchema)]
pub struct Takes {
    takes: Vec<JobView>,
}

/// `seconds` as a number or, as the OpenAI videos API sends it, a string.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
enum Seconds {
    /// A whole number (JSON's 7.0 is 7).
    Number(f64),
    Text(String),
}

/// Where to save a finished job, and the prompt for its metadata.
#[derive(Deserialize, ToSchema)]
pub struct SaveJob {
    #[schema(pattern = "^[a-z0-9-]{1,64}$")]
    project_id: String,
    #[serde(default)]
    prompt: String,
}

/// A job as the API answers it: `preview_url` once done, `error` once failed.
#[derive(Serialize, ToSchema)]
pub struct JobView {
    /// `{model}:task_{id}`.
    sora_job_id: String,
    object: &'static str,
    status: Status,
    /// 0 to 100.
    progress: u8,
    /// Whether `progress` is estimated from elapsed time (the provider reports none).
    progress_estimated: bool,
    prompt: String,
    model: String,
    provider: String,
    project_id: String,
    seconds: u32,
    size: String,
    fps: u32,
    preview_url: Option<String>,
    /// A JPEG of the preview's first frame, once done.
    poster_url: Option<String>,
    /// The library key its video was saved as (`projects/{projectId}/{soraJobId}.mp4`), by
    /// any client, until that video is deleted from the library.
    final_r2_key: Option<String>,
    error: Option<String>,
    /// What the job is made from besides its prompt.
    inputs: Vec<Input>,
    fit: Fit,
    /// The video extended or remixed (a library file name or a job id).
    parent: Option<String>,
    /// The seed of this take (local-1 always has one; a hosted job, when its model takes one).
    seed: Option<u32>,
    /// For one of several takes: the shot (the first take's job id), which take, of how many.
    take: Option<Take>,
    /// What the provider reports the finished job used, in its own billing unit.
    provider_usage: Option<Usage>,
    /// The reference image made of the last frame the provider handed over.
    last_frame_reference: Option<String>,
    /// `{estimate_usd, actual_usd, source, seen}`: the price table's figure, and once finished
    /// what it cost (from the provider's report where it gives one).
    cost: Cost,
    created_at: String,
    updated_at: String,
}

impl JobView {
    pub(super) fn new(state: &AppState, base: &PublicBase, r: &JobRecord) -> Self {
        JobView {
            sora_job_id: r.sora_job_id.clone(),
            object: "video",
            status: r.status,
            progress: r.progress,
            progress_estimated: r.progress_estimated,
            prompt: r.prompt.clone(),
            model: r.model.clone(),
            provider: r.provider.clone(),
            project_id: r.project_id.clone(),
            seconds: r.spec.seconds,
            size: r.spec.size(),
            fps: r.spec.fps,
            preview_url: r
                .preview_key
                .as_deref()
                .filter(|_| r.status == Status::Done)
                .map(|k| base.url(state, k)),
            poster_url: r
                .preview_key
                .as_deref()
                .filter(|_| r.status == Status::Done)
                .and_then(crate::poster::poster_key)
                .map(|k| base.url(state, &k)),
            final_r2_key: r.saved_key.clone(),
            error: r.error.clone(),
            inputs: r.inputs.clone(),
            fit: r.fit,
            parent: r.parent.clone(),
            seed: r.seed,
            take: r.take.clone(),
            provider_usage: r.provider_usage,
            last_frame_reference: r.last_frame_reference.clone(),
            cost: crate::jobs::cost::of(r),
            created_at: r.created_at.clone(),
            updated_at: r.updated_at.clone(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct JobList {
    jobs: Vec<JobView>,
}

#[derive(Serialize, ToSchema)]
pub struct Saved {
    /// The storage key: `projects/{projectId}/{soraJobId}.mp4`.
    r2_key: String,
    public_url: String,
}

fn checked_prompt(prompt: &str) -> Result<String, ApiError> {
    if prompt.chars().count() > PROMPT_MAX_CHARS {
        return Err(ApiError::Unprocessable(format!(
            "prompt is longer than {PROMPT_MAX_CHARS} characters"
        )));
    }
    // Blank as the documented pattern `\S` reads it: Unicode white space and the four
    // information separators (U+001C to U+001F) that regex engines count as space too.
    let blank = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
    match prompt.trim_matches(blank) {
        "" => Err(ApiError::Unprocessable("prompt must not be empty".into())),
        trimmed => Ok(trimmed.to_owned()),
    }
}

fn spec(body: &CreateJob) -> Result<VideoSpec, ApiError> {
    let mut spec = VideoSpec::default();
    if let Some(seconds) = &body.seconds {
        let value = match seconds {
            Seconds::Number(n) => {
                (n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX)).then_some(*n as u32)
            }
            Seconds::Text(t) => studio_core::video_size::strict_number(t),
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

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/jobs",
    tag = "jobs",
    params(("project_id" = String, Path, description = "1 to 100 characters, not blank, no control characters")),
    request_body = CreateJob,
    responses(
        (status = 201, description = "The job, queued", body = JobView),
        (status = 400, description = "Malformed JSON or project id", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        (status = 404, description = "An input's reference image or video is not in this project", body = ErrorBody),
        (status = 409, description = "The video to extend or remix is a job not finished yet", body = ErrorBody),
        (status = 422, description = "Invalid prompt, seconds, size or model, or inputs the model does not take", body = ErrorBody),
        (status = 402, description = "It would take this month's spending past the project's or the studio's cap", body = OverBudgetBody),
        (status = 429, description = "Too many active jobs, or the provider's daily budget is spent (see Retry-After)", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<String>,
    JsonBody(body): JsonBody<CreateJob>,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    valid_project(&project)?;
    let new = new_job(project, body)?;
    check_shot(&state, &new.project_id, &new).await?;
    let record = state.jobs.create(new).await?;
    Ok((
        StatusCode::CREATED,
        Json(JobView::new(&state, &base, &record)),
    ))
}

fn new_job(project_id: String, body: CreateJob) -> Result<NewJob, ApiError> {
    Ok(NewJob {
        project_id,
        prompt: checked_prompt(&body.prompt)?,
        spec: spec(&body)?,
        model: body.model,
        inputs: body.inputs,
        fit: body.fit,
        seed: body.seed.map(seed).transpose()?,
        shot: body.shot,
    })
}

/// The job's shot, when it names one, is a shot of one of the project's sequences.
async fn check_shot(state: &AppState, project: &str, new: &NewJob) -> Result<(), ApiError> {
    match &new.shot {
        Some(link) => super::sequences::check_link(state, project, link).await,
        None => Ok(()),
    }
}

/// A seed: a whole number (JSON's 7.0 is 7) from 0 to 2^32-1.
fn seed(value: f64) -> Result<u32, ApiError> {
    let whole = value.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&value);
    whole.then_some(value as u32).ok_or_else(|| {
        ApiError::Unprocessable("seed must be a whole number from 0 to 4294967295".into())
    })
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/takes",
    tag = "jobs",
    params(("project_id" = String, Path, description = "1 to 100 characters, not blank, no control characters")),
    request_body = CreateTakes,
    responses(
        (status = 201, description = "The takes, queued: one job each, seeds counting up from the first", body = Takes),
        (status = 400, description = "Malformed JSON or project id", body = ErrorBody),
        (status = 404, description = "An input names a reference image or video that does not exist", body = ErrorBody),
        (status = 409, description = "The video to extend or remix is a job not finished yet", body = ErrorBody),
        (status = 422, description = "Invalid count, prompt, seconds, size or model, or inputs the model does not take", body = ErrorBody),
        (status = 402, description = "The takes together would take this month's spending past a cap", body = OverBudgetBody),
        (status = 429, description = "The takes would pass the active-job limits or the provider's daily budget (see Retry-After)", body = ErrorBody),
    ),
)]
pub async fn create_takes(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<String>,
    JsonBody(body): JsonBody<CreateTakes>,
) -> Result<(StatusCode, Json<Takes>), ApiError> {
    valid_project(&project)?;
    let count = Some(body.count)
        .filter(|n| n.fract() == 0.0 && (1.0..=f64::from(MAX_TAKES)).contains(n))
        .ok_or_else(|| {
            ApiError::Unprocessable(format!(
                "count must be a whole number from 1 to {MAX_TAKES}"
            ))
        })? as u32;
    // The job body is read as strictly as on its own route: an unknown field is refused.
    let job: CreateJob = serde_json::from_value(serde_json::Value::Object(body.job))
        .map_err(|e| ApiError::Unprocessable(e.to_string()))?;
    let new = new_job(project, job)?;
    check_shot(&state, &new.project_id, &new).await?;
    let records = state.jobs.create_takes(new, count).await?;
    let takes = records
        .iter()
        .map(|r| JobView::new(&state, &base, r))
        .collect();
    Ok((StatusCode::CREATED, Json(Takes { takes })))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/jobs",
    tag = "jobs",
    params(("project_id" = String, Path)),
    responses(
        (status = 200, description = "The project's jobs, newest first", body = JobList),
        (status = 400, description = "Invalid project id", body = ErrorBody),
    ),
)]
pub async fn list(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<String>,
) -> Result<Json<JobList>, ApiError> {
    valid_project(&project)?;
    let jobs = state
        .jobs
        .list(&project)
        .iter()
        .map(|r| JobView::new(&state, &base, r))
        .collect();
    Ok(Json(JobList { jobs }))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/jobs/sora/{job_id}",
    tag = "jobs",
    params(("job_id" = String, Path, description = "`{model}:task_{id}`, percent-encoded")),
    responses(
        (status = 200, description = "The job", body = JobView),
        (status = 404, description = "No such job", body = ErrorBody),
    ),
)]
pub async fn get(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    job_id(&id)?;
    let body = match answer(&state, &base, &id)? {
        Some(body) => body,
        // Perhaps created at another replica a moment ago.
        None => {
            state.jobs.refresh(&id).await;
            answer(&state, &base, &id)?.ok_or_else(|| ApiError::NotFound("Job not found".into()))?
        }
    };
    Ok((
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response())
}

/// A job's answer as bytes: the kept one while the job is unchanged, else made and kept.
fn answer(state: &AppState, base: &PublicBase, id: &str) -> Result<Option<Bytes>, ApiError> {
    let found = state
        .jobs
        .read(id, |record| match state.job_bodies().get(record, &base.0) {
            Some(body) => Ok((body, None)),
            None => serde_json::to_vec(&JobView::new(state, base, record))
                .map(|body| (Bytes::from(body), Some(record.clone()))),
        });
    let Some(found) = found else {
        return Ok(None);
    };
    let (body, made_from) = found.map_err(|e| ApiError::Internal(e.to_string()))?;
    if let Some(record) = made_from {
        state.job_bodies().keep(record, &base.0, body.clone());
    }
    Ok(Some(body))
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/jobs/sora/{job_id}/save",
    tag = "jobs",
    params(("job_id" = String, Path)),
    request_body = SaveJob,
    responses(
        (status = 200, description = "Saved (saving again returns the same key)", body = Saved),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 404, description = "No such job, or its video is gone", body = ErrorBody),
        (status = 409, description = "The job is not finished", body = ErrorBody),
    ),
)]
pub async fn save(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(id): ApiPath<String>,
    JsonBody(body): JsonBody<SaveJob>,
) -> Result<Json<Saved>, ApiError> {
    job_id(&id)?;
    valid_project(&body.project_id)?;
    let key = state
        .jobs
        .save(&id, &body.project_id, body.prompt.trim())
        .await?;
    let file_name = crate::storage::file_name(&key).to_owned();
    state.project_events().publish(
        &body.project_id,
        Change::Library {
            file_name: file_name.clone(),
            saved: true,
        },
    );
    if let Some(link) = state.jobs.get(&id).and_then(|record| record.shot) {
        super::sequences::join_take(&state, &body.project_id, &link, &file_name).await;
    }
    let public_url = base.url(&state, &key);
    Ok(Json(Saved {
        r2_key: key,
        public_url,
    }))
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/jobs/sora/{job_id}/cancel",
    tag = "jobs",
    params(("job_id" = String, Path)),
    responses(
        (status = 200, description = "Cancelled: the job, now `error` with the message \"Cancelled\"", body = JobView),
        (status = 404, description = "No such job", body = ErrorBody),
        (status = 409, description = "The job has already finished", body = ErrorBody),
    ),
)]
pub async fn cancel(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<JobView>, ApiError> {
    job_id(&id)?;
    let record = state.jobs.cancel(&id).await?;
    Ok(Json(JobView::new(&state, &base, &record)))
}

#[utoipa::path(
    delete,
    context_path = super::API,
    path = "/jobs/sora/{job_id}",
    tag = "jobs",
    params(("job_id" = String, Path)),
    responses(
        (status = 204, description = "Removed (cancelled first when active); a video saved to the library stays"),
        (status = 404, description = "No such job", body = ErrorBody),
    ),
)]
pub async fn remove(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> Result<StatusCode, ApiError> {
    job_id(&id)?;
    state.jobs.remove(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}
