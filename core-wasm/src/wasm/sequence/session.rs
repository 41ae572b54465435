//! The state behind one `SequenceEditor`, and the work it does in the background: saves, one
//! at a time; the project's stream followed while a sequence is open; the videos asked to be
//! added, in order; and each take looked up in the library. Listeners are called after each
//! change, never while the state is borrowed.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

use super::super::browser::BrowserPlatform;
use super::{new_shot_id, plain_error};
use crate::api::{Api, ApiConfig};
use crate::asset::metadata_url;
use crate::platform::{BodyStream, Platform};
use crate::sequence::client::{CallError, Client, Saved, Summary, Video};
use crate::sequence::edit::Edit;
use crate::sequence::editor::Editor;
use crate::sequence::{frames, Sequence, Shot};
use crate::sse::Reader;

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
}

pub(super) struct Inner {
    pub(super) platform: BrowserPlatform,
    pub(super) config: ApiConfig,
    pub(super) project: String,
    pub(super) state: RefCell<State>,
    pub(super) listeners: RefCell<Vec<(u32, js_sys::Function)>>,
    pub(super) next_listener: Cell<u32>,
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
}

/// The ticket of a request raised on `counter`: the newest while `counter` has not moved.
pub(super) fn ticket(counter: &Cell<u64>) -> u64 {
    counter.set(counter.get() + 1);
    counter.get()
}

/// The first and the longest wait before a save that did not arrive is sent again, in ms.
pub(super) const RETRY_FIRST_MS: u32 = 1_000;
const RETRY_MAX_MS: u32 = 30_000;

impl Inner {
    pub(super) fn client(&self) -> Client<'_, BrowserPlatform> {
        Client::new(&self.platform, &self.config, &self.project)
    }

    /// Changes the state with `change`, then tells every listener (and looks up any take the
    /// change brought that is not known yet).
    pub(super) fn change<T>(self: &Rc<Self>, change: impl FnOnce(&mut State) -> T) -> T {
        let out = change(&mut self.state.borrow_mut());
        self.version.set(self.version.get() + 1);
        let listeners: Vec<js_sys::Function> = self
            .listeners
            .borrow()
            .iter()
            .map(|(_, f)| f.clone())
            .collect();
        for listener in listeners {
            let _ = listener.call0(&JsValue::NULL);
        }
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
        if self.finding.get() || self.unfound().is_none() {
            return;
        }
        self.finding.set(true);
        let inner = self.clone();
        spawn_local(async move {
            while let Some(name) = inner.unfound() {
                let found = inner.client().video(&name).await;
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
            let retry_in = inner.change(|s| {
                s.saving = false;
                let editor = s.editor.as_mut().filter(|e| e.current().id == id)?;
                match answer {
                    Ok(Saved::Taken(sequence)) => {
                        editor.saved(sequence);
                        s.error = None;
                        inner.retry_ms.set(RETRY_FIRST_MS);
                        None
                    }
                    Ok(Saved::ChangedElsewhere(theirs)) => {
                        editor.refused(theirs);
                        s.error = Some(
                            "This sequence was changed elsewhere: their change is shown. \
                             Apply yours again on top of it, or let yours go."
                                .into(),
                        );
                        None
                    }
                    Ok(Saved::Refused(reason)) => {
                        editor.not_sent();
                        s.error = Some(format!("Not saved: {reason}"));
                        None
                    }
                    Err(e) => {
                        editor.not_sent();
                        let wait = inner.retry_ms.get();
                        inner.retry_ms.set((wait * 2).min(RETRY_MAX_MS));
                        s.error = Some(format!(
                            "Not saved: {e}. Trying again in {} s.",
                            wait / 1_000
                        ));
                        Some(wait)
                    }
                }
            });
            if let Some(wait) = retry_in {
                spawn_local(inner.clone().retry_after(id, wait));
            }
            inner.save();
            if !inner.state.borrow().saving {
                let waiting = std::mem::take(&mut *inner.settled.borrow_mut());
                for wake in waiting {
                    let _ = wake.call0(&JsValue::NULL);
                }
            }
        });
    }

    /// After `wait` ms, sends again the edits of sequence `id` that did not arrive, if it is
    /// still open.
    async fn retry_after(self: Rc<Self>, id: String, wait: u32) {
        sleep(wait).await;
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

    /// Follows the project's events while sequence `id` is open, taking each change of it
    /// made elsewhere and listing the sequences again when another changes; a stream that ends
    /// is opened again a second later.
    pub(super) async fn follow(self: Rc<Self>, id: String, opened: u64) {
        let api = Api::new(&self.platform, self.config.clone());
        let mut last_id = None;
        while self.opened.get() == opened {
            let request = api.events_request(&self.project, last_id.as_deref());
            if let Ok((response, mut body)) = self.platform.stream(request).await {
                let mut reader = Reader::default();
                while response.ok() && self.opened.get() == opened {
                    let Some(Ok(piece)) = body.next().await else {
                        break;
                    };
                    // Other sequences made, changed or removed: the list to open from, read
                    // once for all of them that came together.
                    let mut others = false;
                    for event in reader.push(&piece) {
                        last_id = event.id.clone().or(last_id);
                        if event.name == "library" {
                            self.library_changed(&event.data);
                            continue;
                        }
                        if event.name != "sequence" {
                            continue;
                        }
                        let ours =
                            crate::json::parse(&event.data).is_some_and(|d| d["id"] == id.as_str());
                        if !ours {
                            others = true;
                        } else if let Ok(sequence) = self.client().get(&id).await {
                            // Only while this opening of this sequence is still the open one.
                            if self.opened.get() != opened {
                                return;
                            }
                            self.change(|s| {
                                if let Some(editor) =
                                    s.editor.as_mut().filter(|e| e.current().id == id)
                                {
                                    editor.changed_elsewhere(sequence);
                                }
                            });
                        }
                    }
                    if others {
                        self.relist().await;
                    }
                }
            }
            if self.opened.get() != opened {
                return;
            }
            sleep(1_000).await;
        }
    }

    /// A take saved or deleted elsewhere (a `library` event's `{file_name, saved}`): its shots
    /// say so at once.
    fn library_changed(self: &Rc<Self>, data: &str) {
        let Some(data) = crate::json::parse(data) else {
            return;
        };
        let (Some(file_name), Some(saved)) = (data["file_name"].as_str(), data["saved"].as_bool())
        else {
            return;
        };
        self.change(|s| {
            if let Some(editor) = s.editor.as_mut() {
                editor.library_changed(file_name, saved);
            }
        });
    }

    /// Adds the videos asked for, in order; each failure is the error shown.
    pub(super) async fn add_queued(self: Rc<Self>) {
        loop {
            let next = self.adds.borrow_mut().pop_front();
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
        let video = self.client().video(&file_name).await.map_err(|e| e.0)?;
        let api = Api::new(&self.platform, self.config.clone());
        let metadata = api.get_metadata(&metadata_url(&video.url)).await.ok();
        self.change(|s| s.videos.insert(file_name.clone(), video));
        let seconds = metadata
            .as_ref()
            .and_then(|m| m["duration"].as_f64().or_else(|| m["seconds"].as_f64()))
            .unwrap_or(1.0);
        let (fps, count) = {
            let state = self.state.borrow();
            let editor = state.editor.as_ref().ok_or("Open a sequence first")?;
            (editor.current().fps, editor.current().shots.len())
        };
        let out_frame = frames::of_seconds(seconds, fps)
            .unwrap_or(u64::from(fps))
            .max(1);
        let shot = Shot {
            id: new_shot_id(),
            label: format!("Shot {}", count + 1),
            prompt: metadata
                .as_ref()
                .and_then(|m| m["prompt"].as_str().map(str::to_owned)),
            takes: vec![file_name.clone()],
            take: Some(file_name),
            in_frame: 0,
            out_frame,
            take_missing: false,
        };
        self.make(Edit::Insert {
            index: usize::MAX,
            shot,
        })
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
            Err(e) => {
                self.failed(e.clone());
                Err(plain_error(&e.0))
            }
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
        let id = editor.current().id.clone();
        let opened = self.opened.get() + 1;
        self.opened.set(opened);
        self.change(|s| {
            s.editor = Some(editor);
            s.error = None;
        });
        spawn_local(self.clone().follow(id, opened));
    }
}

/// Resolves after `ms` milliseconds.
async fn sleep(ms: u32) {
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
