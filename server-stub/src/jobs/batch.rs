//! A storyboard's jobs: the takes of many shots, of one model, admitted together (all or none)
//! or only estimated, with what the month's budgets leave.

use super::budget::Caps;
use super::{JobError, JobRecord, JobService, NewJob};

/// What a batch would ask for and cost, and what the budgets leave for it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchEstimate {
    pub jobs: usize,
    /// Seconds of video, each job at the length its model makes.
    pub seconds: u64,
    pub estimate_usd: f64,
    /// The smaller of what the project's and the studio's monthly caps leave (`None`: no cap).
    pub remaining_usd: Option<f64>,
}

impl BatchEstimate {
    /// Whether the budgets leave enough for the batch.
    pub fn enough(&self) -> bool {
        self.remaining_usd
            .is_none_or(|left| self.estimate_usd <= left + 0.005)
    }
}

impl JobService {
    /// The jobs `count` takes of each of `news` (all of `project`) would be, priced, with
    /// nothing recorded; whether the engine makes them; and the caps they are held to, read
    /// once for all of them.
    async fn prepare_all(
        &self,
        project: &str,
        news: Vec<NewJob>,
        count: u32,
    ) -> Result<(Vec<JobRecord>, bool, Caps), JobError> {
        let caps = self.caps(project).await?;
        let mut jobs = Vec::new();
        let mut local = false;
        for new in news {
            let prepared = self.prepare(new, count, caps).await?;
            local = prepared.local;
            jobs.extend(prepared.takes);
        }
        Ok((jobs, local, caps))
    }

    /// The jobs `count` takes of each of `news` (all of `project`) would be, priced, with
    /// nothing recorded.
    pub async fn estimate_batch(
        &self,
        project: &str,
        news: Vec<NewJob>,
        count: u32,
    ) -> Result<BatchEstimate, JobError> {
        let (jobs, _, caps) = self.prepare_all(project, news, count).await?;
        let (committed_project, committed_studio) = self.committed(project);
        let left = [
            caps.project.map(|cap| cap - committed_project),
            caps.studio.map(|cap| cap - committed_studio),
        ];
        Ok(BatchEstimate {
            jobs: jobs.len(),
            seconds: jobs.iter().map(|j| u64::from(j.spec.seconds)).sum(),
            estimate_usd: usd(&jobs),
            remaining_usd: left.into_iter().flatten().reduce(f64::min),
        })
    }

    /// Admits `count` takes of each of `news` (all of `project` and one model) together, all
    /// or none, then starts them: each shot's takes are grouped as `create_takes` groups them.
    pub async fn create_batch(
        &self,
        project: &str,
        news: Vec<NewJob>,
        count: u32,
    ) -> Result<Vec<JobRecord>, JobError> {
        let (jobs, local, caps) = self.prepare_all(project, news, count).await?;
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        self.admit_and_start(jobs, local, caps).await
    }
}

/// What `jobs` are estimated to cost together, to the cent.
fn usd(jobs: &[JobRecord]) -> f64 {
    let total: f64 = jobs
        .iter()
        .map(|j| j.estimate.as_ref().map_or(0.0, |e| e.usd))
        .sum();
    (total * 100.0).round() / 100.0
}
