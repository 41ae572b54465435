//! A shot's framing in the `SequenceEditor`: where its crop window sits in its take when an
//! export crops it to another shape. An edit like any other: undone, redone and saved the same
//! way.

use wasm_bindgen::prelude::*;

use super::{plain_error, SequenceEditor};
use crate::json::browser as json;
use crate::sequence::edit::Edit;
use crate::sequence::editor::Editor;
use crate::sequence::reframe::window;
use crate::sequence::Reframe;
use crate::video_size::parse;

#[wasm_bindgen]
impl SequenceEditor {
    /// Shot `id`'s crop window centred at (`x`, `y`) of its take, each 0 to 1 from the left and
    /// the top; (0.5, 0.5) is the centre.
    pub fn reframe(&self, id: String, x: f64, y: f64) -> Result<(), JsValue> {
        let reframe = Reframe::checked(x, y).map_err(|e| plain_error(&e.to_string()))?;
        self.inner.edit(Edit::Reframe { id, reframe })
    }

    /// The part of shot `id`'s take (`take_width` x `take_height` pixels) that an export at
    /// `size` (`"720x1280"`; the sequence's own when left out) keeps: `{left, top, width,
    /// height}` as fractions of the take, or `null` when it keeps all of it (the same shape, a
    /// sequence that pads, or no such shot).
    #[wasm_bindgen(js_name = cropWindow, unchecked_return_type = "CropWindow | null")]
    pub fn crop_window(
        &self,
        id: String,
        take_width: u32,
        take_height: u32,
        size: Option<String>,
    ) -> JsValue {
        let state = self.inner.state.borrow();
        let Some(sequence) = state.editor.as_ref().map(Editor::current) else {
            return JsValue::NULL;
        };
        let shot = sequence.shots.iter().find(|s| s.id == id);
        let out = parse(size.as_deref().unwrap_or(&sequence.size));
        match (shot, out) {
            (Some(shot), Some(out))
                if sequence.fit == "crop" && take_width > 0 && take_height > 0 =>
            {
                let point = shot.reframe.unwrap_or(Reframe::CENTRE);
                window((take_width, take_height), out, point)
                    .map_or(JsValue::NULL, |w| json::serialized(&w))
            }
            _ => JsValue::NULL,
        }
    }
}
