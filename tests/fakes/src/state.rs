//! What the fakes share: settings, jobs, injected faults and request counts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::json;

pub use crate::job::{finishes_after, Job, Outcome};

#[derive(Debug, Clone)]
pub struct Settings {
    /// How long a job takes from submission to completion.
    pub job_time: Duration,
    /// The size of every finished video.
    pub content_bytes: u64,
    /// A real video every finished job serves in place of `content_bytes` of the byte cycle
    /// (an MP4, perhaps signed with the provider's own Content Credentials).
    pub video: Option<bytes::Bytes>,
    /// How long content can be downloaded after completion (URLs and `/content`).
    pub content_ttl: Duration,
    /// The OpenAI fake's advice in `openai-poll-after-ms`.
    pub poll_after: Duration,
    /// The API key every fake expects.
    pub key: String,
    /// How long a create waits, after making the job, before it answers (a slow provider: the
    /// window in which a client may crash or time out although the job exists).
    pub create_delay: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            job_time: Duration::from_millis(600),
            content_bytes: 64 * 1024,
            video: None,
            content_ttl: Duration::from_secs(3600),
            poll_after: Duration::from_millis(50),
            key: "fake-key".into(),
            create_delay: Duration::ZERO,
        }
    }
}

pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[derive(Debug, Clone)]
struct Fault {
    provider: String,
    remaining: u32,
    status: u16,
    retry_after: Option<String>,
}

/// The fakes' shared state; cheap to clone.
#[derive(Clone)]
pub struct Fakes {
    inner: Arc<Inner>,
}

struct Inner {
    settings: Mutex<Settings>,
    jobs: Mutex<HashMap<String, Job>>,
    faults: Mutex<Vec<Fault>>,
    counts: Mutex<HashMap<String, u32>>,
    /// The access tokens the OAuth fake issued.
    tokens: Mutex<std::collections::HashSet<String>>,
    /// What a test holds while it acts in the window it opens (see `Gate`).
    gates: Mutex<HashMap<Gate, Arc<tokio::sync::Semaphore>>>,
    /// The callbacks made, in order.
    calls: Mutex<Vec<crate::callbacks::Sent>>,
    /// What a fake keeps besides jobs (Kling's elements), by keys of its own.
    records: Mutex<HashMap<String, serde_json::Value>>,
}

/// A point where the fakes wait while a test holds it, to force an interleaving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gate {
    /// Every video download, after its first chunk (a test acts mid-copy).
    Content,
    /// Every create, after the job is made and before the answer (a test acts while the
    /// request is on its way: the provider has the job, the caller does not know it yet).
    Create,
    /// Every look-up of jobs by the caller's own ids or prompts (the OpenAI list, Kling's
    /// `external_task_id`), before the answer.
    Find,
}

impl Fakes {
    pub fn new(settings: Settings) -> Fakes {
        Fakes {
            inner: Arc::new(Inner {
                settings: Mutex::new(settings),
                jobs: Mutex::default(),
                faults: Mutex::default(),
                counts: Mutex::default(),
                tokens: Mutex::default(),
                gates: Mutex::default(),
                calls: Mutex::default(),
                records: Mutex::default(),
            }),
        }
    }

    pub fn settings(&self) -> Settings {
        self.inner.settings.lock().unwrap().clone()
    }

    pub fn set_settings(&self, settings: Settings) {
        *self.inner.settings.lock().unwrap() = settings;
    }

    /// Holds every request that reaches `gate` until `release`. Downloads are counted as
    /// `content.completed` when streamed whole, or `content.dropped` when their reader went
    /// away first; a request waiting at a gate is counted as `{gate:?}.held` (`Create.held`).
    pub fn hold(&self, gate: Gate) {
        self.inner
            .gates
            .lock()
            .unwrap()
            .insert(gate, Arc::new(tokio::sync::Semaphore::new(0)));
    }

    /// Lets every request held at `gate` go on, and the ones after it.
    pub fn release(&self, gate: Gate) {
        if let Some(held) = self.inner.gates.lock().unwrap().remove(&gate) {
            held.add_permits(tokio::sync::Semaphore::MAX_PERMITS);
        }
    }

    /// Waits at `gate` while a test holds it.
    pub async fn pass(&self, gate: Gate) {
        let held = self.inner.gates.lock().unwrap().get(&gate).cloned();
        if let Some(held) = held {
            self.counted(&format!("{gate:?}.held"));
            let _pass = held.acquire().await;
        }
    }

    /// The next `count` requests to `provider` (`openai`, `runway`, `fal` or `content`) answer
    /// `status`, with `retry_after` as the Retry-After header when given.
    pub fn fail_next(&self, provider: &str, count: u32, status: u16, retry_after: Option<&str>) {
        self.inner.faults.lock().unwrap().push(Fault {
            provider: provider.into(),
            remaining: count,
            status,
            retry_after: retry_after.map(Into::into),
        });
    }

    /// How many requests of a kind (`openai.create`, `runway.poll`, `content` ...) were answered.
    pub fn count(&self, kind: &str) -> u32 {
        self.inner
            .counts
            .lock()
            .unwrap()
            .get(kind)
            .copied()
            .unwrap_or(0)
    }

    /// Keeps a callback made.
    pub fn keep_call(&self, call: crate::callbacks::Sent) {
        self.inner.calls.lock().unwrap().push(call);
    }

    /// The callbacks made so far, in order.
    pub fn calls(&self) -> Vec<crate::callbacks::Sent> {
        self.inner.calls.lock().unwrap().clone()
    }

    /// Keeps an access token the OAuth fake issued.
    pub fn insert_token(&self, token: &str) {
        self.inner.tokens.lock().unwrap().insert(token.to_owned());
    }

    /// Whether the OAuth fake issued `token`.
    pub fn has_token(&self, token: &str) -> bool {
        self.inner.tokens.lock().unwrap().contains(token)
    }

    pub fn counted(&self, kind: &str) {
        *self
            .inner
            .counts
            .lock()
            .unwrap()
            .entry(kind.into())
            .or_default() += 1;
    }

    /// Keeps a new job, then waits the configured create delay, and at the create gate while
    /// a test holds it, before the create answers.
    pub async fn insert(&self, job: Job) {
        self.inner.jobs.lock().unwrap().insert(job.id.clone(), job);
        let delay = self.settings().create_delay;
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        self.pass(Gate::Create).await;
    }

    /// Keeps `record` under `key`, replacing what was kept there.
    pub fn keep(&self, key: &str, record: serde_json::Value) {
        self.inner
            .records
            .lock()
            .unwrap()
            .insert(key.into(), record);
    }

    /// The records kept under keys starting with `prefix`.
    pub fn records(&self, prefix: &str) -> Vec<serde_json::Value> {
        let records = self.inner.records.lock().unwrap();
        records
            .iter()
            .filter(|(key, _)| key.starts_with(prefix))
            .map(|(_, record)| record.clone())
            .collect()
    }

    /// Every job, newest first.
    pub fn jobs(&self) -> Vec<Job> {
        let mut jobs: Vec<Job> = self.inner.jobs.lock().unwrap().values().cloned().collect();
        jobs.sort_by_key(|j| std::cmp::Reverse(j.created));
        jobs
    }

    pub fn job(&self, id: &str) -> Option<Job> {
        self.inner.jobs.lock().unwrap().get(id).cloned()
    }

    fn take_fault(&self, provider: &str) -> Option<Fault> {
        let mut faults = self.inner.faults.lock().unwrap();
        let fault = faults
            .iter_mut()
            .find(|f| f.provider == provider && f.remaining > 0)?;
        fault.remaining -= 1;
        Some(fault.clone())
    }
}

/// `router` with `provider`'s injected faults answered before its routes.
pub fn with_faults(router: Router<Fakes>, fakes: &Fakes, provider: &'static str) -> Router<Fakes> {
    router.layer(middleware::from_fn_with_state(
        fakes.clone(),
        move |State(fakes): State<Fakes>, request: Request, next: Next| {
            faults(provider, fakes, request, next)
        },
    ))
}

/// Answers an injected fault instead of the route, in the provider's error shape.
async fn faults(provider: &'static str, fakes: Fakes, request: Request, next: Next) -> Response {
    let Some(fault) = fakes.take_fault(provider) else {
        return next.run(request).await;
    };
    fakes.counted(&format!("{provider}.fault"));
    let status = StatusCode::from_u16(fault.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let nth = fakes.count(&format!("{provider}.fault"));
    let mut response = (status, Json(fault_body(provider, status, nth))).into_response();
    if let Some(value) = fault
        .retry_after
        .and_then(|v| HeaderValue::from_str(&v).ok())
    {
        response.headers_mut().insert("retry-after", value);
    }
    response
}

/// A rate limit or server error in `provider`'s own shape: Kling's codes 1302 (too fast) and
/// 1303 (over the plan's concurrency), the google.rpc envelope's `RESOURCE_EXHAUSTED`,
/// ModelArk's `RateLimitExceeded`, Replicate's problem details. `nth` counts this provider's
/// faults so far.
fn fault_body(provider: &str, status: StatusCode, nth: u32) -> serde_json::Value {
    let limited = status == StatusCode::TOO_MANY_REQUESTS;
    let message = if limited {
        "Rate limit reached"
    } else {
        "The server had an error while processing your request"
    };
    match provider {
        "openai" => {
            json!({"error": {"message": message, "type": "server_error", "param": null, "code": null}})
        }
        "fal" | "luma" => json!({"detail": message}),
        "gemini" | "vertex" => {
            let rpc = if limited {
                "RESOURCE_EXHAUSTED"
            } else {
                "INTERNAL"
            };
            json!({"error": {"code": status.as_u16(), "message": message, "status": rpc}})
        }
        "kling" => {
            // The two rate-limit codes alternate, so a run of faults shows both.
            let code = match (limited, nth % 2) {
                (true, 0) => 1302,
                (true, _) => 1303,
                (false, _) => 5000,
            };
            json!({"code": code, "message": message, "request_id": hex(8)})
        }
        "ark" => {
            let code = if limited {
                "RateLimitExceeded"
            } else {
                "InternalServiceError"
            };
            json!({"error": {"code": code, "message": message, "param": "", "type": ""}})
        }
        "replicate" => json!({"title": message, "detail": message, "status": status.as_u16()}),
        "xai" => {
            let code = if limited {
                "Too many requests"
            } else {
                "Internal error"
            };
            json!({"code": code, "error": message})
        }
        _ => json!({"error": message}),
    }
}

/// Whether `header` carries the expected key after `scheme` (`Bearer` or `Key`).
pub fn authorised(headers: &axum::http::HeaderMap, scheme: &str, key: &str) -> bool {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix(scheme))
        .map(str::trim)
        == Some(key)
}

/// A random lowercase hex string of `len` characters.
pub fn hex(len: usize) -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..len)
        .map(|_| format!("{:x}", rng.random_range(0..16u8)))
        .collect()
}

/// A `seed` field as the services take it (a whole number from 0 to 2^32-1), described as
/// received (`seed 42`), if present.
pub fn seed(value: Option<&serde_json::Value>) -> Result<Option<String>, String> {
    match value {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|s| *s <= u64::from(u32::MAX))
            .map(|s| Some(format!("seed {s}")))
            .ok_or_else(|| "seed must be a whole number from 0 to 4294967295".into()),
    }
}
