//! A provider's call that a job is done: checked (the address this server made, then the
//! provider's own signature and delivery id), then taken as a wake-up for the job's poller,
//! which asks the provider itself. The call's body never sets the job's state.

use axum::http::HeaderMap;

use super::JobService;
use crate::callbacks::Refusal;
use crate::providers::{Maker, Provider};

impl JobService {
    /// The address `provider` calls when job `id` is done: with `--public-url` set and a
    /// provider that calls back.
    pub(super) fn callback_url(&self, provider: &dyn Provider, id: &str) -> Option<String> {
        let callbacks = self.inner.limits.callbacks.as_ref()?;
        provider
            .calls_back()
            .then(|| callbacks.url(provider.name(), id))
    }

    /// Takes a call to job `id`'s callback address for `provider` (`token` its last segment):
    /// refused (and nothing changed) unless this server made the address and the provider
    /// signed the call; else the job's poller asks the provider at once. A call about a job
    /// that is gone is taken and does nothing, as is one about a job that has ended once its
    /// signature is checked.
    pub async fn called_back(
        &self,
        provider: &str,
        id: &str,
        token: &str,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Result<(), Refusal> {
        let callbacks = self
            .inner
            .limits
            .callbacks
            .as_ref()
            .ok_or(Refusal::Unsigned)?;
        callbacks.check(provider, id, token)?;
        let Some(record) = self.get(id) else {
            return Ok(());
        };
        let Some(Maker::Hosted {
            provider: maker, ..
        }) = self.inner.catalog.get(&record.model)
        else {
            return Ok(());
        };
        if maker.name() != provider {
            return Err(Refusal::OtherJob);
        }
        let Some(remote_id) = record.provider_job_id.as_deref() else {
            // Called before the create's answer was read: the poller asks as soon as it has it.
            self.inner.switches.nudge(id);
            return Ok(());
        };
        let delivery = maker.callback(remote_id, headers, body).await?;
        callbacks.take(provider, &delivery)?;
        if !record.status.is_active() {
            return Ok(());
        }
        if !self.inner.switches.nudge(id) {
            tracing::info!(job = %id, "a callback for a job another server follows: it polls on its own schedule");
        }
        Ok(())
    }
}
