//! The job service's bounds from the flags: workers, caps on active jobs and submissions, the
//! providers' daily seconds, retention, the monthly budget, signing and callbacks.

use std::time::Duration;

use super::Config;
use crate::jobs::Limits;

impl Config {
    /// The job service's bounds.
    pub fn limits(&self) -> anyhow::Result<Limits> {
        let mut daily_seconds = std::collections::HashMap::new();
        for entry in self.daily_video_seconds.iter().map(|e| e.trim()) {
            if entry.is_empty() {
                continue;
            }
            let parsed = entry.split_once('=').and_then(|(provider, seconds)| {
                Some((provider.trim(), seconds.trim().parse().ok()?))
            });
            let Some((provider, seconds)) = parsed else {
                anyhow::bail!("--daily-video-seconds takes provider=seconds, such as openai=120, not {entry:?}");
            };
            daily_seconds.insert(provider.to_owned(), seconds);
        }
        Ok(Limits {
            workers: self.workers,
            active_per_project: self.max_active_per_project,
            active: self.max_active_jobs,
            hosted_submissions: self.max_hosted_submissions,
            daily_seconds,
            retention: (self.retention_days > 0)
                .then(|| Duration::from_secs(self.retention_days * 86_400)),
            monthly_usd: match self.monthly_budget_usd {
                None => None,
                Some(usd) => Some(
                    crate::jobs::budget::Budget::new(usd)
                        .ok_or_else(|| {
                            anyhow::anyhow!(
                                "STUDIO_MONTHLY_BUDGET_USD must be a number from 0 to 1000000000, not {usd}"
                            )
                        })?
                        .monthly_usd,
                ),
            },
            signing: self.signing()?,
            callbacks: match &self.public_url {
                Some(url) => Some(std::sync::Arc::new(crate::callbacks::Callbacks::new(
                    url,
                    &self.token()?,
                ))),
                None => None,
            },
        })
    }
}
