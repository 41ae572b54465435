//! The browser implementation of `Platform`: localStorage, fetch, Date and console.

use std::cell::{Cell, RefCell};

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Headers, Request, RequestInit, Response};

use crate::platform::{HttpRequest, HttpResponse, LogLevel, Platform};
use crate::time::TimeStyle;

#[derive(Default)]
pub struct BrowserPlatform {
    listeners: RefCell<Vec<(u32, Function)>>,
    next_id: Cell<u32>,
}

impl BrowserPlatform {
    pub fn add_listener(&self, listener: Function) -> u32 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.listeners.borrow_mut().push((id, listener));
        id
    }

    pub fn remove_listener(&self, id: u32) {
        self.listeners.borrow_mut().retain(|(i, _)| *i != id);
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

async fn send(request: HttpRequest) -> Result<HttpResponse, JsValue> {
    let init = RequestInit::new();
    init.set_method(request.method);
    if let Some(token) = &request.bearer {
        let headers = Headers::new()?;
        headers.set("Authorization", &format!("Bearer {token}"))?;
        headers.set("Content-Type", "application/json")?;
        init.set_headers(&headers);
    }
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    let req = Request::new_with_str_and_init(&request.url, &init)?;
    let global = js_sys::global();
    let fetch: Function = Reflect::get(&global, &"fetch".into())?.dyn_into()?;
    let response: Response = JsFuture::from(js_sys::Promise::from(fetch.call1(&global, &req)?))
        .await?
        .dyn_into()?;
    let body = JsFuture::from(response.text()?)
        .await?
        .as_string()
        .unwrap_or_default();
    Ok(HttpResponse {
        status: response.status(),
        status_text: response.status_text(),
        body,
    })
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
    fn get_item(&self, key: &str) -> Option<String> {
        storage()?.get_item(key).ok()?
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

    fn notify(&self) {
        let listeners: Vec<Function> = self
            .listeners
            .borrow()
            .iter()
            .map(|(_, f)| f.clone())
            .collect();
        for listener in listeners {
            if let Err(e) = listener.call0(&JsValue::NULL) {
                self.log(
                    LogLevel::Error,
                    &format!("A subscriber threw: {}", describe(&e)),
                );
            }
        }
    }
}
