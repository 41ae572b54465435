//! A shot's framing in the `SequenceEditor`: where its crop window sits in its take when an
//! export crops it to another shape. An edit like any other: undone, redone and saved the same
//! way.

use wasm_bindgen::prelude::*;

use super::{plain_error, SequenceEditor};
use crate::sequence::edit::Edit;
use crate::sequence::Reframe;

#[wasm_bindgen]
impl SequenceEditor {
    /// Shot `id`'s crop window centred at (`x`, `y`) of its take, each 0 to 1 from the left and
    /// the top; (0.5, 0.5) is the centre.
    pub fn reframe(&self, id: String, x: f64, y: f64) -> Result<(), JsValue> {
        let reframe = Reframe::checked(x, y).map_err(|e| plain_error(&e.to_string()))?;
        self.inner.edit(Edit::Reframe { id, reframe })
    }
}
