//! The dashboard's two timers: the 20-second poll of active jobs and the 1-second re-read of
//! the job list. They live as long as the `Timers` value (gloo intervals cancel on drop).

use gloo_timers::callback::Interval;

use super::SharedCore;
use crate::constants::{POLL_INTERVAL_MS, REREAD_INTERVAL_MS};

pub struct Timers {
    _poll: Interval,
    _reread: Interval,
}

impl Timers {
    pub fn start(core: &SharedCore) -> Timers {
        let poll_core = core.clone();
        let reread_core = core.clone();
        Timers {
            _poll: Interval::new(POLL_INTERVAL_MS, move || poll_due(&poll_core)),
            _reread: Interval::new(REREAD_INTERVAL_MS, move || {
                reread_core.reread_jobs();
            }),
        }
    }
}

/// Polls each queued or running job once; failures are only logged by the core.
pub fn poll_due(core: &SharedCore) {
    for id in core.jobs_due_for_poll() {
        let core = core.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let _ = core.refresh_job(&id, false).await;
        });
    }
}
