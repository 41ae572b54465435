//! A fake provider's job: what it was asked, when it finishes and how it ends (a prompt with
//! `moderated` is blocked, one with `fails` fails half way).

use std::time::{Duration, Instant};

use crate::state::{unix_now, Settings};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Succeeds,
    Moderated,
    Fails,
}

#[derive(Debug, Clone)]
pub struct Job {
    pub id: String,
    pub model: String,
    pub prompt: String,
    pub seconds: String,
    pub size: String,
    pub created: Instant,
    pub created_unix: u64,
    pub outcome: Outcome,
    /// The pictures and sources the job was made from, as the fake checked them (for
    /// example `first_frame image/jpeg 1280x720` or `remix_of video_...`).
    pub inputs: Vec<String>,
    /// The caller's own id for the job, where the API keeps one (Kling's `external_task_id`).
    pub external_id: Option<String>,
    /// The address the create asked to be called at when the job is done.
    pub callback: Option<String>,
    /// What else the create asked for, as the fake read it (Kling's `mode std`, `sound on`).
    pub extras: Vec<String>,
}

impl Job {
    pub fn new(id: String, model: &str, prompt: &str, seconds: String, size: String) -> Job {
        let outcome = if prompt.contains("moderated") {
            Outcome::Moderated
        } else if prompt.contains("fails") {
            Outcome::Fails
        } else {
            Outcome::Succeeds
        };
        Job {
            id,
            model: model.into(),
            prompt: prompt.into(),
            seconds,
            size,
            created: Instant::now(),
            created_unix: unix_now(),
            outcome,
            inputs: Vec::new(),
            external_id: None,
            callback: None,
            extras: Vec::new(),
        }
    }

    /// How far along the job is, 0 to 1 (failures stop half way).
    pub fn fraction(&self, settings: &Settings) -> f64 {
        let f = self.created.elapsed().as_secs_f64() / settings.job_time.as_secs_f64().max(0.001);
        match self.outcome {
            Outcome::Succeeds => f.min(1.0),
            _ => f.min(0.5),
        }
    }

    /// Finished (done, or failed once half way).
    pub fn finished(&self, settings: &Settings) -> bool {
        let f = self.created.elapsed().as_secs_f64() / settings.job_time.as_secs_f64().max(0.001);
        match self.outcome {
            Outcome::Succeeds => f >= 1.0,
            _ => f >= 0.5,
        }
    }

    pub fn completed_unix(&self, settings: &Settings) -> u64 {
        self.created_unix + settings.job_time.as_secs()
    }

    /// When the content stops being downloadable.
    pub fn expires(&self, settings: &Settings) -> Instant {
        self.created + settings.job_time + settings.content_ttl
    }
}

/// How long after its creation `job` has finished (done, or failed half way), with a little
/// to spare.
pub fn finishes_after(settings: &Settings, job: &Job) -> Duration {
    let time = match job.outcome {
        Outcome::Succeeds => settings.job_time,
        _ => settings.job_time / 2,
    };
    time + Duration::from_millis(20)
}
