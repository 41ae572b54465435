//! A storyboard's jobs: the takes of many shots, of one model, admitted together (all or none)
//! or only estimated, with what the month's budgets leave.

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
    /// The jobs `count` takes of each of `news` would be, priced, with nothing recorded.
    pub async fn estimate_batch(
        &self,
        news: Vec<NewJob>,
        count: u32,
    ) -> Result<BatchEstimate, JobError> {
        let Some(project) = news.first().map(|n| n.project_id.clone()) else {
            return Ok(BatchEstimate {
                jobs: 0,
                seconds: 0,
                estimate_usd: 0.0,
                remaining_usd: None,
            });
        };
        let mut jobs = Vec::new();
        let mut caps = None;
        for new in news {
            let prepared = self.prepare(new, count).await?;
            caps = Some(prepared.caps);
            jobs.extend(prepared.takes);
        }
        let (committed_project, committed_studio) = self.committed(&project);
        let caps = caps.unwrap_or_default();
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

    /// Admits `count` takes of each of `news` (all of one project and model) together, all or
    /// none, then starts them: each shot's takes are grouped as `create_takes` groups them.
    pub async fn create_batch(
        &self,
        news: Vec<NewJob>,
        count: u32,
    ) -> Result<Vec<JobRecord>, JobError> {
        let mut jobs = Vec::new();
        let mut admission = None;
        for new in news {
            let prepared = self.prepare(new, count).await?;
            admission = Some((prepared.local, prepared.caps));
            jobs.extend(prepared.takes);
        }
        match admission {
            Some((local, caps)) => self.admit_and_start(jobs, local, caps).await,
            None => Ok(Vec::new()),
        }
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
