//! The browser implementation of `Platform`: localStorage, fetch (whole and streamed), Intl,
//! Date and console.

use std::cell::{Cell, RefCell};

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, AbortSignal, Headers, ReadableStreamDefaultReader, Request, RequestInit,
    Response, TextDecodeOptions, TextDecoder,
};

use crate::part::Part;
use crate::platform::{Body, BodyStream, HttpRequest, HttpResponse, LogLevel, Platform};
use crate::time::TimeStyle;

#[derive(Default)]
pub struct BrowserPlatform {
    /// The studio's listeners, told of the core's changes through `notify`; the sequence
    /// editor and the review page keep theirs in their handles.
    #[cfg(not(any(feature = "sequence-editor", feature = "review-page")))]
    pub listeners: super::listeners::Listeners<Part>,
    /// The controller of the last stream opened (the core follows one at a time).
    stream: RefCell<Option<AbortController>>,
    /// The last text read by `get_item_if_changed`: its key, the JS string itself and its
    /// stamp. While storage answers the same JS string, nothing is copied or compared.
    seen: RefCell<Option<(String, JsValue, u64)>>,
    stamps: Cell<u64>,
}

// Walking localStorage's keys in JS costs the wasm a few bytes; walked from Rust, each key
// is copied in and every call crosses over (600 bytes more on the wire).
#[wasm_bindgen::prelude::wasm_bindgen(
    inline_js = "export function keepLast(p,n){try{const s=localStorage,k=[];for(let i=0;i<s.length;i++){const x=s.key(i);x.startsWith(p)&&k.push(x)}k.sort();for(const x of k.slice(0,Math.max(0,k.length-n)))s.removeItem(x)}catch{}}"
)]
extern "C" {
    /// Of the localStorage items whose keys start with `prefix`, removes all but the `kept`
    /// last in key order.
    #[wasm_bindgen(js_name = keepLast)]
    fn keep_last(prefix: &str, kept: usize);
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `localStorage` seen as an object whose `getItem` answers the JS string itself (or
    /// null) instead of a copy in the wasm.
    type RawStorage;
    #[wasm_bindgen(method, js_name = getItem, catch)]
    fn get_item(this: &RawStorage, key: &str) -> Result<JsValue, JsValue>;
}

impl BrowserPlatform {
    /// Closes the open stream, if any (its reader then ends with an error).
    pub fn abort_stream(&self) {
        if let Some(controller) = self.stream.take() {
            controller.abort();
        }
    }
}

/// A fetch response body read with its stream reader, decoded as UTF-8 across pieces.
pub struct BrowserStream {
    reader: ReadableStreamDefaultReader,
    decoder: TextDecoder,
}

impl BodyStream for BrowserStream {
    async fn next(&mut self) -> Option<Result<String, String>> {
        let read = async {
            let chunk = JsFuture::from(self.reader.read()).await?;
            if Reflect::get(&chunk, &"done".into())?.is_truthy() {
                return Ok(None);
            }
            let bytes: js_sys::Uint8Array = Reflect::get(&chunk, &"value".into())?.dyn_into()?;
            let options = TextDecodeOptions::new();
            options.set_stream(true);
            self.decoder
                .decode_with_js_u8_array_and_options(&bytes, &options)
                .map(Some)
        };
        read.await.map_err(|e| describe(&e)).transpose()
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// `"Name: message"` of a thrown JS value.
fn describe(error: &JsValue) -> String {
    let field = |name: &str| {
        Reflect::get(error, &name.into())
            .ok()
            .and_then(|v| v.as_string())
    };
    match (field("name"), field("message")) {
        (Some(n), Some(m)) => format!("{n}: {m}"),
        (_, Some(m)) => m,
        _ => error.as_string().unwrap_or_else(|| format!("{error:?}")),
    }
}

/// Sends a request with `fetch` (of the window or the worker) and answers its response.
async fn respond(request: &HttpRequest, signal: Option<&AbortSignal>) -> Result<Response, JsValue> {
    let init = RequestInit::new();
    init.set_method(request.method);
    // Every /api call with the bearer carries a content type (spec section 7); a call without
    // it (a review link's) only when it has a body, and a plain GET (metadata) carries none.
    if request.bearer.is_some() || request.body.is_some() {
        let headers = Headers::new()?;
        if let Some(token) = &request.bearer {
            headers.set("Authorization", &format!("Bearer {token}"))?;
        }
        let content_type = match &request.body {
            Some(Body::File { content_type, .. }) => content_type,
            _ => "application/json",
        };
        headers.set("Content-Type", content_type)?;
        if let Some(id) = &request.last_event_id {
            headers.set("Last-Event-ID", id)?;
        }
        init.set_headers(&headers);
    }
    match &request.body {
        Some(Body::Json(text)) => init.set_body(&JsValue::from_str(text)),
        Some(Body::File { bytes, .. }) => init.set_body(bytes),
        None => {}
    }
    if let Some(signal) = signal {
        init.set_signal(Some(signal));
    }
    let req = Request::new_with_str_and_init(&request.url, &init)?;
    let global = js_sys::global();
    let fetch: Function = Reflect::get(&global, &"fetch".into())?.dyn_into()?;
    JsFuture::from(js_sys::Promise::from(fetch.call1(&global, &req)?))
        .await?
        .dyn_into()
}

fn head(response: &Response, body: String) -> HttpResponse {
    HttpResponse {
        status: response.status(),
        status_text: response.status_text(),
        body,
    }
}

async fn send(request: HttpRequest) -> Result<HttpResponse, JsValue> {
    let response = respond(&request, None).await?;
    let body = JsFuture::from(response.text()?)
        .await?
        .as_string()
        .unwrap_or_default();
    Ok(head(&response, body))
}

async fn open(
    request: HttpRequest,
    signal: &AbortSignal,
) -> Result<(HttpResponse, BrowserStream), JsValue> {
    let response = respond(&request, Some(signal)).await?;
    let body = response
        .body()
        .ok_or_else(|| JsValue::from_str("The response has no body"))?;
    let stream = BrowserStream {
        reader: body.get_reader().dyn_into()?,
        decoder: TextDecoder::new()?,
    };
    Ok((head(&response, String::new()), stream))
}

thread_local! {
    /// The viewer's date and date-time formats (their locale, their time zone), made once.
    static FORMATS: (js_sys::Intl::DateTimeFormat, js_sys::Intl::DateTimeFormat) =
        (date_format(false), date_format(true));
}

/// `Intl.DateTimeFormat(undefined, { dateStyle: "medium"[, timeStyle: "medium"] })`.
fn date_format(with_time: bool) -> js_sys::Intl::DateTimeFormat {
    let options = js_sys::Object::new();
    let set = |key: &str, value: &str| {
        let _ = js_sys::Reflect::set(&options, &key.into(), &value.into());
    };
    set("dateStyle", "medium");
    if with_time {
        set("timeStyle", "medium");
    }
    js_sys::Intl::DateTimeFormat::new(&js_sys::Array::new(), &options)
}

impl Platform for BrowserPlatform {
    type Stream = BrowserStream;

    async fn stream(&self, request: HttpRequest) -> Result<(HttpResponse, BrowserStream), String> {
        let controller = AbortController::new().map_err(|e| describe(&e))?;
        let signal = controller.signal();
        self.abort_stream();
        *self.stream.borrow_mut() = Some(controller);
        open(request, &signal).await.map_err(|e| describe(&e))
    }

    fn get_item(&self, key: &str) -> Option<String> {
        storage()?.get_item(key).ok()?
    }

    fn open_download(&self, url: &str, file_name: &str) -> Result<(), String> {
        let start = || -> Result<(), JsValue> {
            let document = web_sys::window()
                .and_then(|w| w.document())
                .ok_or_else(|| JsValue::from_str("no document to download from"))?;
            let anchor: web_sys::HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
            anchor.set_href(url);
            anchor.set_download(file_name);
            anchor.click();
            Ok(())
        };
        start().map_err(|e| describe(&e))
    }

    fn get_item_if_changed(&self, key: &str, known: Option<u64>) -> Option<(Option<String>, u64)> {
        let value = storage()
            .and_then(|s| s.unchecked_ref::<RawStorage>().get_item(key).ok())
            .unwrap_or(JsValue::NULL);
        if let Some((seen_key, seen, stamp)) = &*self.seen.borrow() {
            // Browsers hand out one JS string per stored value until it changes, so this is an
            // identity check; a different string with the same text is compared by content.
            if seen_key == key && known == Some(*stamp) && js_sys::Object::is(&value, seen) {
                return None;
            }
        }
        let stamp = self.stamps.get() + 1;
        self.stamps.set(stamp);
        let text = value.as_string();
        *self.seen.borrow_mut() = Some((key.to_owned(), value, stamp));
        Some((text, stamp))
    }

    fn keep_last(&self, prefix: &str, kept: usize) {
        keep_last(prefix, kept);
    }

    fn set_item(&self, key: &str, value: &str) -> Result<(), String> {
        let storage = storage().ok_or("localStorage is unavailable")?;
        storage.set_item(key, value).map_err(|e| describe(&e))
    }

    async fn fetch(&self, request: HttpRequest) -> Result<HttpResponse, String> {
        send(request).await.map_err(|e| describe(&e))
    }

    fn now_iso(&self) -> String {
        js_sys::Date::new_0().to_iso_string().into()
    }

    fn random_id(&self) -> String {
        let word = || (js_sys::Math::random() * f64::from(u32::MAX)) as u32;
        format!("{:08x}{:08x}{:08x}", word(), word(), word())
    }

    fn pretty_json(&self, value: &serde_json::Value) -> String {
        js_sys::JSON::stringify_with_replacer_and_space(
            &crate::json::browser::to_js(value),
            &JsValue::NULL,
            &2.into(),
        )
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_default()
    }

    fn lowercase(&self, text: &str) -> String {
        js_sys::JsString::from(text).to_lower_case().into()
    }

    fn format_time(&self, millis: i64, style: TimeStyle) -> String {
        FORMATS.with(|formats| {
            let format = match style {
                TimeStyle::Date => &formats.0,
                TimeStyle::DateTime => &formats.1,
            };
            let date = js_sys::Date::new(&JsValue::from_f64(millis as f64));
            format
                .format()
                .call1(format, &date)
                .ok()
                .and_then(|text| text.as_string())
                .unwrap_or_default()
        })
    }

    fn log(&self, level: LogLevel, message: &str) {
        let message = JsValue::from_str(&format!("[studio] {message}"));
        match level {
            LogLevel::Info => web_sys::console::log_1(&message),
            LogLevel::Warn => web_sys::console::warn_1(&message),
            LogLevel::Error => web_sys::console::error_1(&message),
        }
    }

    #[cfg_attr(
        any(feature = "sequence-editor", feature = "review-page"),
        allow(unused_variables)
    )]
    fn notify(&self, part: Part) {
        #[cfg(not(any(feature = "sequence-editor", feature = "review-page")))]
        self.listeners.tell(part);
    }
}
