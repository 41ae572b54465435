//! The root of the review page's wasm (built with the `review-page` feature in place of the
//! studio's `wasm/mod.rs`): the browser's platform and the `ReviewLink` handle. A client who
//! opens a review link downloads this, never the studio.

pub mod browser;
mod listeners;

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use self::browser::BrowserPlatform;
use self::listeners::{Listeners, Views};
use crate::error::CoreError;
use crate::json::browser as json;
use crate::review::{token_of, Verdict};
use crate::review_page::ReviewSession;

// The types the page's views have, generated from the Rust that makes them.
#[wasm_bindgen(typescript_custom_section)]
const VIEW_TYPES: &str =
    r#"import type { CredentialsView, ReviewView } from "../app/src/core/types";"#;

/// The review page a link opens: its shared videos, comments and decisions.
#[wasm_bindgen]
pub struct ReviewLink {
    session: Rc<ReviewSession<BrowserPlatform>>,
    listeners: Listeners<()>,
    view: Views<1>,
}

fn failed(error: CoreError) -> JsValue {
    js_sys::Error::new(&error.to_string()).into()
}

/// A command's work, boxed so every command shares one Promise adapter in the wasm.
type Command = Pin<Box<dyn Future<Output = Result<JsValue, CoreError>>>>;

/// Runs a command as a Promise that resolves with its result or rejects with an `Error`.
fn settle(command: Command) -> js_sys::Promise {
    future_to_promise(async move { command.await.map_err(failed) })
}

#[wasm_bindgen]
impl ReviewLink {
    /// `new ReviewLink(apiBase)`: the page's API, `/api` beside it.
    #[wasm_bindgen(constructor)]
    pub fn new(api_base: String) -> ReviewLink {
        let listeners = Listeners::default();
        let told = listeners.clone();
        let changed = Box::new(move || told.tell(()));
        ReviewLink {
            session: Rc::new(ReviewSession::new(
                BrowserPlatform::default(),
                &api_base,
                changed,
            )),
            listeners,
            view: Views::default(),
        }
    }

    /// The token of a review page's path (`/review/<token>`), or undefined.
    #[wasm_bindgen(js_name = tokenOf)]
    pub fn token_of(path: &str) -> Option<String> {
        token_of(path).map(str::to_owned)
    }

    /// Calls `listener()` after every change; returns the function that unsubscribes.
    #[wasm_bindgen(unchecked_return_type = "() => void")]
    pub fn subscribe(&self, listener: js_sys::Function) -> js_sys::Function {
        self.listeners.subscribe(listener, None)
    }

    /// What the page shows: the same object until something changes.
    #[wasm_bindgen(unchecked_return_type = "ReviewView")]
    pub fn view(&self) -> JsValue {
        self.view.at(0, self.session.version(), || {
            json::serialized(&self.session.view())
        })
    }

    /// Opens the link with `token` (or reads it again); resolves with how many videos it shows.
    pub fn open(&self, token: String) -> js_sys::Promise {
        let session = Rc::clone(&self.session);
        settle(Box::pin(async move {
            session.open(&token).await.map(|n| JsValue::from(n as f64))
        }))
    }

    /// Resolves with a shared video's Content Credentials (a `CredentialsView`), read by the
    /// server from the file; rejects with why they could not be read.
    #[wasm_bindgen(
        js_name = readCredentials,
        unchecked_return_type = "Promise<CredentialsView>"
    )]
    pub fn read_credentials(&self, video: String) -> js_sys::Promise {
        let session = Rc::clone(&self.session);
        settle(Box::pin(async move {
            session
                .read_credentials(&video)
                .await
                .map(|view| json::serialized(&view))
        }))
    }

    /// A comment at `atSeconds` of a shared video.
    #[wasm_bindgen(js_name = postComment)]
    pub fn post_comment(
        &self,
        video: String,
        at_seconds: f64,
        name: String,
        text: String,
    ) -> js_sys::Promise {
        let session = Rc::clone(&self.session);
        settle(Box::pin(async move {
            let sent = session.post_comment(&video, at_seconds, &name, &text).await;
            sent.map(|()| JsValue::UNDEFINED)
        }))
    }

    /// `"approved"` or `"changes_requested"` for a shared video.
    #[wasm_bindgen(js_name = postDecision)]
    pub fn post_decision(&self, video: String, decision: String, name: String) -> js_sys::Promise {
        let session = Rc::clone(&self.session);
        settle(Box::pin(async move {
            let verdict = Verdict::from_name(&decision).ok_or(CoreError::UnknownName {
                kind: "decision",
                name: decision,
            });
            let sent = match verdict {
                Ok(verdict) => session.post_decision(&video, verdict, &name).await,
                Err(e) => Err(e),
            };
            sent.map(|()| JsValue::UNDEFINED)
        }))
    }
}
