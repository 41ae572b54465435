//! A project's monthly budget: PUT, GET and DELETE /api/projects/{projectId}/budget. Creates that
//! would pass it get 402 (`crate::jobs::budget`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, JsonBody};
use super::AppState;
use crate::jobs::budget::{self, Budget};
use crate::project::ProjectId;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetBudget {
    /// USD a calendar month (UTC), 0 to 1,000,000,000 (kept to the cent).
    #[schema(minimum = 0, maximum = 1_000_000_000)]
    monthly_usd: f64,
}

/// The project's budget and where it stands this month.
#[derive(Serialize, ToSchema)]
pub struct BudgetView {
    /// The project's cap, or null when none is set.
    monthly_usd: Option<f64>,
    /// The studio-wide cap (`STUDIO_MONTHLY_BUDGET_USD`), or null.
    studio_monthly_usd: Option<f64>,
    /// Spent by the project this month plus the estimates of its queued and running jobs.
    committed_usd: f64,
    /// The same for the whole studio.
    studio_committed_usd: f64,
}

async fn view(state: &AppState, project: &str) -> Result<BudgetView, ApiError> {
    let monthly_usd = budget::get(state.storage().as_ref(), project)
        .await?
        .map(|b| b.monthly_usd);
    let (committed_usd, studio_committed_usd) = state.jobs.committed(project);
    Ok(BudgetView {
        monthly_usd,
        studio_monthly_usd: state.jobs.studio_cap(),
        committed_usd,
        studio_committed_usd,
    })
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/budget",
    tag = "spend",
    params(("project_id" = String, Path)),
    responses(
        (status = 200, description = "The project's cap (null when none) and what is committed this month", body = BudgetView),
        (status = 400, description = "Invalid project id", body = ErrorBody),
    ),
)]
pub async fn get(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
) -> Result<Json<BudgetView>, ApiError> {
    Ok(Json(view(&state, &project).await?))
}

#[utoipa::path(
    put,
    context_path = super::API,
    path = "/projects/{project_id}/budget",
    tag = "spend",
    params(("project_id" = String, Path)),
    request_body = SetBudget,
    responses(
        (status = 200, description = "The cap is set, on every server sharing the storage", body = BudgetView),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 422, description = "monthly_usd is not a number from 0 to 1,000,000,000", body = ErrorBody),
    ),
)]
pub async fn set(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
    JsonBody(body): JsonBody<SetBudget>,
) -> Result<Json<BudgetView>, ApiError> {
    let cap = Budget::new(body.monthly_usd).ok_or_else(|| {
        ApiError::Unprocessable("monthly_usd must be a number from 0 to 1000000000".into())
    })?;
    budget::set(state.storage().as_ref(), &project, cap).await?;
    tracing::info!(project = %project, monthly_usd = cap.monthly_usd, "budget set");
    Ok(Json(view(&state, &project).await?))
}

#[utoipa::path(
    delete,
    context_path = super::API,
    path = "/projects/{project_id}/budget",
    tag = "spend",
    params(("project_id" = String, Path)),
    responses(
        (status = 204, description = "The project has no cap of its own (the studio's still applies)"),
        (status = 400, description = "Invalid project id", body = ErrorBody),
    ),
)]
pub async fn remove(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
) -> Result<StatusCode, ApiError> {
    budget::remove(state.storage().as_ref(), &project).await?;
    tracing::info!(project = %project, "budget removed");
    Ok(StatusCode::NO_CONTENT)
}
