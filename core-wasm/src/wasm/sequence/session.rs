//! The state behind one `SequenceEditor`, and the work it does in the background: saves, one
//! at a time; the videos asked to be added, in order; and each take looked up in the library
//! (the project's stream, followed while a sequence is open, is `stream.rs`). Listeners are
//! called after each change, never while the state is borrowed.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

use super::super::browser::BrowserPlatform;
use super::super::listeners::Listeners;
use super::{new_shot_id, plain_error};
use crate::api::{Api, ApiConfig};
use crate::asset::metadata_url;
use crate::sequence::board::{CastMember, Estimate, GenerateModel, Picture};
use crate::sequence::client::{CallError, Client, Saved, Summary, Video};
use crate::sequence::edit::Edit;
use crate::sequence::editor::Editor;
use crate::sequence::making::Making;
use crate::sequence::sounds::Sound;
use crate::sequence::{frames, Sequence, Shot};

#[derive(Default)]
pub(super) struct State {
    pub(super) sequences: Vec<Summary>,
    pub(super) editor: Option<Editor>,
    pub(super) saving: bool,
    pub(super) error: Option<String>,
    pub(super) notice: Option<String>,
    /// The takes looked up in the library, and those it does not have.
    pub(super) videos: BTreeMap<String, Video>,
    pub(super) unknown: BTreeSet<String>,
    /// The sequence as this browser had it when it was removed elsewhere, to keep as a new one.
    pub(super) removed: Option<Sequence>,
    /// The last move, removal, undo or redo, in words, for the panel's one live region.
    pub(super) announcement: Option<String>,
    pub(super) cast: Vec<CastMember>,
    pub(super) pictures: Vec<Picture>,
    pub(super) estimate: Option<Estimate>,
    pub(super) models: Vec<GenerateModel>,
    /// The takes being made for the open sequence's shots.
    pub(super) making: Making,
    /// The project's sounds, once asked for.
    pub(super) sounds: Vec<Sound>,
}

pub(super) struct Inner {
    pub(super) platform: BrowserPlatform,
    pub(super) config: ApiConfig,
    pub(super) project: String,
    pub(super) state: RefCell<State>,
    pub(super) listeners: Listeners<()>,
    pub(super) version: Cell<u64>,
    /// Raised each time another sequence is opened or the panel closes: a stream followed
    /// for an earlier one stops.
    pub(super) opened: Cell<u64>,
    /// Told when no edit is left to save (or a save failed).
    pub(super) settled: RefCell<Vec<js_sys::Function>>,
    /// Videos asked to be added, in order, and whether they are being added.
    pub(super) adds: RefCell<std::collections::VecDeque<String>>,
    pub(super) adding: Cell<bool>,
    /// Whether takes are being looked up.
    pub(super) finding: Cell<bool>,
    /// How long to wait before a save that did not arrive is sent again, in ms: 1 s, doubled
    /// after each failure up to 30 s, and 1 s again once one is taken.
    pub(super) retry_ms: Cell<u32>,
    /// Raised by each opening asked for (open, new sequence, start) and each listing: of two
    /// in flight, only the newer one's answer is taken.
    pub(super) opening: Cell<u64>,
    pub(super) listing: Cell<u64>,
    /// The panel closed: no task starts again (no stream, lookup, retry or add).
    pub(super) closed: Cell<bool>,
}

/// The ticket of a request raised on `counter`: the newest while `counter` has not moved.
pub(super) fn ticket(counter: &Cell<u64>) -> u64 {
    counter.set(counter.get() + 1);
    counter.get()
}

/// The first and the longest wait before a save that did not arrive is sent again, or the event
/// stream is opened again, in ms.
pub(super) const RETRY_FIRST_MS: u32 = 1_000;
pub(super) const RETRY_MAX_MS: u32 = 30_000;

/// What a save's answer leaves to do.
enum AfterSave {
    Nothing,
    /// Send again after this many ms.
    RetryIn(u32),
    /// The sequence was removed elsewhere.
    Gone,
}

impl Inner {
    pub(super) fn client(&self) -> Client<'_, BrowserPlatform> {
        Client::new(&self.platform, &self.config, &self.project)
    }

    /// Changes the state with `change`, then tells every listener (and looks up any take the
    /// change brought that is not known yet).
    pub(super) fn change<T>(self: &Rc<Self>, change: impl FnOnce(&mut State) -> T) -> T {
        let out = change(&mut self.state.borrow_mut());
        self.version.set(self.version.get() + 1);
        self.listeners.tell(());
        self.find_videos();
        out
    }

    /// The first take of the open sequence not looked up yet: the chosen takes first, in
    /// order, then the other candidates.
    fn unfound(&self) -> Option<String> {
        let s = self.state.borrow();
        let shots = &s.editor.as_ref()?.current().shots;
        let chosen = shots.iter().filter_map(|shot| shot.take.as_ref());
        let candidates = shots.iter().flat_map(|shot| &shot.takes);
        chosen
            .chain(candidates)
            .find(|t| !s.videos.contains_key(*t) && !s.unknown.contains(*t))
            .cloned()
    }

    /// Looks up the open sequence's takes in the library, one at a time, so that the strip and
    /// the player have their addresses whatever the library shows.
    fn find_videos(self: &Rc<Self>) {
        if self.closed.get() || self.finding.get() || self.unfound().is_none() {
            return;
        }
        self.finding.set(true);
        let inner = self.clone();
        spawn_local(async move {
            while let Some(name) = inner.unfound().filter(|_| !inner.closed.get()) {
                let found = inner.video(&name).await;
                inner.change(|s| match found {
                    Ok(video) => drop(s.videos.insert(name, video)),
                    Err(_) => drop(s.unknown.insert(name)),
                });
            }
            inner.finding.set(false);
        });
    }

    pub(super) fn failed(self: &Rc<Self>, error: CallError) {
        self.change(|s| s.error = Some(error.0));
    }

    /// `error` shown in the panel, and as the Error a command's promise rejects with.
    pub(super) fn thrown(self: &Rc<Self>, error: CallError) -> JsValue {
        let thrown = plain_error(&error.0);
        self.failed(error);
        thrown
    }

    /// The open sequence's id.
    pub(super) fn open_id(&self) -> Result<String, JsValue> {
        self.state
            .borrow()
            .editor
            .as_ref()
            .map(|e| e.current().id.clone())
            .ok_or_else(|| plain_error("Open a sequence first"))
    }

    /// Sends the unsaved edits, unless a save is on its way (its end sends what came after).
    /// A save the server refuses (4xx) is not sent again until the next edit, and the reason
    /// is shown; one that does not arrive (offline, 5xx) is sent again after a growing wait.
    /// Either way the waiters (Open, New sequence, Continue, Close) wake.
    pub(super) fn save(self: &Rc<Self>) {
        let Some((id, body)) = self.change(|s| {
            let editor = s.editor.as_mut()?;
            let body = editor.to_save()?;
            s.saving = true;
            Some((editor.current().id.clone(), body))
        }) else {
            return;
        };
        let inner = self.clone();
        spawn_local(async move {
            let answer = inner.client().save(&id, body).await;
            let after = inner.change(|s| {
                s.saving = false;
                let Some(editor) = s.editor.as_mut().filter(|e| e.current().id == id) else {
                    return AfterSave::Nothing;
                };
                match answer {
                    Ok(Saved::Taken(sequence)) => {
                        editor.saved(sequence);
                        s.error = None;
                        inner.retry_ms.set(RETRY_FIRST_MS);
                        AfterSave::Nothing
                    }
                    Ok(Saved::ChangedElsewhere(theirs)) => {
                        editor.refused(theirs);
                        s.error = Some(
                            "This sequence was changed elsewhere: their change is shown. \
                             Apply yours again on top of it, or let yours go."
                                .into(),
                        );
                        AfterSave::Nothing
                    }
                    Ok(Saved::Refused(reason)) => {
                        editor.not_sent();
                        s.error = Some(format!("Not saved: {reason}"));
                        AfterSave::Nothing
                    }
                    Ok(Saved::Gone) => AfterSave::Gone,
                    Err(e) => {
                        editor.not_sent();
                        let wait = inner.retry_ms.get();
                        inner.retry_ms.set((wait * 2).min(RETRY_MAX_MS));
                        s.error = Some(format!(
                            "Not saved: {e}. Trying again in {} s.",
                            wait / 1_000
                        ));
                        AfterSave::RetryIn(wait)
                    }
                }
            });
            match after {
                AfterSave::RetryIn(wait) => spawn_local(inner.clone().retry_after(id, wait)),
                AfterSave::Gone => inner.gone(&id),
                AfterSave::Nothing => {}
            }
            inner.save();
            if !inner.state.borrow().saving {
                inner.wake_waiters();
            }
        });
    }

    /// Wakes what waits for the edits made so far to be sent.
    pub(super) fn wake_waiters(&self) {
        let waiting = std::mem::take(&mut *self.settled.borrow_mut());
        for wake in waiting {
            let _ = wake.call0(&JsValue::NULL);
        }
    }

    /// After `wait` ms, sends again the edits of sequence `id` that did not arrive, if it is
    /// still open.
    async fn retry_after(self: Rc<Self>, id: String, wait: u32) {
        sleep(wait).await;
        if self.closed.get() {
            return;
        }
        let open = self.change(|s| {
            let editor = s.editor.as_mut().filter(|e| e.current().id == id)?;
            editor.resume();
            Some(())
        });
        if open.is_some() {
            self.save();
        }
    }

    /// Resolves when the edits made so far have been sent (saved, or refused).
    pub(super) async fn sent(&self) {
        if !self.state.borrow().saving {
            return;
        }
        let wait = js_sys::Promise::new(&mut |wake, _| self.settled.borrow_mut().push(wake));
        let _ = wasm_bindgen_futures::JsFuture::from(wait).await;
    }

    /// Makes `edit` and saves it; an edit that does not apply is the error shown.
    pub(super) fn edit(self: &Rc<Self>, edit: Edit) -> Result<(), JsValue> {
        self.make(edit).map_err(|e| plain_error(&e))
    }

    pub(super) fn make(self: &Rc<Self>, edit: Edit) -> Result<(), String> {
        self.change(|s| {
            let editor = s.editor.as_mut().ok_or("Open a sequence first")?;
            editor.edit(edit).map_err(|e| e.to_string())
        })?;
        self.save();
        Ok(())
    }

    /// Adds the videos asked for, in order; each failure is the error shown.
    pub(super) async fn add_queued(self: Rc<Self>) {
        loop {
            let next = self
                .adds
                .borrow_mut()
                .pop_front()
                .filter(|_| !self.closed.get());
            let Some(file_name) = next else {
                self.adding.set(false);
                return;
            };
            if let Err(e) = self.add_one(file_name).await {
                self.change(|s| s.error = Some(e));
            }
        }
    }

    async fn add_one(self: &Rc<Self>, file_name: String) -> Result<(), String> {
        let (video, metadata) = self.video_and_metadata(&file_name).await?;
        let seconds = video.duration_s.unwrap_or(1.0);
        self.change(|s| s.videos.insert(file_name.clone(), video));
        let (fps, count) = {
            let state = self.state.borrow();
            let editor = state.editor.as_ref().ok_or("Open a sequence first")?;
            (editor.current().fps, editor.current().shots.len())
        };
        let out_frame = frames::of_seconds(seconds, fps)
            .unwrap_or(u64::from(fps))
            .max(1);
        let prompt = metadata
            .as_ref()
            .and_then(|m| m["prompt"].as_str().map(str::to_owned));
        let label = format!("Shot {}", count + 1);
        let shot = Shot::new(new_shot_id(), label, prompt, Some(file_name), out_frame);
        self.make(Edit::Insert {
            index: usize::MAX,
            shot,
        })
    }

    /// The library video `file_name`, its length read from its metadata.
    async fn video(&self, file_name: &str) -> Result<Video, CallError> {
        self.video_and_metadata(file_name)
            .await
            .map(|(video, _)| video)
            .map_err(CallError)
    }

    async fn video_and_metadata(
        &self,
        file_name: &str,
    ) -> Result<(Video, Option<serde_json::Value>), String> {
        let mut video = self.client().video(file_name).await.map_err(|e| e.0)?;
        let api = Api::new(&self.platform, self.config.clone());
        let metadata = api.get_metadata(&metadata_url(&video.url)).await.ok();
        video.duration_s = metadata
            .as_ref()
            .and_then(|m| m["duration"].as_f64().or_else(|| m["seconds"].as_f64()));
        Ok((video, metadata))
    }

    /// Opens `sequence`, or shows why it could not be read.
    pub(super) fn opened_or_failed(
        self: &Rc<Self>,
        sequence: Result<Sequence, CallError>,
    ) -> Result<JsValue, JsValue> {
        match sequence {
            Ok(sequence) => {
                self.open_editor(Editor::new(sequence));
                Ok(JsValue::UNDEFINED)
            }
            Err(e) => Err(self.thrown(e)),
        }
    }

    /// Reads the project's sequences again, for the list the panel offers (an older listing
    /// answering after a newer one is dropped).
    pub(super) async fn relist(self: &Rc<Self>) {
        let asked = ticket(&self.listing);
        if let Ok(sequences) = self.client().list().await {
            if self.listing.get() == asked {
                self.change(|s| s.sequences = sequences);
            }
        }
    }

    pub(super) fn open_editor(self: &Rc<Self>, editor: Editor) {
        if self.closed.get() {
            return;
        }
        let id = editor.current().id.clone();
        let opened = self.opened.get() + 1;
        self.opened.set(opened);
        self.change(|s| {
            s.editor = Some(editor);
            s.error = None;
            s.announcement = None;
            s.making.clear();
        });
        spawn_local(self.clone().follow(id, opened));
    }
}

/// Resolves after `ms` milliseconds.
pub(super) async fn sleep(ms: u32) {
    let _ = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |wake, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(
                &wake,
                i32::try_from(ms).unwrap_or(i32::MAX),
            );
        }
    }))
    .await;
}
