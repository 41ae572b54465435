//! What happens to the `SequenceEditor`'s edits after they are made: undone and redone (never
//! over someone else's change), applied again or let go after a save was refused because the
//! sequence changed elsewhere, and kept as a new sequence or let go when it was removed
//! elsewhere.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::{plain_error, session, SequenceEditor};
use crate::sequence::client::Saved;
use crate::sequence::editor::Editor;

#[wasm_bindgen]
impl SequenceEditor {
    /// Undoes the last edit; `false` when there is nothing to undo.
    pub fn undo(&self) -> bool {
        self.step(Editor::undo, "Undone")
    }

    /// Makes again the last edit undone; `false` when there is none.
    pub fn redo(&self) -> bool {
        self.step(Editor::redo, "Redone")
    }

    /// An undo or a redo; one that someone else's change since would overwrite is not made,
    /// and the notice says so.
    fn step(&self, step: fn(&mut Editor) -> Option<String>, done: &str) -> bool {
        let stepped = self.inner.change(|s| {
            let editor = s.editor.as_mut()?;
            let stepped = step(editor);
            if let Some(dropped) = editor.take_dropped() {
                s.announcement = Some(dropped.clone());
                s.notice = Some(dropped);
            }
            if let Some(label) = &stepped {
                s.announcement = Some(format!("{done}: {label}"));
            }
            Some(stepped.is_some())
        });
        self.inner.save();
        stepped.unwrap_or(false)
    }

    /// After a save refused because the sequence changed elsewhere: applies the local edits
    /// again on top of that change (and saves), or lets them go.
    #[wasm_bindgen(js_name = applyAgain)]
    pub fn apply_again(&self) -> usize {
        let applied = self.inner.change(|s| {
            s.error = None;
            let editor = s.editor.as_mut()?;
            let kept = editor.view().kept_aside;
            let applied = editor.apply_again();
            if applied < kept {
                let words = format!("{} of {kept} edits could not be applied", kept - applied);
                s.announcement = Some(words.clone());
                s.notice = Some(format!("{words}: what they changed was changed elsewhere."));
            }
            Some(applied)
        });
        self.inner.save();
        applied.unwrap_or(0)
    }

    #[wasm_bindgen(js_name = letGo)]
    pub fn let_go(&self) {
        self.inner.change(|s| {
            s.error = None;
            if let Some(editor) = s.editor.as_mut() {
                editor.let_go();
            }
        });
    }

    /// After the open sequence was removed elsewhere: makes a new sequence of it as this browser
    /// had it (its name, shots and points) and opens that.
    #[wasm_bindgen(js_name = keepRemoved)]
    pub fn keep_removed(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let Some(kept) = inner.state.borrow().removed.clone() else {
                return Ok(JsValue::UNDEFINED);
            };
            let asked = session::ticket(&inner.opening);
            let made = match inner.client().create(&kept.name, false).await {
                Ok(made) => made,
                Err(e) => {
                    inner.failed(e.clone());
                    return Err(plain_error(&e.0));
                }
            };
            let mut change = kept;
            change.version = made.version;
            let saved = inner.client().save(&made.id, change.to_change()).await;
            inner.relist().await;
            let reason = match saved {
                Ok(Saved::Taken(sequence)) => {
                    inner.change(|s| s.removed = None);
                    if inner.opening.get() == asked {
                        inner.open_editor(Editor::new(sequence));
                    }
                    return Ok(JsValue::UNDEFINED);
                }
                Ok(Saved::Refused(reason)) => reason,
                Ok(Saved::ChangedElsewhere(_) | Saved::Gone) => "it changed meanwhile".into(),
                Err(e) => e.0,
            };
            let message = format!("Could not keep the edits as a new sequence: {reason}");
            inner.change(|s| s.error = Some(message.clone()));
            Err(plain_error(&message))
        })
    }

    /// Lets the edits of a sequence removed elsewhere go.
    #[wasm_bindgen(js_name = dismissRemoved)]
    pub fn dismiss_removed(&self) {
        self.inner.change(|s| {
            s.removed = None;
            s.error = None;
        });
    }
}
