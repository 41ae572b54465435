//! The storyboard's commands of the `SequenceEditor`: Import script, Generate all (its
//! estimate first, with the model and the shots a call makes chosen), and the cast with the
//! pictures each member brings to its shots.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::{plain_error, SequenceEditor};
use crate::cast::MentionOffer;
use crate::json::browser as json;
use crate::sequence::board::GenerateWith;
use crate::sequence::client::CallError;
use crate::sequence::edit::Edit;

#[wasm_bindgen]
impl SequenceEditor {
    /// Makes a sequence of the Fountain screenplay `fountain` (its shots planned from the
    /// script, its characters added to the cast) and opens it once the edits made so far are
    /// sent.
    #[wasm_bindgen(js_name = importScript)]
    pub fn import_script(&self, fountain: String) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let asked = super::session::ticket(&inner.opening);
            inner.sent().await;
            let sequence = inner.client().import_script(&fountain).await;
            let shots = sequence.as_ref().map_or(0, |s| s.shots.len());
            let opened = if inner.opening.get() == asked {
                inner.opened_or_failed(sequence)
            } else {
                sequence
                    .map(|_| JsValue::UNDEFINED)
                    .map_err(|e| inner.thrown(e))
            };
            if opened.is_ok() {
                inner.change(|s| {
                    s.notice = Some(format!("Imported the script: {shots} shots."));
                    s.estimate = None;
                });
            }
            inner.relist().await;
            opened
        })
    }

    /// Asks what one take of every shot without one would make and cost with `model` (`null`:
    /// the server's default), neighbouring shots in one call each when `multiShot` and the
    /// model makes several; the panel shows it, with the models to choose from (read the first
    /// time), until Generate all starts them or the estimate is dismissed.
    #[wasm_bindgen(js_name = estimateAll)]
    pub fn estimate_all(&self, model: Option<String>, multi_shot: Option<bool>) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let id = inner.open_id()?;
            inner.sent().await;
            if inner.state.borrow().models.is_empty() {
                let models = inner.client().models().await.map_err(|e| inner.thrown(e))?;
                inner.change(|s| s.models = models);
            }
            let with = GenerateWith {
                model,
                multi_shot: multi_shot.unwrap_or(false),
            };
            match inner.client().estimate_all(&id, with).await {
                Ok(estimate) => {
                    inner.change(|s| {
                        s.estimate = Some(estimate);
                        s.error = None;
                    });
                    Ok(JsValue::UNDEFINED)
                }
                Err(e) => Err(inner.thrown(e)),
            }
        })
    }

    /// Lets the estimate go without starting anything.
    #[wasm_bindgen(js_name = dismissEstimate)]
    pub fn dismiss_estimate(&self) {
        self.inner.change(|s| s.estimate = None);
    }

    /// Starts one take of every shot without one, all or none, made as the estimate shown
    /// says: resolves with how many jobs.
    #[wasm_bindgen(js_name = generateAll)]
    pub fn generate_all(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let id = inner.open_id()?;
            let with = inner
                .state
                .borrow()
                .estimate
                .as_ref()
                .map(|e| e.made_with.clone());
            let with = with.ok_or_else(|| plain_error("Ask for the estimate first"))?;
            inner.sent().await;
            match inner.client().generate_all(&id, &with).await {
                Ok(jobs) => {
                    inner.change(|s| {
                        s.estimate = None;
                        s.error = None;
                        s.notice = Some(format!(
                            "Started {jobs} jobs: each take joins its shot when it is done."
                        ));
                    });
                    Ok(JsValue::from(jobs as u32))
                }
                Err(e) => Err(inner.thrown(e)),
            }
        })
    }

    /// Sets shot `id`'s prompt (trimmed; blank is none): what its takes are made from.
    pub fn prompt(&self, id: String, text: String) -> Result<(), JsValue> {
        self.inner.edit(Edit::Prompt {
            id,
            prompt: Some(text),
        })
    }

    /// The cast names offered for the mention typed at `caret` (UTF-16) in `text`: `{start,
    /// names}`, or `null` when no mention is being typed or no name fits. The cast is the one
    /// `loadCast` read.
    #[wasm_bindgen(js_name = mentionAt, unchecked_return_type = "MentionOffer | null")]
    pub fn mention_at(&self, text: String, caret: usize) -> JsValue {
        let state = self.inner.state.borrow();
        let names: Vec<&str> = state.cast.iter().map(|m| m.name.as_str()).collect();
        let offer = MentionOffer::of(&names, &text, caret);
        offer.map_or(JsValue::NULL, |offer| json::serialized(&offer))
    }

    /// Reads the project's cast and the pictures it may be given.
    #[wasm_bindgen(js_name = loadCast)]
    pub fn load_cast(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let client = inner.client();
            let read =
                async { Ok::<_, CallError>((client.cast().await?, client.pictures().await?)) };
            match read.await {
                Ok((cast, pictures)) => {
                    inner.change(|s| {
                        s.cast = cast;
                        s.pictures = pictures;
                    });
                    Ok(JsValue::UNDEFINED)
                }
                Err(e) => Err(inner.thrown(e)),
            }
        })
    }

    /// Gives cast member `member` the project's picture `picture` (or takes it away when it
    /// has it already).
    #[wasm_bindgen(js_name = togglePicture)]
    pub fn toggle_picture(&self, member: String, picture: String) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let found = inner
                .state
                .borrow()
                .cast
                .iter()
                .find(|m| m.id == member)
                .cloned();
            let mut changed = found.ok_or_else(|| plain_error("No such cast member"))?;
            match changed.references.iter().position(|r| *r == picture) {
                Some(at) => drop(changed.references.remove(at)),
                None => changed.references.push(picture),
            }
            match inner.client().put_member(&changed).await {
                Ok(member) => {
                    inner.change(|s| {
                        if let Some(kept) = s.cast.iter_mut().find(|m| m.id == member.id) {
                            *kept = member;
                        }
                        s.error = None;
                    });
                    Ok(JsValue::UNDEFINED)
                }
                Err(e) => Err(inner.thrown(e)),
            }
        })
    }
}
