//! The sound commands of the `SequenceEditor`: the project's sounds read and uploaded, laid on
//! the music or voice lane, each clip placed, trimmed, given its gain and fades or taken off,
//! a shot's own sound raised, lowered or muted, how far the music drops under a voice, and what
//! the preview plays under the picture.
//! Each change is an edit like any other: undone, redone and saved the same way.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::{plain_error, SequenceEditor};
use crate::json::browser as json;
use crate::sequence::edit::{Edit, EditError};
use crate::sequence::editor::Editor;
use crate::sequence::lane_edits::{add_sound, change_clip, remove_clip, ClipChange};
use crate::sequence::preview_mix::preview_mix;
use crate::sequence::{Lane, Sequence};

fn lane(name: &str) -> Result<Lane, JsValue> {
    Lane::from_name(name).ok_or_else(|| plain_error(&format!("No lane {name}: music or voice")))
}

impl SequenceEditor {
    /// The edit `make` gives for the open sequence, made.
    fn lane_edit(
        &self,
        make: impl FnOnce(&Sequence) -> Result<Edit, EditError>,
    ) -> Result<(), JsValue> {
        let edit = {
            let state = self.inner.state.borrow();
            let sequence = state.editor.as_ref().map(Editor::current);
            make(sequence.ok_or_else(|| plain_error("Open a sequence first"))?)
        };
        self.inner
            .edit(edit.map_err(|e| plain_error(&e.to_string()))?)
    }
}

#[wasm_bindgen]
impl SequenceEditor {
    /// Reads the project's sounds (`view().sounds`, newest first).
    #[wasm_bindgen(js_name = loadSounds)]
    pub fn load_sounds(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            match inner.client().sounds().await {
                Ok(sounds) => {
                    inner.change(|s| s.sounds = sounds);
                    Ok(JsValue::UNDEFINED)
                }
                Err(e) => Err(inner.thrown(e)),
            }
        })
    }

    /// Uploads `file` (a File or Blob of WAV, FLAC, MP3, AAC/M4A or Ogg) as a sound named
    /// `name`; resolves with its id. A file that is not sound, or is broken, is refused with
    /// the server's reason, shown in the panel.
    #[wasm_bindgen(js_name = uploadSound)]
    pub fn upload_sound(&self, file: web_sys::Blob, name: String) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let content_type = file.type_();
            let uploaded = inner.client().upload_sound(file, content_type, &name).await;
            match uploaded {
                Ok(sound) => {
                    let id = sound.id.clone();
                    inner.change(|s| {
                        s.notice = Some(format!("Added the sound {}.", sound.name));
                        s.error = None;
                        s.sounds.insert(0, sound);
                    });
                    Ok(JsValue::from_str(&id))
                }
                Err(e) => Err(inner.thrown(e)),
            }
        })
    }

    /// Lays the project's sound `sound` on lane `lane` (`music` or `voice`): after the lane's
    /// last clip, as long as the sound or up to the cut's end.
    #[wasm_bindgen(js_name = addSound)]
    pub fn add_sound(&self, lane_name: String, sound: String) -> Result<(), JsValue> {
        let lane = lane(&lane_name)?;
        let length = self
            .inner
            .state
            .borrow()
            .sounds
            .iter()
            .find(|s| s.id == sound)
            .map(|s| s.duration_s);
        let length =
            length.ok_or_else(|| plain_error(&format!("No sound {sound} in this project")))?;
        self.lane_edit(|sequence| Ok(add_sound(sequence, lane, &sound, length)))
    }

    /// Changes clip `index` (from 0) of lane `lane`: `{start_s, in_s, out_s, gain_db,
    /// fade_in_s, fade_out_s}`, each optional (seconds kept as the nearest frame).
    #[wasm_bindgen(js_name = changeClip)]
    pub fn change_clip(
        &self,
        lane_name: String,
        index: usize,
        change: JsValue,
    ) -> Result<(), JsValue> {
        let lane = lane(&lane_name)?;
        let change: ClipChange = serde_json::from_value(json::from_js(&change))
            .map_err(|e| plain_error(&format!("Not a clip change: {e}")))?;
        self.lane_edit(|sequence| change_clip(sequence, lane, index, &change))
    }

    /// Takes clip `index` (from 0) off lane `lane`.
    #[wasm_bindgen(js_name = removeClip)]
    pub fn remove_clip(&self, lane_name: String, index: usize) -> Result<(), JsValue> {
        let lane = lane(&lane_name)?;
        self.lane_edit(|sequence| remove_clip(sequence, lane, index))
    }

    /// Shot `id`'s own sound: its gain in dB (-60 to 12), and whether it is muted.
    #[wasm_bindgen(js_name = shotSound)]
    pub fn shot_sound(&self, id: String, gain_db: f64, mute: bool) -> Result<(), JsValue> {
        self.inner.edit(Edit::ShotSound { id, gain_db, mute })
    }

    /// What the preview plays under the picture from the start of shot `id` (the cut's start
    /// when there is none): the lane clips still to sound, each with when it starts, where in
    /// its sound, for how long and its level as a line through points (gain, fades and the
    /// duck), and each shot's own sound level; `null` before a sequence is open.
    #[wasm_bindgen(js_name = previewMix, unchecked_return_type = "PreviewMix | null")]
    pub fn preview_mix(&self, id: String) -> JsValue {
        let state = self.inner.state.borrow();
        state.editor.as_ref().map_or(JsValue::NULL, |editor| {
            json::serialized(&preview_mix(editor.current(), &id))
        })
    }

    /// How far the music drops under a voice clip, in dB (0 to 60; 0 turns ducking off).
    pub fn duck(&self, duck_db: f64) -> Result<(), JsValue> {
        self.inner.edit(Edit::Duck { duck_db })
    }
}
