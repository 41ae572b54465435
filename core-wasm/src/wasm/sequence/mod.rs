//! The sequence editor's wasm-bindgen surface: one `SequenceEditor` per open Sequence panel.
//! Its commands change the editor (`crate::sequence::editor`) at once and save in the
//! background, one save at a time (`session.rs`); it follows the project's event stream while
//! a sequence is open, so a change made in another browser shows within a second.

mod board;
mod framing;
mod history;
mod session;
mod sound;
mod stream;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, spawn_local};

use self::session::Inner;
use super::browser::BrowserPlatform;
use super::listeners::{Listeners, Views};
use crate::api::ApiConfig;
use crate::json::browser as json;
use crate::sequence::edit::{caption, within_take, Edit};
use crate::sequence::editor::{Editor, PanelView};
use crate::sequence::frames;
use crate::video_size::EXPORT_SIZES;

fn plain_error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// The `{ apiBase, token }` the studio's `config()` answers.
fn api_config(config: &JsValue) -> Result<ApiConfig, JsValue> {
    ApiConfig::from_value(&json::from_js(config)).map_err(|e| plain_error(&e))
}

/// A shot id no other editor will make: `shot_` and 16 random hex digits.
fn new_shot_id() -> String {
    let word = || (js_sys::Math::random() * f64::from(u32::MAX)) as u32;
    format!("shot_{:08x}{:08x}", word(), word())
}

// The types the panel's views have, generated from the Rust that makes them.
#[wasm_bindgen(typescript_custom_section)]
const VIEW_TYPES: &str = r#"import type { MentionOffer } from "../app/src/core/types";
import type { CropWindow, PanelView, PreviewMix } from "../app/src/sequence/types";"#;

/// The sequence editor of one project.
#[wasm_bindgen]
pub struct SequenceEditor {
    inner: Rc<Inner>,
    view: Views<1>,
}

#[wasm_bindgen]
impl SequenceEditor {
    /// `new SequenceEditor({ apiBase, token }, projectId)`: the studio's `config()` will do.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, project: String) -> Result<SequenceEditor, JsValue> {
        Ok(SequenceEditor {
            inner: Rc::new(Inner {
                platform: BrowserPlatform::default(),
                config: api_config(&config)?,
                project,
                state: RefCell::default(),
                listeners: Listeners::default(),
                version: Cell::new(0),
                opened: Cell::new(0),
                settled: RefCell::default(),
                adds: RefCell::default(),
                adding: Cell::new(false),
                finding: Cell::new(false),
                retry_ms: Cell::new(session::RETRY_FIRST_MS),
                opening: Cell::new(0),
                listing: Cell::new(0),
                closed: Cell::new(false),
            }),
            view: Views::default(),
        })
    }

    /// Calls `listener()` after every change; returns the function that unsubscribes.
    #[wasm_bindgen(unchecked_return_type = "() => void")]
    pub fn subscribe(&self, listener: js_sys::Function) -> js_sys::Function {
        self.inner.listeners.subscribe(listener, None)
    }

    /// What the panel shows: the same object until something changes.
    #[wasm_bindgen(unchecked_return_type = "PanelView")]
    pub fn view(&self) -> JsValue {
        self.view.at(0, self.inner.version.get(), || {
            let state = self.inner.state.borrow();
            json::serialized(&PanelView {
                sequences: state.sequences.clone(),
                editor: state.editor.as_ref().map(Editor::view),
                saving: state.saving,
                error: state.error.clone(),
                notice: state.notice.clone(),
                videos: state.videos.clone(),
                removed: state.removed.as_ref().map(|r| r.name.clone()),
                announcement: state.announcement.clone(),
                cast: state.cast.clone(),
                pictures: state.pictures.clone(),
                estimate: state.estimate.clone(),
                models: state.models.clone(),
                making: state.making.by_shot(),
                sounds: state.sounds.clone(),
            })
        })
    }

    /// Reads the project's sequences and opens `wanted` (the one the address names) when the
    /// project has it, else the newest (or makes a first one).
    pub fn start(&self, wanted: Option<String>) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let asked = session::ticket(&inner.opening);
            let listing = session::ticket(&inner.listing);
            let listed = inner.client().list().await;
            let sequences = match listed {
                Ok(list) => list,
                Err(e) => {
                    inner.failed(e);
                    return Ok(JsValue::UNDEFINED);
                }
            };
            let first = wanted
                .filter(|id| sequences.iter().any(|s| s.id == *id))
                .or_else(|| sequences.first().map(|s| s.id.clone()));
            if inner.listing.get() == listing {
                inner.change(|s| s.sequences = sequences);
            }
            let opened = match &first {
                Some(id) => inner.client().get(id).await,
                // Two browsers opening an empty project at once open the same first one.
                None => inner.client().create("Sequence 1", true).await,
            };
            // Another sequence asked for meanwhile is the one to open.
            if inner.opening.get() != asked {
                return Ok(JsValue::UNDEFINED);
            }
            match opened {
                Ok(sequence) => inner.open_editor(Editor::new(sequence)),
                Err(e) => inner.failed(e),
            }
            // The list has the sequence just made only when one was made.
            if first.is_none() {
                inner.relist().await;
            }
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Opens the project's sequence `id`, once the edits made so far are sent.
    pub fn open(&self, id: String) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let asked = session::ticket(&inner.opening);
            inner.sent().await;
            let sequence = inner.client().get(&id).await;
            // Of two openings in flight, the newer one's answer wins.
            if inner.opening.get() != asked {
                return Ok(JsValue::UNDEFINED);
            }
            inner.opened_or_failed(sequence)
        })
    }

    /// Makes a new sequence, "Sequence N" after the N - 1 the project has, and opens it once
    /// the edits made so far are sent.
    #[wasm_bindgen(js_name = newSequence)]
    pub fn new_sequence(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let asked = session::ticket(&inner.opening);
            inner.sent().await;
            let name = format!("Sequence {}", inner.state.borrow().sequences.len() + 1);
            let sequence = inner.client().create(&name, false).await;
            if inner.opening.get() != asked {
                inner.relist().await;
                return Ok(JsValue::UNDEFINED);
            }
            let opened = inner.opened_or_failed(sequence);
            inner.relist().await;
            opened
        })
    }

    /// Stops following the project's events; an opening still in flight opens nothing, and no
    /// lookup, retried save or queued add starts again.
    pub fn close(&self) {
        self.inner.closed.set(true);
        self.inner.opened.set(self.inner.opened.get() + 1);
        session::ticket(&self.inner.opening);
        self.inner.platform.abort_stream();
    }

    /// Adds the library video `video` (its file name, or its key) as a new last shot, its
    /// whole length (read from its metadata) as in and out. Videos are added in the order
    /// asked, one at a time.
    #[wasm_bindgen(js_name = addShot)]
    pub fn add_shot(&self, video: String) {
        let file_name = crate::asset::file_name(&video).to_owned();
        self.inner.adds.borrow_mut().push_back(file_name);
        if !self.inner.adding.replace(true) {
            spawn_local(self.inner.clone().add_queued());
        }
    }

    /// Sets shot `id`'s in and out points, in seconds (each kept as the nearest frame); an out
    /// point past the end of the shot's take is refused before anything is sent.
    pub fn trim(&self, id: String, in_s: f64, out_s: f64) -> Result<(), JsValue> {
        let checked = {
            let state = self.inner.state.borrow();
            let sequence = state.editor.as_ref().map(Editor::current);
            let fps = sequence.map_or(24, |s| s.fps);
            let frame = |s: f64| frames::of_seconds(s, fps).ok_or("Not a time".to_owned());
            frame(in_s).and_then(|in_frame| {
                let out_frame = frame(out_s)?;
                let Some(sequence) = sequence else {
                    return Ok((in_frame, out_frame));
                };
                let length = sequence
                    .position(&id)
                    .and_then(|at| sequence.shots[at].take.as_ref())
                    .and_then(|take| state.videos.get(take)?.duration_s);
                within_take(sequence, &id, out_frame, length).map_err(|e| e.to_string())?;
                Ok((in_frame, out_frame))
            })
        };
        let (in_frame, out_frame) = checked.map_err(|e| plain_error(&e))?;
        self.inner.edit(Edit::Trim {
            id,
            in_frame,
            out_frame,
        })
    }

    /// Moves shot `id` to position `to` (from 0).
    #[wasm_bindgen(js_name = "move")]
    pub fn move_to(&self, id: String, to: usize) -> Result<(), JsValue> {
        let label = self.label_of(&id);
        self.inner.edit(Edit::Move { id, to })?;
        let total = self.shot_count();
        self.announce(format!(
            "{label} moved to position {} of {total}",
            to.min(total.saturating_sub(1)) + 1
        ));
        Ok(())
    }

    pub fn remove(&self, id: String) -> Result<(), JsValue> {
        let label = self.label_of(&id);
        self.inner.edit(Edit::Remove { id })?;
        self.announce(format!("{label} removed"));
        Ok(())
    }

    /// Chooses `take` (one of the shot's candidates) for shot `id`.
    pub fn choose(&self, id: String, take: String) -> Result<(), JsValue> {
        self.inner.edit(Edit::Choose {
            id,
            take: Some(take),
        })
    }

    pub fn label(&self, id: String, label: String) -> Result<(), JsValue> {
        self.inner.edit(Edit::Label { id, label })
    }

    /// Sets the standard an export brings the cut's sound to: `web`, `broadcast` or `off`.
    pub fn loudness(&self, loudness: String) -> Result<(), JsValue> {
        self.inner.edit(Edit::Loudness { loudness })
    }

    /// The sizes an export may ask for other than its sequence's (`WxH`).
    #[wasm_bindgen(js_name = exportSizes)]
    pub fn export_sizes(&self) -> Vec<String> {
        EXPORT_SIZES.iter().map(|s| (*s).to_owned()).collect()
    }

    /// Gives shot `id` the caption `text` (lines trimmed, blank ones dropped; none when
    /// empty), keeping its points on the take.
    pub fn caption(&self, id: String, text: String) -> Result<(), JsValue> {
        let edit = {
            let state = self.inner.state.borrow();
            let sequence = state.editor.as_ref().map(Editor::current);
            let sequence = sequence.ok_or_else(|| plain_error("Open a sequence first"))?;
            caption(sequence, &id, &text).map_err(|e| plain_error(&e.to_string()))?
        };
        self.inner.edit(edit)
    }

    fn label_of(&self, id: &str) -> String {
        let state = self.inner.state.borrow();
        let sequence = state.editor.as_ref().map(Editor::current);
        sequence
            .and_then(|s| Some(s.shots[s.position(id)?].label.clone()))
            .unwrap_or_else(|| "The shot".into())
    }

    fn shot_count(&self) -> usize {
        let state = self.inner.state.borrow();
        state.editor.as_ref().map_or(0, |e| e.current().shots.len())
    }

    /// Says `words` in the panel's live region.
    fn announce(&self, words: String) {
        self.inner.change(|s| s.announcement = Some(words));
    }

    /// "Continue" on shot `id`: a new shot right after it, whose take is a job that extends
    /// this shot's take (or, where the model cannot, starts from its last frame); saved to the
    /// library, that video joins the new shot. Resolves with the job's id.
    #[wasm_bindgen(js_name = continueShot)]
    pub fn continue_shot(&self, id: String) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let shot = new_shot_id();
            let made = inner.change(|s| {
                let editor = s.editor.as_mut().ok_or("Open a sequence first")?;
                let continued = editor
                    .continue_after(&id, shot.clone())
                    .map_err(|e| e.to_string())?;
                Ok::<_, String>((editor.current().id.clone(), continued))
            });
            let (sequence, continued) = made.map_err(|e| plain_error(&e))?;
            inner.save();
            inner.sent().await;
            let job = inner
                .client()
                .continue_from(&continued.prompt, &continued.from, &sequence, &shot)
                .await;
            match job {
                Ok(job) => {
                    inner.change(|s| {
                        s.notice = Some(format!(
                            "Making the next shot's take ({job}): it joins the shot when it is done."
                        ));
                        s.error = None;
                    });
                    Ok(JsValue::from_str(&job))
                }
                Err(e) => Err(inner.thrown(e)),
            }
        })
    }

    /// Starts the MP4 export of the open sequence, at its own size or `size` (one of
    /// `exportSizes`), its captions as a subtitle track (`track`, when not given), burnt into
    /// the picture (`burn`) or left out (`none`): resolves with its job's id.
    #[wasm_bindgen(js_name = exportMp4)]
    pub fn export_mp4(&self, size: Option<String>, captions: Option<String>) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let id = inner.open_id()?;
            let client = inner.client();
            match client
                .export(&id, size.as_deref(), captions.as_deref())
                .await
            {
                Ok(job) => {
                    inner.change(|s| {
                        s.notice = Some(format!(
                            "Exporting ({job}): the video joins the library when done."
                        ));
                        s.error = None;
                    });
                    Ok(JsValue::from_str(&job))
                }
                Err(e) => Err(inner.thrown(e)),
            }
        })
    }
}
