//! The per-job commands of the jobs list (Check Status, Cancel, Retry, Remove, Save to
//! Library), the automatic poll, and the stored jobs as they are kept.

use wasm_bindgen::prelude::*;

use super::{json, promise, schedule, Studio};

#[wasm_bindgen]
impl Studio {
    /// Check Status: asks the server about one job now; resolves with the merged job.
    #[wasm_bindgen(js_name = checkStatus)]
    pub fn check_status(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.check_job(&id).await })
    }

    /// Polls every queued or running job and merges the server's job list now, as the
    /// 20-second timer does.
    #[wasm_bindgen(js_name = pollActive)]
    pub fn poll_active(&self) {
        schedule::round(&self.core);
    }

    /// Cancel: stops a queued or running job; resolves with the job (`error`, "Cancelled").
    #[wasm_bindgen(js_name = cancelJob)]
    pub fn cancel_job(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.cancel_job(&id).await })
    }

    /// Retry: starts a new job like a failed one; resolves with the new job.
    #[wasm_bindgen(js_name = retryJob)]
    pub fn retry_job(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.retry_job(&id).await })
    }

    /// Remove: deletes a job here and on the server (a saved video stays).
    #[wasm_bindgen(js_name = removeJob)]
    pub fn remove_job(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.remove_job(&id).await })
    }

    /// Save to Library; resolves with the storage key.
    #[wasm_bindgen(js_name = saveJob)]
    pub fn save_job(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.save_job(&id).await })
    }

    /// The open project's stored jobs, newest first, exactly as kept in local storage.
    pub fn jobs(&self) -> JsValue {
        json::serialized(&self.core.jobs())
    }
}
