//! Cancelling and removing jobs. Each active job has its own switch: a flag the engine reads
//! between frames and a token that wakes a hosted job's poller at once. A cancel trips it, and
//! so does the service's stop; a hosted job is also cancelled at the provider where its API
//! allows. A cancelled job is `error` with the message "Cancelled".
//!
//! With replicas, a switch belongs to one claim of the job (its attempt, the fencing token):
//! every write of that claim's worker carries it, so a worker whose lease passed to another
//! replica writes nothing, however late it wakes. A job claimed again gets a new switch, and
//! the old one is tripped. A cancel is the user's write, not a worker's: it carries no fence
//! and wins on any replica.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::record::{JobRecord, Status, CANCELLED};
use super::{Backend, JobError, JobService};
use crate::providers::Maker;

pub struct Switch {
    /// Read by the engine between frames.
    pub flag: AtomicBool,
    /// Cancelled with the flag; a child of the service's stop.
    pub token: CancellationToken,
    /// Wakes a worker waiting to try a failed copy again (a user asked for it).
    pub nudge: tokio::sync::Notify,
    /// The claim this replica works the job under, when replicas share a database (its
    /// writes are fenced by it); 0 otherwise.
    attempt: u32,
}

impl Switch {
    /// What the worker's writes are fenced by: its claim's attempt (none without replicas).
    pub fn fence(&self) -> Option<u32> {
        (self.attempt > 0).then_some(self.attempt)
    }

    pub fn trip(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.token.cancel();
    }
}

#[derive(Default)]
pub struct Switches {
    armed: Mutex<HashMap<String, Arc<Switch>>>,
}

impl Switches {
    /// The switch of job `id` under claim `attempt` (0 without replicas), made on first use,
    /// tripped by `stop` too. The switch of an older claim is tripped and replaced.
    pub fn arm(&self, id: &str, attempt: u32, stop: &CancellationToken) -> Arc<Switch> {
        let mut armed = self.armed.lock().unwrap();
        if let Some(switch) = armed.get(id) {
            if switch.attempt == attempt {
                return switch.clone();
            }
            switch.trip();
        }
        let switch = Arc::new(Switch {
            flag: AtomicBool::new(false),
            token: stop.child_token(),
            nudge: tokio::sync::Notify::new(),
            attempt,
        });
        armed.insert(id.to_owned(), switch.clone());
        switch
    }

    /// Forgets `switch`, whose work on job `id` has stopped (a newer claim's stays).
    pub fn disarm(&self, id: &str, switch: &Arc<Switch>) {
        let mut armed = self.armed.lock().unwrap();
        if armed.get(id).is_some_and(|held| Arc::ptr_eq(held, switch)) {
            armed.remove(id);
        }
    }

    /// The attempt this replica works job `id` under, while it does.
    pub fn fence(&self, id: &str) -> Option<u32> {
        self.armed.lock().unwrap().get(id)?.fence()
    }

    /// Stops the work on job `id`.
    pub fn trip(&self, id: &str) {
        if let Some(switch) = self.armed.lock().unwrap().get(id) {
            switch.trip();
        }
    }

    /// Wakes the work on job `id` if it is waiting to try again; whether this server works it.
    pub fn nudge(&self, id: &str) -> bool {
        match self.armed.lock().unwrap().get(id) {
            Some(switch) => {
                switch.nudge.notify_one();
                true
            }
            None => false,
        }
    }

    /// Trips every switch (the service is stopping).
    pub fn trip_all(&self) {
        for switch in self.armed.lock().unwrap().values() {
            switch.flag.store(true, Ordering::SeqCst);
        }
    }
}

impl JobService {
    /// Cancels a queued or running job: the engine drops it or stops rendering, a hosted job's
    /// poller stops and the provider is asked to cancel where it can be. The work stops as
    /// soon as the Cancel is kept: at once when records are files (memory keeps the change
    /// whatever the disk says), once it is written when they are in a shared database, which
    /// may refuse it: a Cancel not written stops nothing, and the job goes on.
    pub async fn cancel(&self, id: &str) -> Result<JobRecord, JobError> {
        let at_once = matches!(self.inner.backend, Backend::Files(_));
        let mut was_active = false;
        let record = self
            .change(id, |r| {
                was_active = r.status.is_active();
                if was_active {
                    r.status = Status::Error;
                    r.error = Some(CANCELLED.into());
                    if at_once {
                        self.inner.switches.trip(id);
                    }
                }
            })
            .await?;
        if !was_active {
            return Err(JobError::Finished);
        }
        if !at_once {
            self.inner.switches.trip(id);
        }
        tracing::info!(job = %id, "cancelled");
        if let Some(remote_id) = record.provider_job_id.clone() {
            self.cancel_at_provider(id, &record.model, remote_id);
        }
        Ok(record)
    }

    /// Asks the provider, in the background, to cancel a job it has.
    pub(super) fn cancel_at_provider(&self, id: &str, model: &str, remote_id: String) {
        let Some(Maker::Hosted { provider, remote }) = self.inner.catalog.get(model).cloned()
        else {
            return;
        };
        let id = id.to_owned();
        self.background(async move {
            match provider.cancel(&remote, &remote_id).await {
                Ok(true) => tracing::info!(job = %id, "cancelled at the provider"),
                Ok(false) => {
                    tracing::warn!(job = %id, provider = provider.name(), "the provider offers no cancel; it may finish (and bill) the job")
                }
                Err(e) => tracing::warn!(job = %id, error = %e, "the provider did not cancel"),
            }
        });
    }

    /// Removes a job from the server (cancelling it first when it is active) with its preview;
    /// a video saved to the library stays.
    pub async fn remove(&self, id: &str) -> Result<(), JobError> {
        match self.cancel(id).await {
            Ok(_) | Err(JobError::Finished) => {}
            Err(e) => return Err(e),
        }
        let record = self.get(id).ok_or(JobError::NotFound)?;
        self.forget(&record, None).await.map(drop)
    }
}
