//! The studio's console commands: the prompt, model, takes, size, length and confirmation
//! threshold of new jobs, Generate itself, the cast names offered as `@Name` is typed, and
//! the spend panel.

use wasm_bindgen::prelude::*;

use super::{js_error, json, promise, schedule, Studio};

#[wasm_bindgen]
impl Studio {
    /// Keeps the prompt being typed.
    #[wasm_bindgen(js_name = setDraft)]
    pub fn set_draft(&self, text: &str) {
        self.core.set_draft(text);
    }

    /// Chooses the model for new jobs, one of `view("console").models`.
    #[wasm_bindgen(js_name = setModel)]
    pub fn set_model(&self, model: &str) -> Result<(), JsValue> {
        self.core.set_model(model).map_err(js_error)
    }

    /// How many takes Generate makes: 1 to 8 (`view("console").takes`).
    #[wasm_bindgen(js_name = setTakes)]
    pub fn set_takes(&self, takes: u32) -> Result<(), JsValue> {
        self.core.set_takes(takes).map_err(js_error)
    }

    /// The size of new jobs, `"1920x1080"` say, or omitted for the model's default
    /// (`view("console").size`).
    #[wasm_bindgen(js_name = setSize)]
    pub fn set_size(&self, size: Option<String>) -> Result<(), JsValue> {
        self.core.set_size(size.as_deref()).map_err(js_error)
    }

    /// How long new jobs are: 1 to 20 seconds, or omitted for the model's default
    /// (`view("console").seconds`).
    #[wasm_bindgen(js_name = setSeconds)]
    pub fn set_seconds(&self, seconds: Option<u32>) -> Result<(), JsValue> {
        self.core.set_seconds(seconds).map_err(js_error)
    }

    /// Reads the open project's cast names again (`view("console").cast`), which `mentionAt`
    /// offers, with the models and reference images the shot strip shows. A failure keeps
    /// what was read before and is logged: it raises no banner.
    #[wasm_bindgen(js_name = loadCast)]
    pub fn load_cast(&self) {
        schedule::load_shot(&self.core);
    }

    /// The cast names offered for the `@` mention typed at `caret` (UTF-16) in `text`:
    /// `{start, names}`, or `null` when no mention is being typed or no name fits.
    #[wasm_bindgen(js_name = mentionAt, unchecked_return_type = "MentionOffer | null")]
    pub fn mention_at(&self, text: &str, caret: usize) -> JsValue {
        let offer = self.core.mention_at(text, caret);
        offer.map_or(JsValue::NULL, |offer| json::serialized(&offer))
    }

    /// Generate asks before starting jobs whose estimate is above `usd` (5 by default).
    #[wasm_bindgen(js_name = setConfirmAbove)]
    pub fn set_confirm_above(&self, usd: f64) -> Result<(), JsValue> {
        self.core.set_confirm_above(usd).map_err(js_error)
    }

    /// Starts a job from `prompt`, or from the draft when omitted (several takes of it when
    /// `setTakes` chose more than one); resolves with the job, or the first take.
    #[wasm_bindgen(js_name = createJob)]
    pub fn create_job(&self, prompt: Option<String>) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            core.create_job(prompt.as_deref()).await
        })
    }

    /// Opens the Spend panel and reads the project's spend (`view("spend")`).
    #[wasm_bindgen(js_name = openSpend)]
    pub fn open_spend(&self) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.open_spend().await })
    }

    #[wasm_bindgen(js_name = closeSpend)]
    pub fn close_spend(&self) {
        self.core.close_spend();
    }
}
