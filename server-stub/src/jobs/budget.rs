//! Monthly spending caps: one per project (kept in storage at `budgets/{project}.json`, so every
//! replica sharing the storage reads the same) and one for the whole studio
//! (`STUDIO_MONTHLY_BUDGET_USD`). A job is admitted only when what is committed this calendar
//! month (UTC) plus its estimate stays within every cap that applies; the committed figure is
//! counted from the job records under the same lock (or database transaction) that adds the job,
//! so simultaneous creates never take the last of a cap twice.

use serde::{Deserialize, Serialize};
use studio_core::price::cents;

use super::cost;
use super::record::JobRecord;
use crate::project::ProjectFolder;
use crate::storage::{Storage, StorageError};

/// The largest budget file read.
const MAX_FILE: u64 = 4096;

/// A project's budget as stored and as `GET .../budget` answers it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Budget {
    /// The most this project may spend in a calendar month (UTC), in USD.
    #[schema(minimum = 0, maximum = 1_000_000_000)]
    pub monthly_usd: f64,
}

impl Budget {
    /// The budget, when `monthly_usd` is a number from 0 to 1,000,000,000.
    pub fn new(monthly_usd: f64) -> Option<Budget> {
        (monthly_usd.is_finite() && (0.0..=1e9).contains(&monthly_usd)).then(|| Budget {
            monthly_usd: cents(monthly_usd),
        })
    }
}

fn key(project: &str) -> String {
    ProjectFolder::of(project).budget()
}

/// The project's budget, if one is set. A file that cannot be read as one is an error, never
/// "no budget": a damaged cap must not let spending through.
pub async fn get(storage: &dyn Storage, project: &str) -> Result<Option<Budget>, StorageError> {
    match storage.read(&key(project), MAX_FILE).await {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            StorageError::Io(std::io::Error::other(format!("budget of {project}: {e}")))
        }),
        Err(StorageError::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

pub async fn set(storage: &dyn Storage, project: &str, budget: Budget) -> Result<(), StorageError> {
    let bytes = serde_json::to_vec(&budget).unwrap_or_default();
    storage.put_bytes(&key(project), bytes).await.map(|_| ())
}

pub async fn remove(storage: &dyn Storage, project: &str) -> Result<(), StorageError> {
    storage.delete(&key(project)).await
}

/// The caps a new job of a project is held to.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Caps {
    pub project: Option<f64>,
    pub studio: Option<f64>,
}

impl Caps {
    pub fn any(&self) -> bool {
        self.project.is_some() || self.studio.is_some()
    }
}

/// A create refused for its cap: 402 with these figures.
#[derive(Debug, Clone, PartialEq)]
pub struct OverBudget {
    /// Which cap: the project's or the studio's.
    pub scope: Scope,
    pub cap_usd: f64,
    pub committed_usd: f64,
    pub estimate_usd: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    Studio,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let whose = match self.scope {
            Scope::Project => "This project's",
            Scope::Studio => "The studio's",
        };
        write!(
            f,
            "{whose} monthly budget of ${:.2} would be passed: ${:.2} is committed this month \
             and this costs an estimated ${:.2}",
            self.cap_usd, self.committed_usd, self.estimate_usd
        )
    }
}

/// The calendar month (UTC) of an RFC 3339 time: `YYYY-MM`.
pub fn month_of(at: &str) -> &str {
    at.get(..7).unwrap_or(at)
}

/// What counts against a cap: a job made this month and finished, at what it cost; any job
/// queued or running, at its estimate.
pub fn committed(job: &JobRecord, month: &str) -> f64 {
    if job.status.is_active() {
        return job.estimate.as_ref().map_or(0.0, |e| e.usd);
    }
    if month_of(&job.created_at) != month {
        return 0.0;
    }
    cost::of(job).actual_usd.unwrap_or(0.0)
}

/// What a job commits against the caps of the month it was made in: its estimate while queued
/// or running, what it cost once finished. The database keeps it beside each record
/// (`spend_usd`), so that a capped create sums a column rather than reading the month's jobs.
pub fn spend(job: &JobRecord) -> f64 {
    committed(job, month_of(&job.created_at))
}

/// What is committed in `month` by `project`, and by the whole studio, given the studio's
/// `jobs` (each that counts, in any order); not yet to the cent.
pub fn sums<'a>(
    project: &str,
    month: &str,
    jobs: impl IntoIterator<Item = &'a JobRecord>,
) -> (f64, f64) {
    let (mut in_project, mut in_studio) = (0.0, 0.0);
    for job in jobs {
        let usd = committed(job, month);
        in_studio += usd;
        if job.project_id == project {
            in_project += usd;
        }
    }
    (in_project, in_studio)
}

/// [`sums`] with what removed jobs commit (`removed`: the ledger's, of the project and of the
/// studio), to the cent.
pub fn totals<'a>(
    project: &str,
    month: &str,
    jobs: impl IntoIterator<Item = &'a JobRecord>,
    removed: (f64, f64),
) -> (f64, f64) {
    let (in_project, in_studio) = sums(project, month, jobs);
    (cents(in_project + removed.0), cents(in_studio + removed.1))
}

/// Refuses `estimate_usd` more for a project when it would pass a cap, given what is
/// committed this month by the project and by the studio (to the cent, as [`totals`]).
pub fn check(caps: Caps, committed: (f64, f64), estimate_usd: f64) -> Result<(), OverBudget> {
    let (in_project, in_studio) = committed;
    for (scope, cap, spent) in [
        (Scope::Project, caps.project, in_project),
        (Scope::Studio, caps.studio, in_studio),
    ] {
        let Some(cap_usd) = cap else { continue };
        // To the cent, so that sums of binary fractions neither refuse nor admit a cent too many.
        if cents(spent + estimate_usd) > cents(cap_usd) {
            return Err(OverBudget {
                scope,
                cap_usd,
                committed_usd: spent,
                estimate_usd: cents(estimate_usd),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::record::Status;

    fn job(project: &str, status: Status, created: &str, usd: f64) -> JobRecord {
        crate::jobs::record::fixture(project, status, created, usd)
    }

    #[test]
    fn committed_is_this_months_spend_and_every_active_estimate() {
        let month = "2026-11";
        let jobs = [
            job("a", Status::Done, "2026-11-02T10:00:00Z", 1.0),
            job("a", Status::Done, "2026-10-31T23:59:59Z", 50.0),
            job("a", Status::Running, "2026-10-31T23:59:59Z", 2.0),
            job("b", Status::Queued, "2026-11-03T10:00:00Z", 4.0),
        ];
        let caps = Caps {
            project: Some(4.0),
            studio: None,
        };
        let committed = totals("a", month, &jobs, (0.0, 0.0));
        assert_eq!(check(caps, committed, 1.0), Ok(()));
        let over = check(caps, committed, 1.01).unwrap_err();
        assert_eq!(
            (over.scope, over.committed_usd, over.estimate_usd),
            (Scope::Project, 3.0, 1.01)
        );
        let studio = Caps {
            project: None,
            studio: Some(7.5),
        };
        let over = check(studio, committed, 1.0).unwrap_err();
        assert_eq!((over.scope, over.committed_usd), (Scope::Studio, 7.0));
        assert!(over.to_string().contains("$7.50"), "{over}");

        // What the database sums: each counted job's own spend, over the active ones and the
        // month's.
        let counted = jobs
            .iter()
            .filter(|j| j.status.is_active() || month_of(&j.created_at) == month);
        let in_studio: f64 = counted.clone().map(spend).sum();
        let in_project: f64 = counted.filter(|j| j.project_id == "a").map(spend).sum();
        assert_eq!((cents(in_project), cents(in_studio)), committed);
        assert_eq!(spend(&jobs[1]), 50.0, "a finished job's spend is its cost");
    }

    #[test]
    fn budgets_are_numbers_from_zero() {
        assert_eq!(Budget::new(12.345).map(|b| b.monthly_usd), Some(12.35));
        assert!(Budget::new(0.0).is_some());
        for bad in [-0.01, f64::NAN, f64::INFINITY, 2e9] {
            assert_eq!(Budget::new(bad), None, "{bad}");
        }
        // Read as JSON, a hair past the top is past the top (schemathesis found it read as 1e9).
        let past: f64 = serde_json::from_str("1000000000.0000001").unwrap();
        assert_eq!(Budget::new(past), None);
    }
}
