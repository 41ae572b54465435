//! The wasm-bindgen surface: one `Studio` handle, used by the React app and the browser console.

mod browser;
mod console;
mod jobs;
mod library;
mod listeners;
mod schedule;
mod shares;
mod shot;

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::api::ApiConfig;
use crate::core::{Core, Part};
use crate::error::CoreError;
use crate::json::browser as json;
use browser::BrowserPlatform;
use listeners::Views;
use schedule::Timers;

type SharedCore = Rc<Core<BrowserPlatform>>;

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
    settle(Box::pin(async move {
        future.await.map(|v| json::serialized(&v))
    }))
}

fn settle(command: Command) -> js_sys::Promise {
    future_to_promise(async move { command.await.map_err(js_error) })
}

fn part(name: &str) -> Result<Part, JsValue> {
    Part::from_name(name).ok_or_else(|| plain_error(&format!("No part named {name}")))
}

/// The Studio client. Create one per page; it keeps its state until the page closes.
// `view(part)` typed by the part it is asked for, from the generated snapshot types.
#[wasm_bindgen(typescript_custom_section)]
const SNAPSHOT_VIEW: &str = r#"import type { MentionOffer, Snapshot } from "../app/src/core/types";
export interface Studio {
  /** One part of the snapshot: the same object until that part changes. */
  view<K extends Exclude<keyof Snapshot, "version">>(part: K): Snapshot[K];
}"#;

#[wasm_bindgen]
pub struct Studio {
    core: SharedCore,
    timers: RefCell<Option<Timers>>,
    snapshot: Views<1>,
    /// Each part's view with the part version it was made at.
    views: Views<{ Part::ALL.len() }>,
}

#[wasm_bindgen]
impl Studio {
    /// `new Studio({ apiBase, token })`; both fields are optional.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<Studio, JsValue> {
        let studio = Studio {
            core: Rc::new(Core::new(BrowserPlatform::default())),
            timers: RefCell::new(None),
            snapshot: Views::default(),
            views: Views::default(),
        };
        if !config.is_undefined() && !config.is_null() {
            studio.configure(config)?;
        }
        Ok(studio)
    }

    /// Sets the API base and bearer token: `{ apiBase: "/api", token: "..." }`.
    pub fn configure(&self, config: JsValue) -> Result<(), JsValue> {
        let config = ApiConfig::from_value(&json::from_js(&config)).map_err(|e| plain_error(&e))?;
        self.core.configure(config);
        Ok(())
    }

    /// The configuration in force.
    pub fn config(&self) -> JsValue {
        json::serialized(&self.core.config())
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
    #[wasm_bindgen(unchecked_return_type = "() => void")]
    pub fn subscribe(
        &self,
        listener: js_sys::Function,
        part: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let part = part.as_deref().map(self::part).transpose()?;
        Ok(self
            .core
            .platform()
            .listeners
            .subscribe(listener, part)
            .into())
    }

    /// Grows by one with every state change.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        self.core.version() as f64
    }

    /// Everything the UI renders; the same object until the version changes.
    pub fn snapshot(&self) -> JsValue {
        self.snapshot.at(0, self.core.version(), || {
            json::serialized(&self.core.snapshot())
        })
    }

    /// One part of the snapshot, e.g. `studio.view("jobs")`; the same object until that part
    /// changes, so a keystroke in the prompt rebuilds no job or asset. Its TypeScript is the
    /// generic one in `SNAPSHOT_VIEW` below: the part names the view's type.
    #[wasm_bindgen(skip_typescript)]
    pub fn view(&self, part: &str) -> Result<JsValue, JsValue> {
        let part = self::part(part)?;
        Ok(self
            .views
            .at(part.index(), self.core.part_version(part), || {
                json::to_js(&self.core.view_value(part))
            }))
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
        schedule::load_shot(&self.core);
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

    #[wasm_bindgen(js_name = dismissBanner)]
    pub fn dismiss_banner(&self) {
        self.core.dismiss_banner();
    }
}
