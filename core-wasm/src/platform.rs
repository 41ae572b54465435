//! What the core needs from its host: storage, the network, a clock, a log and a way to tell
//! subscribers that the state changed. The browser implements it in `wasm/`, tests with fakes.

use crate::part::Part;
use crate::time::TimeStyle;
use std::future::Future;

/// A file as the host holds it: in the browser the `Blob` itself, which `fetch` sends as it
/// reads it (its bytes are never copied into the wasm, whose memory never shrinks); natively,
/// its bytes.
#[cfg(target_arch = "wasm32")]
pub type FileBytes = web_sys::Blob;
#[cfg(not(target_arch = "wasm32"))]
pub type FileBytes = Vec<u8>;

/// What a request carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// JSON text (`Content-Type: application/json`).
    Json(String),
    /// A file with its own content type (a reference image upload).
    File {
        bytes: FileBytes,
        content_type: String,
    },
}

/// One HTTP request as the core describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: &'static str,
    pub url: String,
    /// Bearer token; `None` for the plain metadata request.
    pub bearer: Option<String>,
    pub body: Option<Body>,
    /// Sent as `Last-Event-ID` to resume a stream of events.
    pub last_event_id: Option<String>,
}

impl HttpRequest {
    /// A plain GET with no credential.
    pub fn get(url: &str) -> Self {
        HttpRequest {
            method: "GET",
            url: url.to_owned(),
            bearer: None,
            body: None,
            last_event_id: None,
        }
    }

    /// The JSON body's text, if it has one.
    pub fn json(&self) -> Option<&str> {
        match &self.body {
            Some(Body::Json(text)) => Some(text),
            _ => None,
        }
    }
}

/// What came back: the status line and the body text.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    pub status_text: String,
    pub body: String,
}

impl HttpResponse {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Info,
    Warn,
    Error,
}

/// A response body read as it arrives.
pub trait BodyStream {
    /// The next piece of the body; `None` once it has ended, `Err` when it broke off.
    fn next(&mut self) -> impl Future<Output = Option<Result<String, String>>>;
}

pub trait Platform: 'static {
    type Stream: BodyStream;
    /// A local storage read; `None` when the key is absent or storage is unavailable.
    fn get_item(&self, key: &str) -> Option<String>;
    /// A local storage read that can skip the copy: `None` when the text is still the one
    /// stamped `known` by an earlier call, else the text now stored and its stamp. The browser
    /// answers the second-by-second re-read of a large job list this way without copying or
    /// comparing it; the default reads every time and never stamps twice alike.
    fn get_item_if_changed(&self, key: &str, known: Option<u64>) -> Option<(Option<String>, u64)> {
        let _ = known;
        Some((self.get_item(key), 0))
    }
    /// A local storage write; the error text says why it failed (for example the quota).
    fn set_item(&self, key: &str, value: &str) -> Result<(), String>;
    /// Of the local storage items whose keys start with `prefix`, removes all but the `kept`
    /// last in key order (nothing when storage is unavailable).
    fn keep_last(&self, prefix: &str, kept: usize);
    /// Sends a request; `Err` when no response arrived (network failure).
    fn fetch(&self, request: HttpRequest) -> impl Future<Output = Result<HttpResponse, String>>;
    /// Sends a request whose body is read as it arrives (the response's `body` is empty).
    fn stream(
        &self,
        request: HttpRequest,
    ) -> impl Future<Output = Result<(HttpResponse, Self::Stream), String>>;
    /// Starts the browser's own download of `url` as `file_name`: the browser saves it to disk
    /// as it arrives and shows its progress; `Err` with the reason when it could not start.
    fn open_download(&self, url: &str, file_name: &str) -> Result<(), String>;
    /// The current time as an ISO-8601 UTC timestamp.
    fn now_iso(&self) -> String;
    /// 24 random hex digits, for an id no other page makes (a post's client id).
    fn random_id(&self) -> String;
    /// A moment (Unix milliseconds) as the viewer reads it: their locale, and their time zone
    /// as it was at that moment.
    fn format_time(&self, millis: i64, style: TimeStyle) -> String;
    /// Text in lower case by the full Unicode rules, for searching without regard to case (the
    /// browser's `toLowerCase`: its case tables are not shipped again in the wasm).
    fn lowercase(&self, text: &str) -> String;
    /// JSON text indented by two spaces, for people to read (the browser's
    /// `JSON.stringify(value, null, 2)`).
    fn pretty_json(&self, value: &serde_json::Value) -> String {
        serde_json::to_string_pretty(value).unwrap_or_default()
    }
    fn log(&self, level: LogLevel, message: &str);
    /// Called after every change of a part of the state, with no borrow of the state held.
    fn notify(&self, part: Part);
}
