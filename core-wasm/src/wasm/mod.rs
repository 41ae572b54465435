//! The wasm-bindgen surface: one `Studio` handle, used by the React app and the browser console.

mod browser;
mod schedule;

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::api::ApiConfig;
use crate::asset::Decision;
use crate::core::{Core, Part};
use crate::error::CoreError;
use crate::inputs::{Fit, ImageRole, VideoRole, MAX_REFERENCE_BYTES};
use crate::snapshot::PickFilter;
use browser::BrowserPlatform;
use schedule::Timers;

type SharedCore = Rc<Core<BrowserPlatform>>;

/// Plain JS data (objects, arrays, strings, numbers, null) from JSON text.
fn parse(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap_or(JsValue::UNDEFINED)
}

/// Plain JS data through one JSON serializer.
fn to_js<T: Serialize>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .map(|text| parse(&text))
        .unwrap_or(JsValue::UNDEFINED)
}

fn from_js<T: serde::de::DeserializeOwned>(value: &JsValue) -> Result<T, JsValue> {
    let text = js_sys::JSON::stringify(value).map_err(|_| plain_error("expected plain data"))?;
    serde_json::from_str(&String::from(text)).map_err(|e| plain_error(&e.to_string()))
}

fn plain_error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// A failed command as a JS `Error` named `StudioError`, with the kind in `error.code`.
fn js_error(error: CoreError) -> JsValue {
    let js = js_sys::Error::new(&error.to_string());
    js.set_name("StudioError");
    let _ = js_sys::Reflect::set(&js, &"code".into(), &error.code().into());
    js.into()
}

/// A command's work, boxed so every command shares one Promise adapter in the wasm.
type Command = Pin<Box<dyn Future<Output = Result<JsValue, CoreError>>>>;

/// Runs a command as a Promise that resolves with its result or rejects with a `StudioError`.
fn promise<T, F>(core: &SharedCore, command: impl FnOnce(SharedCore) -> F) -> js_sys::Promise
where
    T: Serialize,
    F: Future<Output = Result<T, CoreError>> + 'static,
{
    let future = command(core.clone());
    settle(Box::pin(async move { future.await.map(|v| to_js(&v)) }))
}

fn settle(command: Command) -> js_sys::Promise {
    future_to_promise(async move { command.await.map_err(js_error) })
}

fn part(name: &str) -> Result<Part, JsValue> {
    Part::from_name(name).ok_or_else(|| plain_error(&format!("No part named {name}")))
}

/// The Studio client. Create one per page; it keeps its state until the page closes.
#[wasm_bindgen]
pub struct Studio {
    core: SharedCore,
    timers: RefCell<Option<Timers>>,
    snapshot: RefCell<Option<(u64, JsValue)>>,
    /// Each part's view with the part version it was made at.
    views: RefCell<[Option<(u64, JsValue)>; Part::ALL.len()]>,
}

#[wasm_bindgen]
impl Studio {
    /// `new Studio({ apiBase, token })`; both fields are optional.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<Studio, JsValue> {
        let studio = Studio {
            core: Rc::new(Core::new(BrowserPlatform::default())),
            timers: RefCell::new(None),
            snapshot: RefCell::new(None),
            views: RefCell::default(),
        };
        if !config.is_undefined() && !config.is_null() {
            studio.configure(config)?;
        }
        Ok(studio)
    }

    /// Sets the API base and bearer token: `{ apiBase: "/api", token: "..." }`.
    pub fn configure(&self, config: JsValue) -> Result<(), JsValue> {
        let config: ApiConfig = from_js(&config)?;
        self.core.configure(config);
        Ok(())
    }

    /// The configuration in force.
    pub fn config(&self) -> JsValue {
        to_js(&self.core.config())
    }

    /// Loads `{ apiBase, token }` from a JSON file such as `/config.json`.
    #[wasm_bindgen(js_name = loadConfig)]
    pub fn load_config(&self, url: String) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.load_config(&url).await },
        )
    }

    /// Calls `listener()` after every change, or only after changes of one part (`"recent"`,
    /// `"banner"`, `"console"`, `"jobs"`, `"library"`, `"cards"`, `"metadata"`, `"shot"`,
    /// `"compare"`, `"shares"` or `"spend"`); returns the function that unsubscribes.
    pub fn subscribe(
        &self,
        listener: js_sys::Function,
        part: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let part = part.as_deref().map(self::part).transpose()?;
        let id = self.core.platform().add_listener(listener, part);
        let core = self.core.clone();
        Ok(Closure::once_into_js(move || {
            core.platform().remove_listener(id)
        }))
    }

    /// Grows by one with every state change.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        self.core.version() as f64
    }

    /// Everything the UI renders; the same object until the version changes.
    pub fn snapshot(&self) -> JsValue {
        let version = self.core.version();
        if let Some((v, value)) = self.snapshot.borrow().as_ref() {
            if *v == version {
                return value.clone();
            }
        }
        let value = to_js(&self.core.snapshot());
        *self.snapshot.borrow_mut() = Some((version, value.clone()));
        value
    }

    /// One part of the snapshot, e.g. `studio.view("jobs")`; the same object until that part
    /// changes, so a keystroke in the prompt rebuilds no job or asset.
    pub fn view(&self, part: &str) -> Result<JsValue, JsValue> {
        let part = self::part(part)?;
        let version = self.core.part_version(part);
        if let Some((v, value)) = &self.views.borrow()[part.index()] {
            if *v == version {
                return Ok(value.clone());
            }
        }
        let value = parse(&self.core.view_text(part));
        self.views.borrow_mut()[part.index()] = Some((version, value.clone()));
        Ok(value)
    }

    /// The cleaned project id for what was typed, or `undefined` when it makes no valid id.
    #[wasm_bindgen(js_name = cleanProjectId)]
    pub fn clean_project_id(raw: &str) -> Option<String> {
        crate::project_id::clean(raw)
    }

    /// The longest project id, in characters.
    #[wasm_bindgen(js_name = maxProjectIdChars)]
    pub fn max_project_id_chars() -> usize {
        crate::project_id::MAX_CHARS
    }

    /// Whether an id names a project as it is (what a recent project or an address must be).
    #[wasm_bindgen(js_name = isValidProjectId)]
    pub fn is_valid_project_id(id: &str) -> bool {
        crate::project_id::is_valid(id)
    }

    /// Cleans the typed id, moves it to the front of Recent Projects and returns it.
    #[wasm_bindgen(js_name = openProject)]
    pub fn open_project(&self, raw: &str) -> Option<String> {
        self.core.open_project(raw)
    }

    /// Opens a recent project as it is, without cleaning.
    #[wasm_bindgen(js_name = openRecent)]
    pub fn open_recent(&self, id: &str) -> Option<String> {
        self.core.open_recent(id)
    }

    /// Shows a project's dashboard: reads its jobs, loads its assets, fetches the server's
    /// jobs, follows pushed changes and starts the timers.
    #[wasm_bindgen(js_name = enterProject)]
    pub fn enter_project(&self, id: &str) {
        self.timers.borrow_mut().take();
        self.core.enter_project(id);
        *self.timers.borrow_mut() = Some(Timers::start(&self.core, id));
        let core = self.core.clone();
        schedule::spawn(Box::pin(async move {
            let _ = core.load_assets().await;
        }));
        let core = self.core.clone();
        schedule::spawn(Box::pin(async move {
            let _ = core.load_shot().await;
        }));
        let core = self.core.clone();
        schedule::spawn(Box::pin(async move {
            let _ = core.load_shares().await;
        }));
        schedule::round(&self.core);
    }

    /// Leaves the dashboard and stops its timers and stream.
    #[wasm_bindgen(js_name = leaveProject)]
    pub fn leave_project(&self) {
        self.timers.borrow_mut().take();
        self.core.leave_project();
    }

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

    /// Opens the Spend panel and reads the project's spend (`view("spend")`).
    #[wasm_bindgen(js_name = openSpend)]
    pub fn open_spend(&self) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.open_spend().await })
    }

    #[wasm_bindgen(js_name = closeSpend)]
    pub fn close_spend(&self) {
        self.core.close_spend();
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

    /// Starts a job from `prompt`, or from the draft when omitted (several takes of it when
    /// `setTakes` chose more than one); resolves with the job, or the first take.
    #[wasm_bindgen(js_name = createJob)]
    pub fn create_job(&self, prompt: Option<String>) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            core.create_job(prompt.as_deref()).await
        })
    }

    /// Check Status: asks the server about one job now; resolves with the merged job.
    #[wasm_bindgen(js_name = checkStatus)]
    pub fn check_status(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.check_job(&id).await })
    }

    /// Polls every queued or running job and merges the server's job list now, as the
    /// 20-second timer does.
    #[wasm_bindgen(js_name = pollActive)]
    pub fn poll_active(&self) {
        schedule::round(&self.core);
    }

    /// Cancel: stops a queued or running job; resolves with the job (`error`, "Cancelled").
    #[wasm_bindgen(js_name = cancelJob)]
    pub fn cancel_job(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.cancel_job(&id).await })
    }

    /// Retry: starts a new job like a failed one; resolves with the new job.
    #[wasm_bindgen(js_name = retryJob)]
    pub fn retry_job(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.retry_job(&id).await })
    }

    /// Remove: deletes a job here and on the server (a saved video stays).
    #[wasm_bindgen(js_name = removeJob)]
    pub fn remove_job(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.remove_job(&id).await })
    }

    /// Save to Library; resolves with the storage key.
    #[wasm_bindgen(js_name = saveJob)]
    pub fn save_job(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.save_job(&id).await })
    }

    /// Reloads the Asset Library; resolves with the number of videos.
    #[wasm_bindgen(js_name = loadAssets)]
    pub fn load_assets(&self) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.load_assets().await })
    }

    /// Shows only the library videos whose title, file name or prompt contains `query`.
    #[wasm_bindgen(js_name = searchLibrary)]
    pub fn search_library(&self, query: &str) {
        self.core.search_library(query);
    }

    /// Holds the matching library videos at positions `first` to `end` (not included) in
    /// `view("cards")`: the grid asks for the rows it shows as it scrolls.
    #[wasm_bindgen(js_name = showLibraryCards)]
    pub fn show_library_cards(&self, first: u32, end: u32) {
        self.core.show_library_cards(first as usize, end as usize);
    }

    /// Orders the library: `"newest"`, `"oldest"` or `"largest"`.
    #[wasm_bindgen(js_name = sortLibrary)]
    pub fn sort_library(&self, sort: &str) -> Result<(), JsValue> {
        let sort = sort
            .parse()
            .map_err(|()| CoreError::UnknownSort(sort.to_owned()))
            .map_err(js_error)?;
        self.core.sort_library(sort);
        Ok(())
    }

    /// Adds a video to Compare, or takes it out: a saved video's key or a finished job's id
    /// (2 to 4 are compared; `view("compare")`).
    #[wasm_bindgen(js_name = toggleCompare)]
    pub fn toggle_compare(&self, id: &str) -> Result<(), JsValue> {
        self.core.toggle_compare(id).map_err(js_error)
    }

    /// Shows the chosen videos side by side.
    #[wasm_bindgen(js_name = openCompare)]
    pub fn open_compare(&self) -> Result<(), JsValue> {
        self.core.open_compare().map_err(js_error)
    }

    /// Closes Compare; with `clear`, the chosen videos are forgotten too.
    #[wasm_bindgen(js_name = closeCompare)]
    pub fn close_compare(&self, clear: bool) {
        self.core.close_compare(clear);
    }

    /// Shows every library video (`"all"`) or only the `"favourites"`, `"approved"` or
    /// `"rejected"` ones.
    #[wasm_bindgen(js_name = filterLibrary)]
    pub fn filter_library(&self, filter: String) -> Result<(), JsValue> {
        let filter = PickFilter::from_name(&filter)
            .ok_or(CoreError::UnknownName {
                kind: "filter",
                name: filter,
            })
            .map_err(js_error)?;
        self.core.filter_library(filter);
        Ok(())
    }

    /// Stars (`true`) or un-stars a saved video by its key.
    #[wasm_bindgen(js_name = setFavourite)]
    pub fn set_favourite(&self, key: String, favourite: bool) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            core.pick_asset(&key, Some(favourite), None).await
        })
    }

    /// Approves (`"approved"`), rejects (`"rejected"`) or clears (`null`) a saved video.
    #[wasm_bindgen(js_name = setDecision)]
    pub fn set_decision(&self, key: String, decision: Option<String>) -> js_sys::Promise {
        let decision = match decision {
            None => Ok(None),
            Some(name) => Decision::from_name(&name)
                .map(Some)
                .ok_or(CoreError::UnknownName {
                    kind: "decision",
                    name,
                }),
        };
        promise(&self.core, |core| async move {
            core.pick_asset(&key, None, Some(decision?)).await
        })
    }

    /// Deletes a saved video (its metadata and poster too) by its key.
    #[wasm_bindgen(js_name = deleteAsset)]
    pub fn delete_asset(&self, key: String) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.delete_asset(&key).await },
        )
    }

    /// Opens the Video Metadata modal for an asset key.
    #[wasm_bindgen(js_name = openMetadata)]
    pub fn open_metadata(&self, key: String) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.open_metadata(&key).await },
        )
    }

    #[wasm_bindgen(js_name = closeMetadata)]
    pub fn close_metadata(&self) {
        self.core.close_metadata();
    }

    #[wasm_bindgen(js_name = dismissBanner)]
    pub fn dismiss_banner(&self) {
        self.core.dismiss_banner();
    }

    /// Selects a saved video (by key) to share, or takes it out of the selection.
    #[wasm_bindgen(js_name = toggleSelect)]
    pub fn toggle_select(&self, key: &str) -> Result<(), JsValue> {
        self.core.toggle_select(key).map_err(js_error)
    }

    #[wasm_bindgen(js_name = clearSelection)]
    pub fn clear_selection(&self) {
        self.core.clear_selection();
    }

    /// Makes a review link to the selected videos: `{id, url, expiresLabel}`; the url (with
    /// its token) is shown only this once.
    #[wasm_bindgen(js_name = shareSelected)]
    pub fn share_selected(&self, expires_in_hours: u32, comments: bool) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            core.share_selected(expires_in_hours, comments).await
        })
    }

    /// Generate asks before starting jobs whose estimate is above `usd` (5 by default).
    #[wasm_bindgen(js_name = setConfirmAbove)]
    pub fn set_confirm_above(&self, usd: f64) -> Result<(), JsValue> {
        self.core.set_confirm_above(usd).map_err(js_error)
    }

    /// Downloads the selected videos with their metadata as one ZIP.
    #[wasm_bindgen(js_name = downloadSelected)]
    pub fn download_selected(&self) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.download_selected().await },
        )
    }

    /// Loads the project's review links with their comments and decisions.
    #[wasm_bindgen(js_name = loadShares)]
    pub fn load_shares(&self) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.load_shares().await })
    }

    /// Revokes a review link by its id.
    #[wasm_bindgen(js_name = revokeShare)]
    pub fn revoke_share(&self, id: String) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.revoke_share(&id).await },
        )
    }

    /// Adds a picture (a `File` or `Blob`: PNG, JPEG or WebP, at most 20 MB) to the project's
    /// reference images; resolves with its id.
    #[wasm_bindgen(js_name = uploadReference)]
    pub fn upload_reference(&self, file: web_sys::Blob) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            if file.size() > MAX_REFERENCE_BYTES {
                return Err(CoreError::Refused(
                    "The image is larger than 20 MB".to_owned(),
                ));
            }
            let content_type = file.type_();
            core.upload_reference(file, &content_type).await
        })
    }

    /// Grabs a frame of a library video (its file name) or a finished job (its id) as a
    /// reference image: `at` is `"first"`, `"last"` or seconds; resolves with its id.
    #[wasm_bindgen(js_name = grabFrame)]
    pub fn grab_frame(&self, video: String, at: JsValue) -> js_sys::Promise {
        let at = from_js::<serde_json::Value>(&at).unwrap_or_default();
        promise(&self.core, |core| async move {
            core.grab_frame(&video, at).await
        })
    }

    /// Removes a reference image from the project.
    #[wasm_bindgen(js_name = removeReference)]
    pub fn remove_reference(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            core.remove_reference(&id).await
        })
    }

    /// Gives a reference image a role in the next job: `"first_frame"`, `"last_frame"`,
    /// `"reference"`, or `null` to detach it (`view("shot").roles` are those the model takes).
    #[wasm_bindgen(js_name = setRole)]
    pub fn set_role(&self, id: &str, role: Option<String>) -> Result<(), JsValue> {
        let role = role
            .map(|name| {
                ImageRole::from_name(&name).ok_or(CoreError::UnknownName { kind: "role", name })
            })
            .transpose()
            .map_err(js_error)?;
        self.core.set_role(id, role).map_err(js_error)
    }

    /// Extend: the next job continues from the last frame of a library video (file name) or
    /// finished job (id), at its size.
    #[wasm_bindgen(js_name = extendVideo)]
    pub fn extend_video(&self, video: &str) -> Result<(), JsValue> {
        self.core
            .use_video(video, VideoRole::Extend)
            .map_err(js_error)
    }

    /// Remix: the next job re-makes a library video or finished job with the new prompt.
    #[wasm_bindgen(js_name = remixVideo)]
    pub fn remix_video(&self, video: &str) -> Result<(), JsValue> {
        self.core
            .use_video(video, VideoRole::Remix)
            .map_err(js_error)
    }

    /// The next job no longer extends or remixes a video.
    #[wasm_bindgen(js_name = clearVideo)]
    pub fn clear_video(&self) {
        self.core.clear_video();
    }

    /// How images of another shape are fitted: `"crop"` (centre crop) or `"pad"`.
    #[wasm_bindgen(js_name = setFit)]
    pub fn set_fit(&self, fit: String) -> Result<(), JsValue> {
        let fit = Fit::from_name(&fit)
            .ok_or(CoreError::UnknownName {
                kind: "fit",
                name: fit,
            })
            .map_err(js_error)?;
        self.core.set_fit(fit);
        Ok(())
    }

    /// The open project's stored jobs, newest first, exactly as kept in local storage.
    pub fn jobs(&self) -> JsValue {
        to_js(&self.core.jobs())
    }
}
