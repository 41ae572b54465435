//! Admission: a job (or the takes of one shot) checked against its model's inputs, the
//! active-job limits, its provider's daily seconds and the monthly budgets, then recorded and
//! started, all or none.

use super::budget;
use super::ledger::counts_seconds;
use super::record::{self, JobRecord};
use super::{estimate, Backend, JobError, JobService, NewJob};
use crate::providers::inputs;
use crate::providers::Maker;

/// Jobs ready to be admitted: their records, and whether the engine makes them.
pub(in crate::jobs) struct Prepared {
    pub takes: Vec<JobRecord>,
    pub local: bool,
}

/// Seconds until the next 00:00 UTC, when daily budgets renew.
fn seconds_to_utc_midnight() -> u64 {
    let now = time::OffsetDateTime::now_utc();
    let passed =
        u64::from(now.hour()) * 3600 + u64::from(now.minute()) * 60 + u64::from(now.second());
    86_400 - passed
}

/// What a client refused for too many active jobs is told to wait (one poll interval).
const BUSY_RETRY_SECONDS: u64 = 20;

/// The calendar day (UTC) of an RFC 3339 time: `YYYY-MM-DD`.
fn day_of(at: &str) -> &str {
    at.get(..10).unwrap_or(at)
}

/// What an admission must read besides the active jobs: for a monthly cap, what the month
/// (`YYYY-MM`) commits; for a daily budget, the seconds asked that day (`YYYY-MM-DD`) of that
/// provider.
#[derive(Debug, Clone, Copy)]
pub(in crate::jobs) struct Counting<'a> {
    pub month: Option<&'a str>,
    pub today: Option<(&'a str, &'a str)>,
}

/// How many jobs are queued or running: in all, and in the new job's project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::jobs) struct Active {
    pub all: usize,
    pub in_project: usize,
}

impl Active {
    pub fn of<'a>(records: impl IntoIterator<Item = &'a JobRecord>, project: &str) -> Self {
        records.into_iter().filter(|r| r.status.is_active()).fold(
            Active {
                all: 0,
                in_project: 0,
            },
            |n, r| Active {
                all: n.all + 1,
                in_project: n.in_project + usize::from(r.project_id == project),
            },
        )
    }
}

/// Seconds of video asked of `provider` on `day` (`YYYY-MM-DD`) by `jobs` (every one made
/// that day at that provider, among others), as its daily budget counts them.
pub(in crate::jobs) fn daily_seconds<'a>(
    jobs: impl IntoIterator<Item = &'a JobRecord>,
    provider: &str,
    day: &str,
) -> u64 {
    jobs.into_iter()
        .filter(|r| r.provider == provider && r.created_at.starts_with(day))
        .filter(|r| counts_seconds(r))
        .map(|r| u64::from(r.spec.seconds))
        .sum()
}

impl JobService {
    /// Admits a job within the limits, records it durably, and starts it.
    pub async fn create(&self, new: NewJob) -> Result<JobRecord, JobError> {
        let mut takes = self.create_takes(new, 1).await?;
        Ok(takes.remove(0))
    }

    /// Admits `count` takes of one shot together (each counted against every limit, all or
    /// none), each with its own seed: the asked seed and the ones after it, or for the
    /// embedded engine's takes without one, a random start. A single job without a seed is
    /// the prompt's own scene (seed 0) on the engine, and the provider's choice elsewhere.
    pub async fn create_takes(&self, new: NewJob, count: u32) -> Result<Vec<JobRecord>, JobError> {
        let caps = self.caps(&new.project_id).await?;
        let prepared = self.prepare(new, count, caps).await?;
        self.admit_and_start(prepared.takes, prepared.local, caps)
            .await
    }

    /// The caps a new job of `project` is held to: the project's monthly budget and the
    /// studio's.
    pub(in crate::jobs) async fn caps(&self, project: &str) -> Result<budget::Caps, JobError> {
        Ok(budget::Caps {
            project: budget::get(self.inner.storage.as_ref(), project)
                .await?
                .map(|b| b.monthly_usd),
            studio: self.inner.limits.monthly_usd,
        })
    }

    /// The `count` takes of `new` as they would be recorded, checked against its model's
    /// inputs and priced (a price is needed when `caps` apply); nothing is recorded yet.
    pub(in crate::jobs) async fn prepare(
        &self,
        new: NewJob,
        count: u32,
        caps: budget::Caps,
    ) -> Result<Prepared, JobError> {
        let model = new
            .model
            .clone()
            .unwrap_or_else(|| self.inner.catalog.default_model().to_owned());
        let maker = self
            .inner
            .catalog
            .get(&model)
            .ok_or_else(|| JobError::UnknownModel(model.clone()))?;
        // What the inputs name must exist (404) before the model's rules are applied (422).
        let lineage = self.lineage(&new).await?;
        inputs::check(&model, &maker.inputs(), &new.inputs).map_err(JobError::Invalid)?;
        if !new.shots.is_empty() {
            super::multi_shot::check(&model, maker.makes_shots(), &new.shots)
                .map_err(JobError::Invalid)?;
        }
        lineage
            .check_source(&model, maker.provider_name(), &new.inputs)
            .map_err(JobError::Invalid)?;
        let local = matches!(maker, Maker::Local);
        // A seed is kept only where it is used: the engine, or a provider whose contract takes one.
        let first_seed = match (new.seed, count, local) {
            _ if !maker.seeds() => None,
            (Some(seed), _, _) => Some(seed),
            (None, 1, true) => Some(0),
            (None, 1, false) => None,
            (None, _, _) => Some(rand::random()),
        };
        let spec = maker.fit(&lineage.spec);
        let estimate = self
            .inner
            .catalog
            .price(&model)
            .and_then(|price| estimate::Estimate::of(price, &spec));
        if caps.any() && estimate.is_none() {
            return Err(JobError::Invalid(format!(
                "The model {model} has no known price and a monthly budget applies: \
                 give it a price in STUDIO_PRICES"
            )));
        }
        let template = JobRecord {
            provider: maker.provider_name().into(),
            estimate,
            inputs: new.inputs,
            parent: lineage.parent,
            parent_key: lineage.parent_key,
            parent_prompt: lineage.parent_prompt,
            parent_remote: lineage.parent_remote,
            progress_estimated: maker.estimates_progress(),
            shot: new.shot,
            shots: new.shots,
            ..JobRecord::queued(
                String::new(),
                new.project_id,
                new.prompt,
                model,
                spec,
                new.fit,
            )
        };
        let mut takes: Vec<JobRecord> = (0..count)
            .map(|take| JobRecord {
                sora_job_id: record::new_id(&template.model),
                seed: first_seed.map(|seed| seed.wrapping_add(take)),
                ..template.clone()
            })
            .collect();
        if count > 1 {
            let shot = takes[0].sora_job_id.clone();
            for (index, record) in (1..).zip(takes.iter_mut()) {
                record.take = Some(record::Take {
                    shot: shot.clone(),
                    index,
                    count,
                });
            }
        }
        Ok(Prepared { takes, local })
    }

    /// Admits a cut's export: an engine job (`model: "sequence"`) that makes one MP4 of the
    /// cut and saves it to the project's library when done. It costs nothing, and counts
    /// against the active-job limits like any job.
    pub async fn create_export(
        &self,
        project: &str,
        name: &str,
        spec: crate::engine::VideoSpec,
        fit: crate::engine::Fit,
        export: crate::sequences::export::Export,
    ) -> Result<JobRecord, JobError> {
        let model = crate::sequences::export::EXPORT_MODEL.to_owned();
        let record = JobRecord {
            export: Some(export),
            ..JobRecord::queued(
                record::new_id(&model),
                project.to_owned(),
                name.to_owned(),
                model,
                spec,
                fit,
            )
        };
        let caps = budget::Caps {
            project: None,
            studio: None,
        };
        let mut made = self.admit_and_start(vec![record], true, caps).await?;
        Ok(made.remove(0))
    }

    /// Records `takes` (one job, the takes of one shot, or a storyboard's jobs, all of one
    /// model) if they fit within the limits and `caps`, all or none, then starts them.
    pub(in crate::jobs) async fn admit_and_start(
        &self,
        takes: Vec<JobRecord>,
        local: bool,
        caps: budget::Caps,
    ) -> Result<Vec<JobRecord>, JobError> {
        let template = &takes[0];
        let counting = Counting {
            month: caps.any().then(|| budget::month_of(&template.created_at)),
            today: self
                .inner
                .limits
                .daily_seconds
                .contains_key(&template.provider)
                .then(|| (template.provider.as_str(), day_of(&template.created_at))),
        };
        if let Backend::Shared(replica) = &self.inner.backend {
            let admit = |active: Active, committed: (f64, f64), today_seconds: u64| {
                self.admit(active, committed, today_seconds, &takes, caps)
            };
            self.insert_shared(replica, &takes, local, counting, admit)
                .await?;
            return Ok(takes);
        }
        {
            let mut records = self.inner.records.lock().unwrap();
            let project = &template.project_id;
            let active = Active::of(records.values(), project);
            // Removed jobs count too, through the ledger (read under the records' lock, as
            // a removal writes it).
            let ledger = &self.inner.ledger;
            let committed = counting.month.map_or((0.0, 0.0), |month| {
                let removed = ledger.committed(project, month);
                budget::totals(project, month, records.values(), removed)
            });
            let today_seconds = counting.today.map_or(0, |(provider, day)| {
                daily_seconds(records.values(), provider, day) + ledger.seconds(provider, day)
            });
            self.admit(active, committed, today_seconds, &takes, caps)?;
            for record in &takes {
                records.insert(record.sora_job_id.clone(), record.clone());
                self.inner.events.publish(record, false);
            }
        }
        // All are kept before any starts, so a failure leaves none behind.
        for record in &takes {
            if let Err(e) = self.persist(&record.sora_job_id).await {
                for unkept in &takes {
                    if let Err(e) = self.forget(unkept, None).await {
                        tracing::warn!(job = %unkept.sora_job_id, error = %e, "an unkept take could not be removed");
                    }
                }
                return Err(e);
            }
        }
        for record in &takes {
            self.spawn(record.sora_job_id.clone());
        }
        Ok(takes)
    }

    /// Refuses the new jobs `news` (all of one project and provider) over the active-job
    /// limits, their provider's daily budget or a monthly cap, given how many jobs are active,
    /// what this month commits against the caps (the project's and the studio's, to the cent)
    /// and, for a daily budget, the seconds already asked of the provider today.
    fn admit(
        &self,
        active: Active,
        committed: (f64, f64),
        spent: u64,
        news: &[JobRecord],
        caps: budget::Caps,
    ) -> Result<(), JobError> {
        let new = &news[0];
        let estimate: f64 = news
            .iter()
            .map(|r| r.estimate.as_ref().map_or(0.0, |e| e.usd))
            .sum();
        budget::check(caps, committed, estimate).map_err(JobError::OverBudget)?;
        let count = news.len();
        let seconds: u64 = news.iter().map(|r| u64::from(r.spec.seconds)).sum();
        let limits = &self.inner.limits;
        let Active { all, in_project } = active;
        if in_project + count > limits.active_per_project {
            return Err(JobError::Busy {
                message: format!(
                    "This project already has {in_project} jobs queued or running; \
                     start more when some have finished"
                ),
                retry_after: BUSY_RETRY_SECONDS,
            });
        }
        if all + count > limits.active {
            return Err(JobError::Busy {
                message: format!(
                    "The server already has {all} jobs queued or running; try again shortly"
                ),
                retry_after: BUSY_RETRY_SECONDS,
            });
        }
        if let Some(&budget) = limits.daily_seconds.get(&new.provider) {
            if spent + seconds > budget {
                return Err(JobError::Busy {
                    message: format!(
                        "Today's budget of {budget} s of video at {} is spent ({spent} s); \
                         it renews at 00:00 UTC",
                        new.provider
                    ),
                    retry_after: seconds_to_utc_midnight(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::record::fixture;
    use crate::jobs::record::Status;

    #[test]
    fn active_counts_queued_and_running_jobs_in_all_and_in_the_project() {
        let at = "2026-11-26T08:00:00Z";
        let jobs = [
            fixture("a", Status::Queued, at, 0.0),
            fixture("a", Status::Running, at, 0.0),
            fixture("a", Status::Done, at, 0.0),
            fixture("b", Status::Running, at, 0.0),
            fixture("b", Status::Error, at, 0.0),
        ];
        assert_eq!(
            Active::of(&jobs, "a"),
            Active {
                all: 3,
                in_project: 2
            }
        );
        assert_eq!(Active::of(&jobs, "c").in_project, 0);
    }
}
