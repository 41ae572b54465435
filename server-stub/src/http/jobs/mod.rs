//! The job routes: create and list a project's jobs, read, cancel and remove one job, save one
//! to the library. What they read and answer is in `bodies.rs`, how a body is checked in
//! `checks.rs`.

mod bodies;
mod checks;

pub(super) use self::bodies::SECONDS_RANGE;
use self::bodies::{CreateJob, CreateTakes, JobList, SaveJob, Saved, Takes};
pub use self::bodies::{JobView, SECONDS_PATTERN, SIZE_PATTERN};
use self::checks::{check_shot, new_job};
pub(super) use self::checks::{checked_prompt, with_cast, with_members};

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use bytes::Bytes;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody, OverBudgetBody};
use super::extract::{ApiPath, JsonBody, PublicBase};
use super::AppState;
use crate::jobs::record::is_valid_id;
use crate::jobs::MAX_TAKES;
use crate::project::ProjectId;
use crate::project_events::Change;

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
        (status = 422, description = "Invalid prompt, seconds, size or model, inputs the model does not take, or an `@Name` not in the cast", body = ErrorBody),
        (status = 402, description = "It would take this month's spending past the project's or the studio's cap", body = OverBudgetBody),
        (status = 429, description = "Too many active jobs, or the provider's daily budget is spent (see Retry-After)", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
    JsonBody(body): JsonBody<CreateJob>,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    let new = with_cast(&state, new_job(project.into(), body)?).await?;
    check_shot(&state, &new.project_id, &new).await?;
    let record = state.jobs.create(new).await?;
    Ok((
        StatusCode::CREATED,
        Json(JobView::new(&state, &base, &record)),
    ))
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
        (status = 422, description = "Invalid count, prompt, seconds, size or model, inputs the model does not take, or an `@Name` not in the cast", body = ErrorBody),
        (status = 402, description = "The takes together would take this month's spending past a cap", body = OverBudgetBody),
        (status = 429, description = "The takes would pass the active-job limits or the provider's daily budget (see Retry-After)", body = ErrorBody),
    ),
)]
pub async fn create_takes(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
    JsonBody(body): JsonBody<CreateTakes>,
) -> Result<(StatusCode, Json<Takes>), ApiError> {
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
    let new = with_cast(&state, new_job(project.into(), job)?).await?;
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
    ApiPath(project): ApiPath<ProjectId>,
) -> Result<Json<JobList>, ApiError> {
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
    let project = ProjectId::parse(&body.project_id)?;
    let key = state.jobs.save(&id, &project, body.prompt.trim()).await?;
    let file_name = crate::storage::file_name(&key).to_owned();
    state.project_events().publish(
        &project,
        Change::Library {
            file_name: file_name.clone(),
            saved: true,
        },
    );
    if let Some(link) = state.jobs.get(&id).and_then(|record| record.shot) {
        super::sequences::join_take(&state, &project, &link, &file_name).await;
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
    post,
    context_path = super::API,
    path = "/jobs/sora/{job_id}/copy",
    tag = "jobs",
    params(("job_id" = String, Path)),
    responses(
        (status = 202, description = "The provider finished the job but its video could not be copied yet (`copy_pending`): the server tries the copy again now, and the job answers as it stands", body = JobView),
        (status = 404, description = "No such job", body = ErrorBody),
        (status = 409, description = "The job has no copy pending", body = ErrorBody),
    ),
)]
pub async fn copy_again(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(id): ApiPath<String>,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    job_id(&id)?;
    let record = state.jobs.copy_again(&id).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(JobView::new(&state, &base, &record)),
    ))
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
