//! The dashboard's timers: the 20-second round (poll active jobs, merge the server's list,
//! reopen the change stream when it is down), the change stream opened again soon after it
//! ends, and the 1-second re-read of the job list. They live as long as the `Timers` value
//! (gloo intervals cancel on drop; the re-read is stopped and the stream aborted; a pending
//! reopening finds no dashboard and ends).

use std::future::Future;
use std::pin::Pin;

use gloo_timers::callback::{Interval, Timeout};
use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

use super::SharedCore;
use crate::constants::{jobs_key, POLL_INTERVAL_MS, REREAD_INTERVAL_MS};
use crate::error::CoreError;
use crate::snapshot::StreamState;

// The re-read looks at the stored text every second in JS and calls into the wasm only when
// it is another string: an unchanged list (nearly every second) then costs what a bare timer
// does. The idle dashboard with 200 stored jobs, 30 s, main-thread busy time: 0.097 % of a
// core without the re-read, 0.105 % with this look in JS, 0.139 % entering the wasm each time.
#[wasm_bindgen(
    inline_js = "export function watchItem(k,ms,f){let l;const i=setInterval(()=>{let v;try{v=localStorage.getItem(k)}catch{v=void 0}if(v!==l||v===void 0){l=v;f()}},ms);return()=>clearInterval(i)}"
)]
extern "C" {
    /// Calls `changed` when the item at `key` is another string than at the last look, or
    /// cannot be read; returns the function that stops it.
    #[wasm_bindgen(js_name = watchItem)]
    fn watch_item(key: &str, ms: u32, changed: &Closure<dyn FnMut()>) -> Function;
}

pub struct Timers {
    core: SharedCore,
    _poll: Interval,
    stop_reread: Function,
    _reread: Closure<dyn FnMut()>,
}

impl Timers {
    /// Starts the timers of `project`'s dashboard.
    pub fn start(core: &SharedCore, project: &str) -> Timers {
        let poll_core = core.clone();
        let reread_core = core.clone();
        let reread = Closure::new(move || {
            reread_core.reread_jobs();
        });
        Timers {
            core: core.clone(),
            _poll: Interval::new(POLL_INTERVAL_MS, move || round(&poll_core)),
            stop_reread: watch_item(&jobs_key(project), REREAD_INTERVAL_MS, &reread),
            _reread: reread,
        }
    }
}

impl Drop for Timers {
    fn drop(&mut self) {
        let _ = self.stop_reread.call0(&JsValue::NULL);
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
        follow(core.clone());
    }
}

/// Follows the change stream and, when it ends, opens it again after the core's
/// `reconnect_delay`, unless another follower has opened it meanwhile.
fn follow(core: SharedCore) {
    spawn(Box::pin(async move {
        if let Err(CoreError::Busy(_)) = core.follow_changes().await {
            return;
        }
        if let Some(ms) = core.reconnect_delay() {
            Timeout::new(ms, move || {
                if core.stream_state() == StreamState::Off {
                    follow(core);
                }
            })
            .forget();
        }
    }));
}

/// Runs background work; boxed, so the wasm holds one task adapter for all of it.
pub fn spawn(task: Pin<Box<dyn Future<Output = ()>>>) {
    spawn_local(task);
}

/// Reads (again) what the open project's shots are made from: the models, the reference
/// images and the cast's names (`Core::load_shot`), in the background.
pub fn load_shot(core: &SharedCore) {
    let core = core.clone();
    spawn(Box::pin(async move {
        let _ = core.load_shot().await;
    }));
}
