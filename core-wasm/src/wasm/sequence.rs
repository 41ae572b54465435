//! The sequence editor's wasm-bindgen surface: one `SequenceEditor` per open Sequence panel.
//! Its commands change the editor (`crate::sequence::editor`) at once and save in the
//! background, one save at a time; it follows the project's event stream while a sequence is
//! open, so a change made in another browser shows within a second. Listeners are called after
//! each change, never while the state is borrowed.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, spawn_local};

use super::browser::BrowserPlatform;
use crate::api::{Api, ApiConfig};
use crate::asset::metadata_url;
use crate::platform::{BodyStream, Platform};
use crate::sequence::client::{CallError, Client, Saved, Summary, Video};
use crate::sequence::edit::Edit;
use crate::sequence::editor::{Editor, PanelView};
use crate::sequence::{frames, Sequence, Shot};
use crate::sse::Reader;

#[derive(Default)]
struct State {
    sequences: Vec<Summary>,
    editor: Option<Editor>,
    saving: bool,
    error: Option<String>,
    notice: Option<String>,
    /// The takes looked up in the library, and those it does not have.
    videos: BTreeMap<String, Video>,
    unknown: BTreeSet<String>,
}

struct Inner {
    platform: BrowserPlatform,
    config: ApiConfig,
    project: String,
    state: RefCell<State>,
    listeners: RefCell<Vec<(u32, js_sys::Function)>>,
    next_listener: Cell<u32>,
    version: Cell<u64>,
    /// Raised each time another sequence is opened or the panel closes: a stream followed
    /// for an earlier one stops.
    opened: Cell<u64>,
    /// Told when no edit is left to save (or a save failed).
    settled: RefCell<Vec<js_sys::Function>>,
    /// Videos asked to be added, in order, and whether they are being added.
    adds: RefCell<std::collections::VecDeque<String>>,
    adding: Cell<bool>,
    /// Whether takes are being looked up.
    finding: Cell<bool>,
}

impl Inner {
    fn client(&self) -> Client<'_, BrowserPlatform> {
        Client::new(&self.platform, &self.config, &self.project)
    }

    /// Changes the state with `change`, then tells every listener (and looks up any take the
    /// change brought that is not known yet).
    fn change<T>(self: &Rc<Self>, change: impl FnOnce(&mut State) -> T) -> T {
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

    fn failed(self: &Rc<Self>, error: CallError) {
        self.change(|s| s.error = Some(error.0));
    }

    /// Sends the unsaved edits, unless a save is on its way (its end sends what came after).
    fn save(self: &Rc<Self>) {
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
            inner.change(|s| {
                s.saving = false;
                let Some(editor) = s.editor.as_mut().filter(|e| e.current().id == id) else {
                    return;
                };
                match answer {
                    Ok(Saved::Taken(sequence)) => {
                        editor.saved(sequence);
                        s.error = None;
                    }
                    Ok(Saved::ChangedElsewhere(theirs)) => {
                        editor.refused(theirs);
                        s.error = Some(
                            "This sequence was changed elsewhere: their change is shown. \
                             Apply yours again on top of it, or let yours go."
                                .into(),
                        );
                    }
                    Err(e) => {
                        editor.not_sent();
                        s.error = Some(format!("Not saved: {e}"));
                    }
                }
            });
            inner.save();
            if !inner.state.borrow().saving {
                let waiting = std::mem::take(&mut *inner.settled.borrow_mut());
                for wake in waiting {
                    let _ = wake.call0(&JsValue::NULL);
                }
            }
        });
    }

    /// Resolves when the edits made so far have been sent (saved, or refused).
    async fn sent(&self) {
        if !self.state.borrow().saving {
            return;
        }
        let wait = js_sys::Promise::new(&mut |wake, _| self.settled.borrow_mut().push(wake));
        let _ = wasm_bindgen_futures::JsFuture::from(wait).await;
    }

    /// Makes `edit` and saves it; an edit that does not apply is the error shown.
    fn edit(self: &Rc<Self>, edit: Edit) -> Result<(), JsValue> {
        self.make(edit).map_err(|e| plain_error(&e))
    }

    fn make(self: &Rc<Self>, edit: Edit) -> Result<(), String> {
        self.change(|s| {
            let editor = s.editor.as_mut().ok_or("Open a sequence first")?;
            editor.edit(edit).map_err(|e| e.to_string())
        })?;
        self.save();
        Ok(())
    }

    /// Follows the project's events while sequence `id` is open, taking each change of it
    /// made elsewhere; a stream that ends is opened again a second later.
    async fn follow(self: Rc<Self>, id: String, opened: u64) {
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
                    for event in reader.push(&piece) {
                        last_id = event.id.clone().or(last_id);
                        let ours = serde_json::from_str::<serde_json::Value>(&event.data)
                            .is_ok_and(|d| d["id"] == id.as_str());
                        if event.name == "sequence" && ours {
                            if let Ok(sequence) = self.client().get(&id).await {
                                self.change(|s| {
                                    if let Some(editor) = s.editor.as_mut() {
                                        editor.changed_elsewhere(sequence);
                                    }
                                });
                            }
                        }
                    }
                }
            }
            if self.opened.get() != opened {
                return;
            }
            let _ = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |wake, _| {
                if let Some(window) = web_sys::window() {
                    let _ =
                        window.set_timeout_with_callback_and_timeout_and_arguments_0(&wake, 1_000);
                }
            }))
            .await;
        }
    }

    /// Adds the videos asked for, in order; each failure is the error shown.
    async fn add_queued(self: Rc<Self>) {
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
    fn opened_or_failed(
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

    /// Reads the project's sequences again, for the list the panel offers.
    async fn relist(self: &Rc<Self>) {
        if let Ok(sequences) = self.client().list().await {
            self.change(|s| s.sequences = sequences);
        }
    }

    fn open_editor(self: &Rc<Self>, editor: Editor) {
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

fn plain_error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// Plain JS data through one JSON serializer.
fn to_js<T: serde::Serialize>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .ok()
        .and_then(|text| js_sys::JSON::parse(&text).ok())
        .unwrap_or(JsValue::UNDEFINED)
}

/// The `{ apiBase, token }` the studio's `config()` answers.
fn api_config(config: &JsValue) -> Result<ApiConfig, JsValue> {
    let text = js_sys::JSON::stringify(config).map_err(|_| plain_error("expected plain data"))?;
    serde_json::from_str(&String::from(text)).map_err(|e| plain_error(&e.to_string()))
}

/// A shot id no other editor will make: `shot_` and 16 random hex digits.
fn new_shot_id() -> String {
    let word = || (js_sys::Math::random() * f64::from(u32::MAX)) as u32;
    format!("shot_{:08x}{:08x}", word(), word())
}

/// The sequence editor of one project.
#[wasm_bindgen]
pub struct SequenceEditor {
    inner: Rc<Inner>,
    view: RefCell<Option<(u64, JsValue)>>,
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
                listeners: RefCell::default(),
                next_listener: Cell::new(0),
                version: Cell::new(0),
                opened: Cell::new(0),
                settled: RefCell::default(),
                adds: RefCell::default(),
                adding: Cell::new(false),
                finding: Cell::new(false),
            }),
            view: RefCell::new(None),
        })
    }

    /// Calls `listener()` after every change; returns the function that unsubscribes.
    pub fn subscribe(&self, listener: js_sys::Function) -> js_sys::Function {
        let id = self.inner.next_listener.get();
        self.inner.next_listener.set(id + 1);
        self.inner.listeners.borrow_mut().push((id, listener));
        let inner = Rc::downgrade(&self.inner);
        Closure::once_into_js(move || {
            if let Some(inner) = inner.upgrade() {
                inner.listeners.borrow_mut().retain(|(l, _)| *l != id);
            }
        })
        .unchecked_into()
    }

    /// What the panel shows: the same object until something changes.
    pub fn view(&self) -> JsValue {
        let version = self.inner.version.get();
        if let Some((seen, view)) = &*self.view.borrow() {
            if *seen == version {
                return view.clone();
            }
        }
        let state = self.inner.state.borrow();
        let view = to_js(&PanelView {
            sequences: state.sequences.clone(),
            editor: state.editor.as_ref().map(Editor::view),
            saving: state.saving,
            error: state.error.clone(),
            notice: state.notice.clone(),
            videos: state.videos.clone(),
        });
        drop(state);
        *self.view.borrow_mut() = Some((version, view.clone()));
        view
    }

    /// Reads the project's sequences and opens the newest (or makes a first one).
    pub fn start(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let listed = inner.client().list().await;
            let sequences = match listed {
                Ok(list) => list,
                Err(e) => {
                    inner.failed(e);
                    return Ok(JsValue::UNDEFINED);
                }
            };
            let first = sequences.first().map(|s| s.id.clone());
            inner.change(|s| s.sequences = sequences);
            let opened = match first {
                Some(id) => inner.client().get(&id).await,
                // Two browsers opening an empty project at once open the same first one.
                None => inner.client().create("Sequence 1", true).await,
            };
            match opened {
                Ok(sequence) => inner.open_editor(Editor::new(sequence)),
                Err(e) => inner.failed(e),
            }
            inner.relist().await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Opens the project's sequence `id`, once the edits made so far are sent.
    pub fn open(&self, id: String) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            inner.sent().await;
            let sequence = inner.client().get(&id).await;
            inner.opened_or_failed(sequence)
        })
    }

    /// Makes a new sequence, "Sequence N" after the N - 1 the project has, and opens it once
    /// the edits made so far are sent.
    #[wasm_bindgen(js_name = newSequence)]
    pub fn new_sequence(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            inner.sent().await;
            let name = format!("Sequence {}", inner.state.borrow().sequences.len() + 1);
            let sequence = inner.client().create(&name, false).await;
            let opened = inner.opened_or_failed(sequence);
            inner.relist().await;
            opened
        })
    }

    /// Stops following the project's events.
    pub fn close(&self) {
        self.inner.opened.set(self.inner.opened.get() + 1);
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

    /// Sets shot `id`'s in and out points, in seconds (each kept as the nearest frame).
    pub fn trim(&self, id: String, in_s: f64, out_s: f64) -> Result<(), JsValue> {
        let fps = self
            .inner
            .state
            .borrow()
            .editor
            .as_ref()
            .map_or(24, |e| e.current().fps);
        let frame = |s: f64| frames::of_seconds(s, fps).ok_or_else(|| plain_error("Not a time"));
        let (in_frame, out_frame) = (frame(in_s)?, frame(out_s)?);
        self.inner.edit(Edit::Trim {
            id,
            in_frame,
            out_frame,
        })
    }

    /// Moves shot `id` to position `to` (from 0).
    #[wasm_bindgen(js_name = "move")]
    pub fn move_to(&self, id: String, to: usize) -> Result<(), JsValue> {
        self.inner.edit(Edit::Move { id, to })
    }

    pub fn remove(&self, id: String) -> Result<(), JsValue> {
        self.inner.edit(Edit::Remove { id })
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

    /// Undoes the last edit; `false` when there is nothing to undo.
    pub fn undo(&self) -> bool {
        self.step(Editor::undo)
    }

    /// Makes again the last edit undone; `false` when there is none.
    pub fn redo(&self) -> bool {
        self.step(Editor::redo)
    }

    fn step(&self, step: fn(&mut Editor) -> bool) -> bool {
        let stepped = self.inner.change(|s| s.editor.as_mut().is_some_and(step));
        self.inner.save();
        stepped
    }

    /// After a save refused because the sequence changed elsewhere: applies the local edits
    /// again on top of that change (and saves), or lets them go.
    #[wasm_bindgen(js_name = applyAgain)]
    pub fn apply_again(&self) -> usize {
        let applied = self.inner.change(|s| {
            s.error = None;
            s.editor.as_mut().map_or(0, Editor::apply_again)
        });
        self.inner.save();
        applied
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
                            "Making the next shot's take ({job}): save it to the library and it joins the shot."
                        ));
                        s.error = None;
                    });
                    Ok(JsValue::from_str(&job))
                }
                Err(e) => {
                    inner.failed(e.clone());
                    Err(plain_error(&e.0))
                }
            }
        })
    }

    /// Starts the MP4 export of the open sequence: resolves with its job's id.
    #[wasm_bindgen(js_name = exportMp4)]
    pub fn export_mp4(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let id = inner
                .state
                .borrow()
                .editor
                .as_ref()
                .map(|e| e.current().id.clone())
                .ok_or_else(|| plain_error("Open a sequence first"))?;
            match inner.client().export(&id).await {
                Ok(job) => {
                    inner.change(|s| {
                        s.notice = Some(format!(
                            "Exporting ({job}): the video joins the library when done."
                        ));
                        s.error = None;
                    });
                    Ok(JsValue::from_str(&job))
                }
                Err(e) => {
                    inner.failed(e.clone());
                    Err(plain_error(&e.0))
                }
            }
        })
    }
}
