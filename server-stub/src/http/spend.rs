//! What was spent: GET /api/projects/{projectId}/spend and GET /api/spend (the whole studio),
//! between two dates, as totals by day and by model, or with `format=csv` one row per job.

use axum::extract::State;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use time::{Date, Duration, OffsetDateTime};
use utoipa::{IntoParams, ToSchema};

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, ApiQuery};
use super::AppState;
use crate::jobs::{budget, spend};
use crate::project::ProjectId;

/// The longest range one answer covers: a longer one is answered for its last 366 days.
const MAX_DAYS: i64 = 366;
/// The range when none is given: the last 30 days, today included.
const DEFAULT_DAYS: i64 = 30;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Range {
    /// The first day (UTC), `YYYY-MM-DD`; 29 days before `to` when left out. At most 365
    /// days before `to`: an earlier one is answered from then.
    #[param(value_type = Option<String>, format = Date, pattern = r"^\d{4}-\d{2}-\d{2}$")]
    from: Option<String>,
    /// The last day (UTC), included; today when left out.
    #[param(value_type = Option<String>, format = Date, pattern = r"^\d{4}-\d{2}-\d{2}$")]
    to: Option<String>,
    /// `csv` for one row per job (`text/csv`); JSON when left out.
    format: Option<Format>,
}

#[derive(Deserialize, ToSchema, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Csv,
}

/// The spend between the dates, with where this month stands against the cap.
#[derive(Serialize, ToSchema)]
pub struct SpendView {
    /// The first day answered (`YYYY-MM-DD`).
    from: String,
    /// The last day answered (`YYYY-MM-DD`).
    to: String,
    #[serde(flatten)]
    report: spend::Report,
    /// The cap that applies (the project's, or for the studio `STUDIO_MONTHLY_BUDGET_USD`), or null.
    cap_usd: Option<f64>,
    /// Spent this calendar month plus the estimates of queued and running jobs.
    committed_usd: f64,
}

fn date(name: &str, text: &str) -> Result<Date, ApiError> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    ymd_shaped(text)
        .then(|| Date::parse(text, &format).ok())
        .flatten()
        .ok_or_else(|| ApiError::BadRequest(format!("{name} must be a date, YYYY-MM-DD")))
}

/// `YYYY-MM-DD` exactly: `time` would also take other widths of year.
fn ymd_shaped(text: &str) -> bool {
    text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        })
}

impl Range {
    fn dates(&self) -> Result<(Date, Date), ApiError> {
        let to = match &self.to {
            Some(text) => date("to", text)?,
            None => OffsetDateTime::now_utc().date(),
        };
        let from = match &self.from {
            Some(text) => date("from", text)?,
            None => to.saturating_sub(Duration::days(DEFAULT_DAYS - 1)),
        };
        // A `from` after `to` answers an empty range.
        Ok((
            from.max(to.saturating_sub(Duration::days(MAX_DAYS - 1))),
            to,
        ))
    }
}

fn answer(
    state: &AppState,
    project: Option<&str>,
    range: &Range,
    cap_usd: Option<f64>,
) -> Result<Response, ApiError> {
    let (from, to) = range.dates()?;
    let lines = state.jobs.spend_lines(project, from, to);
    if range.format == Some(Format::Csv) {
        let name = format!("spend-{from}-{to}.csv");
        return Ok((
            [
                (CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
                (
                    CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{name}\""),
                ),
            ],
            spend::csv(&lines),
        )
            .into_response());
    }
    let (in_project, in_studio) = state.jobs.committed(project.unwrap_or_default());
    Ok(Json(SpendView {
        from: from.to_string(),
        to: to.to_string(),
        report: spend::report(&lines, from, to),
        cap_usd,
        committed_usd: if project.is_some() {
            in_project
        } else {
            in_studio
        },
    })
    .into_response())
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/spend",
    tag = "spend",
    params(("project_id" = String, Path), Range),
    responses(
        (status = 200, description = "The project's spend by day and by model (JSON), or one row per job (format=csv): created_at, job_id, model, seconds, size, estimate_usd, actual_usd, source", content((SpendView = "application/json"), (String = "text/csv"))),
        (status = 400, description = "Invalid project id or date", body = ErrorBody),
    ),
)]
pub async fn project(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
    ApiQuery(range): ApiQuery<Range>,
) -> Result<Response, ApiError> {
    let cap = budget::get(state.storage().as_ref(), &project)
        .await?
        .map(|b| b.monthly_usd);
    answer(&state, Some(&project), &range, cap)
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/spend",
    tag = "spend",
    params(Range),
    responses(
        (status = 200, description = "The whole studio's spend, as for a project", content((SpendView = "application/json"), (String = "text/csv"))),
        (status = 400, description = "Invalid date", body = ErrorBody),
    ),
)]
pub async fn studio(
    _: Authorized,
    State(state): State<AppState>,
    ApiQuery(range): ApiQuery<Range>,
) -> Result<Response, ApiError> {
    answer(&state, None, &range, state.jobs.studio_cap())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_exactly_year_month_day() {
        assert!(date("from", "2026-11-25").is_ok());
        for bad in ["2026-11-31", "26-11-25", "+02026-11-25", "2026/11/25", ""] {
            assert!(date("from", bad).is_err(), "{bad}");
        }
    }
}
