//! The dashboard's timers: the 20-second round (poll active jobs, merge the server's list,
//! reopen the change stream when it is down) and the 1-second re-read of the job list. They
//! live as long as the `Timers` value (gloo intervals cancel on drop; the stream is aborted).

use std::future::Future;
use std::pin::Pin;

use gloo_timers::callback::Interval;
use wasm_bindgen_futures::spawn_local;

use super::SharedCore;
use crate::constants::{POLL_INTERVAL_MS, REREAD_INTERVAL_MS};
use crate::snapshot::StreamState;

pub struct Timers {
    core: SharedCore,
    _poll: Interval,
    _reread: Interval,
}

impl Timers {
    pub fn start(core: &SharedCore) -> Timers {
        let poll_core = core.clone();
        let reread_core = core.clone();
        Timers {
            core: core.clone(),
            _poll: Interval::new(POLL_INTERVAL_MS, move || round(&poll_core)),
            _reread: Interval::new(REREAD_INTERVAL_MS, move || {
                reread_core.reread_jobs();
            }),
        }
    }
}

impl Drop for Timers {
    fn drop(&mut self) {
        self.core.platform().abort_stream();
    }
}

/// One round: polls each queued or running job, merges the server's job list and reopens
/// the change stream if it is down. Failures are only logged by the core.
pub fn round(core: &SharedCore) {
    for id in core.jobs_due_for_poll() {
        let core = core.clone();
        spawn(Box::pin(async move {
            let _ = core.poll_job(&id).await;
        }));
    }
    let listing = core.clone();
    spawn(Box::pin(async move {
        let _ = listing.reattach().await;
    }));
    if core.stream_state() == StreamState::Off {
        let following = core.clone();
        spawn(Box::pin(async move {
            let _ = following.follow_changes().await;
        }));
    }
}

/// Runs background work; boxed, so the wasm holds one task adapter for all of it.
pub fn spawn(task: Pin<Box<dyn Future<Output = ()>>>) {
    spawn_local(task);
}
