//! The core's state machine driven natively by a fake platform: scripted HTTP answers, an
//! in-memory local storage and a fixed clock. (Native only: in the browser a file is a `Blob`,
//! tested in `browser.rs` and end to end.)
#![cfg(not(target_arch = "wasm32"))]

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::executor::block_on;
use serde_json::{json, Value};
use studio_core::api::ApiConfig;
use studio_core::core::Core;
use studio_core::core::Part;
use studio_core::error::CoreError;
use studio_core::inputs::{Fit, ImageRole, VideoRole};
use studio_core::platform::BodyStream;
use studio_core::platform::{Body, HttpRequest, HttpResponse, LogLevel, Platform};
use studio_core::review_page::ReviewSession;
use studio_core::snapshot::{LibraryState, PickFilter, StreamState};
use studio_core::time::TimeStyle;

#[derive(Default)]
struct Fake {
    storage: RefCell<BTreeMap<String, String>>,
    full: Cell<bool>,
    answers: RefCell<VecDeque<Result<HttpResponse, String>>>,
    requests: RefCell<Vec<HttpRequest>>,
    now: RefCell<String>,
    logs: RefCell<Vec<(LogLevel, String)>>,
    notified: Cell<u32>,
    /// While set, every request waits one turn before it is answered.
    hold: Cell<bool>,
    /// The pieces of the next streamed body (an `Err` breaks it off).
    pieces: RefCell<VecDeque<Result<String, String>>>,
    /// The downloads started: address and file name.
    downloads: RefCell<Vec<(String, String)>>,
    /// How many times each key was written.
    writes: RefCell<BTreeMap<String, u32>>,
    /// How many random ids were made.
    ids: Cell<u64>,
}

/// A streamed body that hands out the scripted pieces, then ends.
struct Pieces(VecDeque<Result<String, String>>);

impl BodyStream for Pieces {
    async fn next(&mut self) -> Option<Result<String, String>> {
        self.0.pop_front()
    }
}

/// A future that is pending once, so a test can look at the state while a request is in flight.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

impl Platform for Fake {
    type Stream = Pieces;

    async fn stream(&self, request: HttpRequest) -> Result<(HttpResponse, Pieces), String> {
        let head = self.fetch(request).await?;
        Ok((head, Pieces(self.pieces.take())))
    }
    fn get_item(&self, key: &str) -> Option<String> {
        self.storage.borrow().get(key).cloned()
    }
    fn keep_last(&self, prefix: &str, kept: usize) {
        let mut storage = self.storage.borrow_mut();
        let keys: Vec<String> = storage
            .keys()
            .filter(|k| k.starts_with(prefix))
            .cloned()
            .collect();
        for key in &keys[..keys.len().saturating_sub(kept)] {
            storage.remove(key);
        }
    }
    fn set_item(&self, key: &str, value: &str) -> Result<(), String> {
        if self.full.get() {
            return Err("QuotaExceededError: full".into());
        }
        self.storage.borrow_mut().insert(key.into(), value.into());
        *self.writes.borrow_mut().entry(key.into()).or_default() += 1;
        Ok(())
    }
    async fn fetch(&self, request: HttpRequest) -> Result<HttpResponse, String> {
        self.requests.borrow_mut().push(request);
        if self.hold.get() {
            YieldOnce(false).await;
        }
        self.answers
            .borrow_mut()
            .pop_front()
            .expect("an answer was scripted")
    }
    fn open_download(&self, url: &str, file_name: &str) -> Result<(), String> {
        self.downloads
            .borrow_mut()
            .push((url.to_owned(), file_name.to_owned()));
        Ok(())
    }
    fn now_iso(&self) -> String {
        self.now.borrow().clone()
    }
    /// Counted, so a test can tell ids apart.
    fn random_id(&self) -> String {
        self.ids.set(self.ids.get() + 1);
        format!("{:024x}", self.ids.get())
    }
    /// A fixed formatter (the browser's Intl is tested in Chromium): the style and the
    /// moment in Unix milliseconds.
    fn format_time(&self, millis: i64, style: TimeStyle) -> String {
        format!("{style:?} {millis}")
    }
    fn lowercase(&self, text: &str) -> String {
        text.to_lowercase()
    }
    fn log(&self, level: LogLevel, message: &str) {
        self.logs.borrow_mut().push((level, message.into()));
    }
    fn notify(&self, _part: Part) {
        self.notified.set(self.notified.get() + 1);
    }
}

fn ok(body: Value) -> Result<HttpResponse, String> {
    Ok(HttpResponse {
        status: 200,
        status_text: "OK".into(),
        body: body.to_string(),
    })
}

fn status(code: u16, text: &str) -> Result<HttpResponse, String> {
    Ok(HttpResponse {
        status: code,
        status_text: text.into(),
        body: r#"{"error":{"code":"x","message":"why"}}"#.into(),
    })
}

fn studio() -> Core<Fake> {
    let fake = Fake::default();
    *fake.now.borrow_mut() = "2026-11-21T10:00:00.000Z".into();
    let core = Core::new(fake);
    core.configure(ApiConfig {
        api_base: "http://h/api/".into(),
        token: "t0k".into(),
        models: Vec::new(),
    });
    core
}

fn fake(core: &Core<Fake>) -> &Fake {
    core.platform()
}

fn script(core: &Core<Fake>, answer: Result<HttpResponse, String>) {
    fake(core).answers.borrow_mut().push_back(answer);
}

/// The JSON body of the last request sent.
fn last_body(core: &Core<Fake>) -> Value {
    let requests = fake(core).requests.borrow();
    serde_json::from_str(requests.last().unwrap().json().unwrap()).unwrap()
}

fn stored(core: &Core<Fake>, key: &str) -> Option<Value> {
    fake(core)
        .storage
        .borrow()
        .get(key)
        .map(|s| serde_json::from_str(s).unwrap())
}

/// A saved video of project p1 as the assets list answers it.
fn video(name: &str) -> Value {
    json!({"key": format!("projects/p1/{name}"), "size_bytes": 10,
           "last_modified": "2026-11-21T10:06:00Z", "public_url": "http://h/v.mp4"})
}

/// The file names the library shows, in order.
fn library_names(core: &Core<Fake>) -> Vec<String> {
    core.library_view()
        .assets
        .into_iter()
        .map(|a| a.file_name)
        .collect()
}

fn open(core: &Core<Fake>, project: &str) {
    core.enter_project(project);
    script(core, ok(json!({"videos": []})));
    block_on(core.load_assets()).unwrap();
}

fn create(core: &Core<Fake>, id: &str, at: &str) {
    *fake(core).now.borrow_mut() = at.into();
    script(core, ok(json!({"sora_job_id": id, "status": "queued"})));
    block_on(core.create_job(Some("a prompt"))).unwrap();
}

#[test]
fn opening_projects_cleans_and_keeps_five_recent() {
    let core = studio();
    assert_eq!(
        core.open_project("My Project_1!").as_deref(),
        Some("my-project-1-")
    );
    assert_eq!(core.open_project("   "), None);
    for p in ["b", "c", "d", "e", "f"] {
        core.open_project(p);
    }
    assert_eq!(
        core.open_recent("Keep As Is").as_deref(),
        Some("Keep As Is")
    );
    assert_eq!(core.open_recent("  "), None);
    let recent = core.snapshot().recent;
    assert_eq!(recent, ["Keep As Is", "f", "e", "d", "c"]);
    assert_eq!(stored(&core, "recent-projects"), Some(json!(recent)));
    core.open_recent("d");
    assert_eq!(core.snapshot().recent, ["d", "Keep As Is", "f", "e", "c"]);
}

#[test]
fn a_corrupted_recent_list_keeps_valid_names_and_backs_up_the_text() {
    let platform = Fake::default();
    *platform.now.borrow_mut() = "T".into();
    platform
        .storage
        .borrow_mut()
        .insert("recent-projects".into(), r#"["a", 3, "", "b"]"#.into());
    let core = Core::new(platform);
    assert_eq!(core.snapshot().recent, ["a", "b"]);
    assert_eq!(
        fake(&core).get_item("backup:recent-projects:T").as_deref(),
        Some(r#"["a", 3, "", "b"]"#)
    );
    assert!(core.snapshot().banner.is_some());
}

#[test]
fn every_call_carries_the_token_and_encodes_job_ids() {
    let core = studio();
    open(&core, "p1");
    create(&core, "sora-2:task_01", "2026-11-21T10:00:00.000Z");
    script(&core, ok(json!({"status": "running", "progress": 10})));
    block_on(core.check_job("sora-2:task_01")).unwrap();
    let requests = fake(&core).requests.borrow().clone();
    let urls: Vec<_> = requests
        .iter()
        .map(|r| (r.method, r.url.as_str()))
        .collect();
    assert_eq!(
        urls,
        [
            ("GET", "http://h/api/projects/p1/assets?limit=100"),
            ("POST", "http://h/api/projects/p1/jobs"),
            ("GET", "http://h/api/jobs/sora/sora-2%3Atask_01"),
        ]
    );
    assert!(requests.iter().all(|r| r.bearer.as_deref() == Some("t0k")));
    assert_eq!(requests[1].json(), Some(r#"{"prompt":"a prompt"}"#));
}

#[test]
fn creating_stores_the_job_newest_first_and_clears_the_draft() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_old", "2026-11-21T10:00:00.000Z");
    core.set_draft("  a red fox runs  ");
    assert!(core.snapshot().console.can_generate);
    *fake(&core).now.borrow_mut() = "2026-11-21T10:05:00.000Z".into();
    script(
        &core,
        ok(json!({"sora_job_id": "m:task_new", "status": "queued", "extra": 1})),
    );
    let job = block_on(core.create_job(None)).unwrap();
    assert_eq!(job.prompt, "a red fox runs");
    let sent = fake(&core)
        .requests
        .borrow()
        .last()
        .unwrap()
        .json()
        .unwrap()
        .to_owned();
    assert_eq!(sent, r#"{"prompt":"a red fox runs"}"#);
    let snap = core.snapshot();
    assert_eq!(snap.console.draft, "");
    assert!(!snap.console.can_generate);
    assert_eq!(
        snap.jobs
            .items
            .iter()
            .map(|j| j.id.as_str())
            .collect::<Vec<_>>(),
        ["m:task_new", "m:task_old"]
    );
    let stored = stored(&core, "jobs:p1").unwrap();
    assert_eq!(stored[0]["sora_job_id"], "m:task_new");
    assert_eq!(stored[0]["extra"], 1);
    assert_eq!(stored[0]["preview_url"], Value::Null);
    assert_eq!(stored[0]["created_at"], "2026-11-21T10:05:00.000Z");
}

#[test]
fn blank_prompts_and_a_second_create_in_flight_are_refused() {
    let core = studio();
    open(&core, "p1");
    assert!(block_on(core.create_job(Some("   "))).is_err());
    core.set_draft("x");
    fake(&core).hold.set(true);
    script(&core, ok(json!({"sora_job_id": "m:task_1"})));
    let mut first = Box::pin(core.create_job(None));
    let waker = futures::task::noop_waker();
    assert!(first
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    let snap = core.snapshot();
    assert!(snap.console.creating && !snap.console.can_generate);
    assert_eq!(
        block_on(core.create_job(Some("y"))).unwrap_err(),
        CoreError::Busy("Creating a job".into())
    );
    assert!(block_on(first).is_ok());
    assert!(!core.snapshot().console.creating);
    assert_eq!(
        fake(&core).requests.borrow().len(),
        2,
        "assets and one create"
    );
}

#[test]
fn a_failed_create_shows_the_banner_and_keeps_the_draft() {
    let core = studio();
    open(&core, "p1");
    core.set_draft("keep me");
    script(&core, status(500, "Internal Server Error"));
    let err = block_on(core.create_job(None)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Failed to create job: Internal Server Error"
    );
    let snap = core.snapshot();
    assert_eq!(
        snap.banner.unwrap().message,
        "Failed to create generation job"
    );
    assert_eq!(snap.console.draft, "keep me");
    assert!(!snap.console.creating);
    assert!(snap.jobs.items.is_empty());
}

#[test]
fn an_answer_without_a_job_id_is_a_failed_create() {
    let core = studio();
    open(&core, "p1");
    script(&core, ok(json!({"status": "queued"})));
    assert!(block_on(core.create_job(Some("x")))
        .unwrap_err()
        .to_string()
        .starts_with("Failed to create job: "));
}

#[test]
fn polling_merges_answers_and_only_active_jobs_are_due() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    create(&core, "m:task_b", "2026-11-21T10:01:00.000Z");
    assert_eq!(core.jobs_due_for_poll(), ["m:task_b", "m:task_a"]);
    *fake(&core).now.borrow_mut() = "2026-11-21T10:02:00.000Z".into();
    script(
        &core,
        ok(json!({"status": "done", "progress": 100, "preview_url": "http://h/p.mp4", "fps": 24})),
    );
    block_on(core.poll_job("m:task_a")).unwrap();
    assert_eq!(core.jobs_due_for_poll(), ["m:task_b"]);
    let view = core
        .snapshot()
        .jobs
        .items
        .into_iter()
        .find(|j| j.id == "m:task_a")
        .unwrap();
    assert!(view.show_player && view.can_save && !view.can_check && view.saved_as.is_none());
    assert_eq!(view.badge, "DONE");
    let stored = stored(&core, "jobs:p1").unwrap();
    let a = stored
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["sora_job_id"] == "m:task_a")
        .unwrap()
        .clone();
    assert_eq!(a["fps"], 24);
    assert_eq!(a["updated_at"], "2026-11-21T10:02:00.000Z");
    assert_eq!(a["created_at"], "2026-11-21T10:00:00.000Z");
}

#[test]
fn a_failed_automatic_poll_is_only_logged_but_a_manual_check_shows_the_banner() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    script(&core, Err("Failed to fetch".into()));
    assert!(block_on(core.poll_job("m:task_a")).is_err());
    assert!(core.snapshot().banner.is_none());
    assert!(fake(&core)
        .logs
        .borrow()
        .iter()
        .any(|(l, m)| *l == LogLevel::Warn && m.contains("Failed to fetch")));
    assert_eq!(core.jobs_due_for_poll(), ["m:task_a"], "polling goes on");
    script(&core, status(404, "Not Found"));
    let err = block_on(core.check_job("m:task_a")).unwrap_err();
    assert_eq!(err.to_string(), "Failed to get job status: Not Found");
    let banner = core.snapshot().banner.unwrap();
    assert_eq!(banner.message, "Failed to check job status");
}

#[test]
fn saving_stores_the_key_and_reloads_assets() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    assert!(block_on(core.save_job("m:task_a")).is_err(), "not done yet");
    script(
        &core,
        ok(json!({"status": "done", "progress": 100, "preview_url": "http://h/p.mp4"})),
    );
    block_on(core.check_job("m:task_a")).unwrap();
    script(
        &core,
        ok(json!({"r2_key": "projects/p1/m:task_a.mp4", "public_url": "http://h/x.mp4"})),
    );
    script(
        &core,
        ok(
            json!({"videos": [{"key": "projects/p1/m:task_a.mp4", "size_bytes": 2_097_152,
        "last_modified": "2026-11-21T10:03:00Z", "public_url": "http://h/media/projects/p1/m:task_a.mp4"}]}),
        ),
    );
    assert_eq!(
        block_on(core.save_job("m:task_a")).unwrap(),
        "projects/p1/m:task_a.mp4"
    );
    let requests = fake(&core).requests.borrow().clone();
    let save = &requests[requests.len() - 2];
    assert_eq!(save.url, "http://h/api/jobs/sora/m%3Atask_a/save");
    assert_eq!(
        save.json(),
        Some(r#"{"project_id":"p1","prompt":"a prompt"}"#)
    );
    let snap = core.snapshot();
    assert!(!snap.jobs.items[0].can_save);
    assert_eq!(
        snap.jobs.items[0].saved_as.as_deref(),
        Some("m:task_a.mp4"),
        "a saved job names its library video (Add to sequence from its row)"
    );
    assert_eq!(
        stored(&core, "jobs:p1").unwrap()[0]["final_r2_key"],
        "projects/p1/m:task_a.mp4"
    );
    assert_eq!(snap.library.state, LibraryState::Ready);
    let card = &snap.library.assets[0];
    assert_eq!(card.poster_url, None, "no poster listed, none shown");
    assert_eq!(
        (
            card.title.as_str(),
            card.size_mb.as_str(),
            card.date_label.as_str()
        ),
        ("a", "2.00", "Date 1795255380000")
    );
    assert!(
        block_on(core.save_job("m:task_a")).is_err(),
        "saved once only"
    );
}

#[test]
fn a_failed_save_logs_the_body_and_shows_the_banner() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    script(
        &core,
        ok(json!({"status": "done", "preview_url": "http://h/p.mp4"})),
    );
    block_on(core.check_job("m:task_a")).unwrap();
    script(&core, status(409, "Conflict"));
    assert_eq!(
        block_on(core.save_job("m:task_a")).unwrap_err().to_string(),
        "Failed to save job: Conflict"
    );
    assert_eq!(
        core.snapshot().banner.unwrap().message,
        "Failed to save video to library"
    );
    assert!(fake(&core)
        .logs
        .borrow()
        .iter()
        .any(|(l, m)| *l == LogLevel::Error && m.contains(r#""message":"why""#)));
    assert!(core.snapshot().jobs.items[0].can_save, "still saveable");
}

#[test]
fn assets_load_states_and_failure_banner() {
    let core = studio();
    core.enter_project("p1");
    assert_eq!(core.snapshot().library.state, LibraryState::Loading);
    script(&core, status(401, "Unauthorized"));
    assert_eq!(
        block_on(core.load_assets()).unwrap_err().to_string(),
        "Failed to get assets: Unauthorized"
    );
    let snap = core.snapshot();
    assert_eq!(snap.library.state, LibraryState::Empty);
    assert_eq!(snap.banner.unwrap().message, "Failed to load assets");
}

#[test]
fn rereading_notifies_only_when_the_stored_list_changed() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    let before = fake(&core).notified.get();
    assert!(!core.reread_jobs());
    assert!(!core.reread_jobs());
    assert_eq!(
        fake(&core).notified.get(),
        before,
        "nothing changed, nothing told"
    );
    let other_tab = json!([{"sora_job_id": "m:task_z", "status": "running", "progress": 50,
        "prompt": "from another tab", "created_at": "2026-11-21T11:00:00.000Z"}]);
    fake(&core)
        .storage
        .borrow_mut()
        .insert("jobs:p1".into(), other_tab.to_string());
    assert!(core.reread_jobs());
    assert_eq!(fake(&core).notified.get(), before + 1);
    let snap = core.snapshot();
    assert_eq!(snap.jobs.items[0].badge, "RUNNING 50%");
    assert!(snap.jobs.items[0].show_progress);
}

#[test]
fn a_corrupted_job_list_loads_what_is_valid_and_keeps_the_text() {
    let core = studio();
    let raw = r#"[{"sora_job_id":"m:task_ok","status":"done"}, {"nope":1}, "junk"]"#;
    fake(&core)
        .storage
        .borrow_mut()
        .insert("jobs:p1".into(), raw.into());
    core.enter_project("p1");
    let snap = core.snapshot();
    assert_eq!(snap.jobs.items.len(), 1);
    let banner = snap.banner.unwrap();
    assert_eq!(banner.message, "Failed to load dashboard data");
    assert!(banner.detail.unwrap().contains("backup:jobs:p1:"));
    let backup = fake(&core)
        .storage
        .borrow()
        .iter()
        .find(|(k, _)| k.starts_with("backup:jobs:p1:"))
        .map(|(_, v)| v.clone());
    assert_eq!(backup.as_deref(), Some(raw));
    assert_eq!(
        stored(&core, "jobs:p1").unwrap().as_array().unwrap().len(),
        1
    );

    fake(&core)
        .storage
        .borrow_mut()
        .insert("jobs:p2".into(), "{not json".into());
    core.enter_project("p2");
    assert!(core.snapshot().jobs.items.is_empty());
    assert!(fake(&core)
        .storage
        .borrow()
        .values()
        .any(|v| v == "{not json"));
}

/// Fails on keeping every backup: each damaged load left one more `backup:` item, for ever,
/// in a storage of 5 MB.
#[test]
fn only_the_newest_three_backups_of_a_list_are_kept() {
    let core = studio();
    let backups = || -> Vec<String> {
        fake(&core)
            .storage
            .borrow()
            .iter()
            .filter(|(k, _)| k.starts_with("backup:jobs:p1:"))
            .map(|(_, v)| v.clone())
            .collect()
    };
    fake(&core).storage.borrow_mut().insert(
        "backup:jobs:p10:2026-11-20T10:00:00.000Z".into(),
        "other".into(),
    );
    for day in 21..=25 {
        *fake(&core).now.borrow_mut() = format!("2026-11-{day}T10:00:00.000Z");
        fake(&core)
            .storage
            .borrow_mut()
            .insert("jobs:p1".into(), format!("damaged on the {day}th"));
        core.enter_project("p1");
        core.leave_project();
    }
    assert_eq!(
        backups(),
        [
            "damaged on the 23th",
            "damaged on the 24th",
            "damaged on the 25th"
        ]
    );
    assert!(
        fake(&core)
            .get_item("backup:jobs:p10:2026-11-20T10:00:00.000Z")
            .is_some(),
        "another key's backups are its own"
    );
}

/// Fails on Generate being on again at once after a 429: the server's wait was ignored and
/// the next click was refused the same way.
#[test]
fn a_create_refused_for_a_while_keeps_generate_off_until_the_servers_wait_has_passed() {
    let core = studio();
    open(&core, "p1");
    *fake(&core).now.borrow_mut() = "2026-11-26T10:00:00.000Z".into();
    script(
        &core,
        Ok(HttpResponse {
            status: 429,
            status_text: "Too Many Requests".into(),
            body: json!({"error": {"code": "too_many_requests",
                                   "message": "This project already has 4 jobs", "retry_after_s": 20}})
            .to_string(),
        }),
    );
    let refused = block_on(core.create_job(Some("a heron"))).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "Failed to create job: Too Many Requests"
    );
    let snap = core.snapshot();
    assert_eq!(
        snap.banner.unwrap().message,
        "Failed to create generation job"
    );
    let again_at = studio_core::time::parse_iso_millis("2026-11-26T10:00:20.000Z").unwrap();
    assert_eq!(snap.console.again_at, Some(again_at as f64));

    let requests = fake(&core).requests.borrow().len();
    *fake(&core).now.borrow_mut() = "2026-11-26T10:00:12.500Z".into();
    let early = block_on(core.create_job(Some("a heron"))).unwrap_err();
    assert_eq!(early.to_string(), "Generate can be tried again in 8 s");
    assert_eq!(
        fake(&core).requests.borrow().len(),
        requests,
        "nothing sent"
    );

    create(&core, "m:task_a", "2026-11-26T10:00:20.000Z");
    assert_eq!(core.snapshot().console.again_at, None);
}

#[test]
fn a_full_storage_is_reported_and_the_job_is_still_shown() {
    let core = studio();
    open(&core, "p1");
    fake(&core).full.set(true);
    script(&core, ok(json!({"sora_job_id": "m:task_a"})));
    let err = block_on(core.create_job(Some("x"))).unwrap_err();
    assert_eq!(err.code(), "storage");
    let snap = core.snapshot();
    assert_eq!(snap.jobs.items.len(), 1);
    let banner = snap.banner.unwrap();
    assert_eq!(banner.message, "Failed to create generation job");
    assert!(banner.detail.unwrap().contains("QuotaExceededError"));
}

#[test]
fn metadata_modal_shows_prompt_json_and_errors() {
    let core = studio();
    core.enter_project("p1");
    script(
        &core,
        ok(json!({"videos": [
            {"key": "projects/p1/m:task_a.mp4", "size_bytes": 1, "last_modified": "2026-11-21T10:03:00Z", "public_url": "http://h/m/a.mp4"},
            {"key": "projects/p1/b.mp4", "size_bytes": 1, "last_modified": "2026-11-21T10:03:00Z"}
        ]})),
    );
    block_on(core.load_assets()).unwrap();
    script(&core, ok(json!({"prompt": "a cat", "fps": 24})));
    script(
        &core,
        ok(json!({"present": true, "valid": true, "trusted": false,
                  "signer": "Studio local signer (Studio)",
                  "digital_source_type": "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia",
                  "made": "Made with AI by kling/kling-v3",
                  "actions": [{"action": "c2pa.created", "software_agent": "kling/kling-v3"}],
                  "ingredients": [], "errors": [], "note": "not on a trust list"})),
    );
    block_on(core.open_metadata("projects/p1/m:task_a.mp4")).unwrap();
    let requests = fake(&core).requests.borrow().clone();
    let [.., metadata, credentials] = &requests[..] else {
        panic!("two requests")
    };
    assert_eq!(
        (metadata.url.as_str(), metadata.bearer.clone()),
        ("http://h/m/a.json", None)
    );
    assert_eq!(
        credentials.url,
        "http://h/api/projects/p1/assets/m%3Atask_a.mp4/credentials"
    );
    let modal = core.snapshot().metadata.unwrap();
    let shown = modal.credentials.clone().unwrap();
    assert_eq!(
        shown.state,
        studio_core::snapshot::CredentialsState::Untrusted
    );
    assert_eq!(
        shown.made.as_deref(),
        Some("Made with AI by kling/kling-v3")
    );
    assert_eq!(
        shown.signer.as_deref(),
        Some("Studio local signer (Studio)")
    );
    assert_eq!(modal.prompt.as_deref(), Some("a cat"));
    assert!(modal.details_json.unwrap().contains("\"fps\": 24"));
    assert_eq!(modal.asset.file_name, "m:task_a.mp4");

    script(&core, status(404, "Not Found"));
    block_on(core.open_metadata("projects/p1/m:task_a.mp4")).unwrap();
    let modal = core.snapshot().metadata.unwrap();
    assert_eq!(modal.error.as_deref(), Some("Metadata not found"));
    assert!(modal.details_json.unwrap().contains("Metadata not found"));

    script(&core, status(500, "Server Error"));
    block_on(core.open_metadata("projects/p1/m:task_a.mp4")).unwrap();
    assert_eq!(
        core.snapshot().metadata.unwrap().error.as_deref(),
        Some("Failed to load metadata")
    );

    block_on(core.open_metadata("projects/p1/b.mp4")).unwrap();
    assert_eq!(
        core.snapshot().metadata.unwrap().error.as_deref(),
        Some("Metadata not found")
    );
    core.close_metadata();
    assert!(core.snapshot().metadata.is_none());
}

#[test]
fn the_runtime_config_is_loaded_from_json() {
    let core = studio();
    script(
        &core,
        ok(json!({"apiBase": "http://other/api", "token": "abc"})),
    );
    block_on(core.load_config("/config.json")).unwrap();
    assert_eq!(
        core.config(),
        ApiConfig {
            api_base: "http://other/api".into(),
            token: "abc".into(),
            models: Vec::new(),
        }
    );
    script(&core, status(404, "Not Found"));
    assert!(block_on(core.load_config("/config.json")).is_err());
    assert_eq!(core.config().token, "abc", "a failed load changes nothing");
}

#[test]
fn a_chosen_model_goes_with_new_jobs() {
    let core = studio();
    open(&core, "p1");
    create(&core, "local-1:task_a", "2026-11-21T10:00:00.000Z");
    let body = |core: &Core<Fake>| -> Value {
        let request = fake(core).requests.borrow().last().unwrap().clone();
        serde_json::from_str(request.json().unwrap()).unwrap()
    };
    assert_eq!(
        body(&core),
        json!({"prompt": "a prompt"}),
        "the server chooses"
    );
    assert!(core.snapshot().console.models.is_empty());
    assert!(core.set_model("sora-2").is_err(), "only offered models");

    core.configure(ApiConfig {
        models: vec!["local-1".into(), "sora-2".into()],
        ..core.config()
    });
    assert_eq!(
        core.snapshot().console.model,
        "local-1",
        "the default first"
    );
    core.set_model("sora-2").unwrap();
    assert_eq!(core.snapshot().console.model, "sora-2");
    create(&core, "sora-2:task_b", "2026-11-21T10:01:00.000Z");
    assert_eq!(
        body(&core),
        json!({"prompt": "a prompt", "model": "sora-2"})
    );
}

#[test]
fn check_status_goes_through_while_an_automatic_poll_is_in_flight() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    fake(&core).hold.set(true);
    // Answers are taken in the order requests finish: the manual check finishes first.
    script(&core, ok(json!({"status": "running", "progress": 20})));
    script(&core, ok(json!({"status": "running", "progress": 10})));
    let mut auto = Box::pin(core.poll_job("m:task_a"));
    let waker = futures::task::noop_waker();
    assert!(auto
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    assert!(
        core.jobs_due_for_poll().is_empty(),
        "no second automatic poll"
    );
    assert!(
        core.snapshot().jobs.items[0].busy.is_none(),
        "an automatic poll is not shown as busy"
    );
    let manual = block_on(core.check_job("m:task_a")).unwrap();
    assert_eq!(manual.percent(), 20);
    assert_eq!(block_on(auto).unwrap().percent(), 10);
    assert_eq!(
        fake(&core).requests.borrow().len(),
        4,
        "assets, create and both status calls"
    );
}

/// Fails on merging whichever answer arrives last: a poll sent before a Cancel and answered
/// after it brought the cancelled job back to running, with Cancel showing again.
#[test]
fn a_poll_answered_after_a_cancel_does_not_undo_it() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    fake(&core).hold.set(true);
    // Answers are taken in the order requests finish: the cancel finishes first.
    script(
        &core,
        ok(
            json!({"status": "error", "error": "Cancelled", "updated_at": "2026-11-21T10:00:09.000Z"}),
        ),
    );
    script(
        &core,
        ok(json!({"status": "running", "progress": 80, "updated_at": "2026-11-21T10:00:08.000Z"})),
    );
    let mut poll = Box::pin(core.poll_job("m:task_a"));
    let waker = futures::task::noop_waker();
    assert!(poll
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    let cancelled = block_on(core.cancel_job("m:task_a")).unwrap();
    assert_eq!(cancelled.status, "error");
    block_on(poll).unwrap();
    let view = &core.snapshot().jobs.items[0];
    assert_eq!(view.error.as_deref(), Some("Cancelled"));
    assert!(!view.can_cancel, "Cancel does not come back");
    assert_eq!(
        stored(&core, "jobs:p1").unwrap()[0]["status"],
        "error",
        "nor does the stored job go back"
    );
    assert!(
        core.jobs_due_for_poll().is_empty(),
        "a cancelled job is not polled"
    );
}

fn ids(core: &Core<Fake>) -> Vec<String> {
    core.snapshot()
        .jobs
        .items
        .into_iter()
        .map(|j| j.id)
        .collect()
}

#[test]
fn reattach_adds_the_servers_jobs_and_keeps_local_ones() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_local", "2026-11-21T10:00:00.000Z");
    script(
        &core,
        ok(json!({"jobs": [
            {"sora_job_id": "m:task_other", "status": "running", "progress": 30, "prompt": "from B",
             "model": "m", "seconds": 8, "size": "1280x720",
             "created_at": "2026-11-21T10:05:00.000Z", "updated_at": "2026-11-21T10:05:00.000Z"},
        ]})),
    );
    block_on(core.reattach()).unwrap();
    assert_eq!(ids(&core), ["m:task_other", "m:task_local"]);
    let stored = stored(&core, "jobs:p1").unwrap();
    assert_eq!(stored[0]["prompt"], "from B");
    assert_eq!(stored[0]["final_r2_key"], Value::Null);
    assert_eq!(
        fake(&core).requests.borrow().last().unwrap().url,
        "http://h/api/projects/p1/jobs"
    );

    let before = core.version();
    script(&core, ok(json!({"jobs": [stored[0].clone()]})));
    block_on(core.reattach()).unwrap();
    assert_eq!(core.version(), before, "an unchanged list redraws nothing");
}

#[test]
fn a_job_another_browser_saved_shows_saved_with_the_key_the_server_tells() {
    let done = |id: &str, key: Option<&str>| {
        let at = format!("2026-11-21T10:0{}:00.000Z", &id[id.len() - 1..]);
        json!({"sora_job_id": id, "status": "done", "progress": 100, "prompt": "from A",
               "preview_url": format!("http://h/{id}.mp4"), "final_r2_key": key,
               "created_at": at, "updated_at": at})
    };
    let saved = |core: &Core<Fake>| -> Vec<(String, bool)> {
        let items = core.snapshot().jobs.items;
        items
            .into_iter()
            .map(|j| (j.id, j.saved_as.is_some()))
            .collect()
    };
    let core = studio();
    open(&core, "p1");
    script(
        &core,
        ok(json!({"jobs": [
            done("m:task_1", Some("projects/p1/m:task_1.mp4")),
            done("m:task_2", None),
        ]})),
    );
    block_on(core.reattach()).unwrap();
    assert_eq!(
        saved(&core),
        [("m:task_2".into(), false), ("m:task_1".into(), true)]
    );
    assert_eq!(
        stored(&core, "jobs:p1").unwrap()[1]["final_r2_key"],
        "projects/p1/m:task_1.mp4"
    );
    // A saves the second later: the next answer about it ticks it here too.
    script(
        &core,
        ok(json!({"jobs": [
            done("m:task_1", Some("projects/p1/m:task_1.mp4")),
            done("m:task_2", Some("projects/p1/m:task_2.mp4")),
        ]})),
    );
    block_on(core.reattach()).unwrap();
    assert_eq!(
        saved(&core),
        [("m:task_2".into(), true), ("m:task_1".into(), true)]
    );
}

#[test]
fn pushed_changes_merge_add_and_remove_jobs_and_resume_after_the_last_id() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    script(&core, ok(json!(null)));
    *fake(&core).pieces.borrow_mut() = [
        ": heartbeat\n\nid: 4\nevent: job\ndata: {\"sora_job_id\":\"m:task_a\",\"status\":\"running\",",
        "\"progress\":55}\n\nid: 5\nevent: job\ndata: {\"sora_job_id\":\"m:task_b\",\"status\":\"queued\",\"prompt\":\"b\",\"created_at\":\"2026-11-21T10:09:00.000Z\"}\n\n",
        "id: 6\nevent: removed\ndata: {\"sora_job_id\":\"m:task_b\"}\n\n",
    ]
    .map(|p| Ok(p.to_owned()))
    .into();
    block_on(core.follow_changes()).unwrap();
    assert_eq!(ids(&core), ["m:task_a"]);
    assert_eq!(core.snapshot().jobs.items[0].badge, "RUNNING 55%");
    assert_eq!(core.stream_state(), StreamState::Off, "the body ended");

    script(&core, ok(json!(null)));
    // Opened again: the library, which the stream does not replay, is read again first.
    script(&core, ok(json!({"videos": []})));
    fake(&core)
        .pieces
        .borrow_mut()
        .push_back(Err("network error".into()));
    assert_eq!(block_on(core.follow_changes()).unwrap_err().code(), "api");
    let requests = fake(&core).requests.borrow().clone();
    let [.., request, reread] = requests.as_slice() else {
        panic!("{requests:?}")
    };
    assert_eq!(reread.url, "http://h/api/projects/p1/assets");
    let request = request.clone();
    assert_eq!(request.url, "http://h/api/projects/p1/events");
    assert_eq!(request.last_event_id.as_deref(), Some("6"));
    assert_eq!(request.bearer.as_deref(), Some("t0k"));

    script(&core, status(401, "Unauthorized"));
    assert_eq!(
        block_on(core.follow_changes()).unwrap_err().to_string(),
        "Failed to follow job changes: Unauthorized"
    );
}

/// Fails on writing the whole stored list for every pushed percent (with 300 finished jobs
/// stored, one render wrote 24 MB in Chromium) and on keeping every job ever made: progress
/// alone shows at once and is written at most every 5 s, and 200 finished jobs are kept.
#[test]
fn progress_is_written_now_and_then_and_the_stored_list_stays_bounded() {
    let core = studio();
    let old: Vec<Value> = (0..300)
        .map(|i| {
            let at = format!("2026-11-20T{:02}:{:02}:00.000Z", i / 60, i % 60);
            json!({"sora_job_id": format!("m:task_old{i:03}"), "status": "done", "progress": 100,
                   "prompt": "old", "created_at": at, "updated_at": at})
        })
        .collect();
    fake(&core)
        .storage
        .borrow_mut()
        .insert("jobs:p1".into(), json!(old).to_string());
    open(&core, "p1");
    create(&core, "m:task_new", "2026-11-21T10:00:00.000Z");
    let kept = stored(&core, "jobs:p1").unwrap();
    let kept = kept.as_array().unwrap();
    assert_eq!(kept.len(), 201, "the new job and the 200 newest finished");
    assert_eq!(kept[1]["sora_job_id"], "m:task_old299");
    assert_eq!(kept[200]["sora_job_id"], "m:task_old100");

    let writes = || fake(&core).writes.borrow().get("jobs:p1").copied();
    let before = writes();
    let push = |from: u32, to: u32, end: &str| {
        script(&core, ok(json!(null)));
        if from > 1 {
            // Opened again: the library is read again first.
            script(&core, ok(json!({"videos": []})));
        }
        let mut body: Vec<String> = (from..=to)
            .map(|p| {
                format!("id: {p}\nevent: job\ndata: {{\"sora_job_id\":\"m:task_new\",\"status\":\"running\",\"progress\":{p}}}\n\n")
            })
            .collect();
        body.push(end.to_owned());
        *fake(&core).pieces.borrow_mut() = body.into_iter().map(Ok).collect();
        block_on(core.follow_changes()).unwrap();
    };
    push(1, 60, "");
    assert_eq!(core.snapshot().jobs.items[0].badge, "RUNNING 60%");
    assert_eq!(
        writes().unwrap() - before.unwrap(),
        1,
        "running is written; the 59 percents after it are not"
    );
    assert_eq!(stored(&core, "jobs:p1").unwrap()[0]["progress"], 1.0);
    let before = writes();

    *fake(&core).now.borrow_mut() = "2026-11-21T10:00:06.000Z".into();
    push(61, 99, "id: 100\nevent: job\ndata: {\"sora_job_id\":\"m:task_new\",\"status\":\"done\",\"progress\":100}\n\n");
    assert_eq!(
        writes().unwrap() - before.unwrap(),
        2,
        "once 5 s after the last write, once when it finished"
    );
    let written = stored(&core, "jobs:p1").unwrap();
    assert_eq!(written[0]["status"], "done");
    assert_eq!(written.as_array().unwrap().len(), 200, "now 200 finished");

    // The server lists every job it holds; the ones past the kept number are not added again.
    let listed: Vec<Value> = old.iter().cloned().chain([written[0].clone()]).collect();
    script(&core, ok(json!({ "jobs": listed })));
    let before = writes();
    block_on(core.reattach()).unwrap();
    assert_eq!(writes(), before);
    assert_eq!(core.snapshot().jobs.items.len(), 200);
}

/// Fails on trusting a reopened stream to bring what it does not replay: a video saved
/// elsewhere while the stream was cut never showed until the page was reloaded.
#[test]
fn a_stream_opened_again_reads_the_library_again() {
    let core = studio();
    core.enter_project("p1");
    script(&core, ok(json!({"videos": [video("a.mp4")]})));
    block_on(core.load_assets()).unwrap();
    // The first stream ends (a restart, a proxy's cut); b.mp4 is saved elsewhere meanwhile.
    script(&core, ok(json!(null)));
    block_on(core.follow_changes()).unwrap();
    script(&core, ok(json!(null)));
    script(
        &core,
        ok(json!({"videos": [video("b.mp4"), video("a.mp4")]})),
    );
    block_on(core.follow_changes()).unwrap();
    assert_eq!(library_names(&core), ["b.mp4", "a.mp4"]);
}

/// Fails on opening a cut stream again only at the next 20 s round: the waits start at the
/// server's `retry`, double while the stream does not open, stop at 20 s, and start again
/// once it opens.
#[test]
fn a_cut_stream_is_opened_again_soon_then_less_often() {
    let core = studio();
    assert_eq!(core.reconnect_delay(), None, "no dashboard");
    open(&core, "p1");
    script(&core, ok(json!(null)));
    block_on(core.follow_changes()).unwrap();
    let waits = |n: usize| -> Vec<Option<u32>> { (0..n).map(|_| core.reconnect_delay()).collect() };
    assert_eq!(
        waits(7),
        [1_000, 2_000, 4_000, 8_000, 16_000, 20_000, 20_000].map(Some),
        "no retry asked: 1 s, doubled up to the 20 s round"
    );

    // The stream opens again (the library it does not replay is read first) and asks for
    // 250 ms before it ends.
    script(&core, ok(json!(null)));
    script(&core, ok(json!({"videos": []})));
    *fake(&core).pieces.borrow_mut() = [Ok("retry: 250\n\n".to_owned())].into();
    block_on(core.follow_changes()).unwrap();
    assert_eq!(waits(3), [250, 500, 1_000].map(Some));

    // A refused attempt keeps the waits growing; an open stream has none.
    script(&core, status(503, "Service Unavailable"));
    assert!(block_on(core.follow_changes()).is_err());
    assert_eq!(core.reconnect_delay(), Some(2_000));
    fake(&core).hold.set(true);
    script(&core, ok(json!(null)));
    script(&core, ok(json!({"videos": []})));
    let follow = core.follow_changes();
    let mut follow = std::pin::pin!(follow);
    let waker = futures::task::noop_waker();
    assert!(follow
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    assert_eq!(core.stream_state(), StreamState::Connecting);
    assert_eq!(core.reconnect_delay(), None, "not down");
}

/// Fails on keeping whatever a list says whenever it left the server: a reload asked for
/// before a delete and answered after it brought the deleted card back.
#[test]
fn a_list_asked_for_before_a_delete_leaves_the_deleted_video_out() {
    let core = studio();
    core.enter_project("p1");
    script(
        &core,
        ok(json!({"videos": [video("a.mp4"), video("b.mp4")]})),
    );
    block_on(core.load_assets()).unwrap();
    fake(&core).hold.set(true);
    // Answers are taken in the order requests finish: the delete finishes first, then the
    // reload's list, read before the delete.
    script(
        &core,
        Ok(HttpResponse {
            status: 204,
            status_text: "No Content".into(),
            body: String::new(),
        }),
    );
    script(
        &core,
        ok(json!({"videos": [video("a.mp4"), video("b.mp4")]})),
    );
    let mut reload = Box::pin(core.load_assets());
    let waker = futures::task::noop_waker();
    assert!(reload
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    block_on(core.delete_asset("projects/p1/b.mp4")).unwrap();
    assert_eq!(library_names(&core), ["a.mp4"]);
    block_on(reload).unwrap();
    assert_eq!(
        library_names(&core),
        ["a.mp4"],
        "the deleted video stays out"
    );

    // A later list is taken as it is.
    fake(&core).hold.set(false);
    script(
        &core,
        ok(json!({"videos": [video("b.mp4"), video("a.mp4")]})),
    );
    block_on(core.load_assets()).unwrap();
    assert_eq!(library_names(&core), ["b.mp4", "a.mp4"]);
}

/// Fails on showing whichever pick arrives last: a pick pushed late, but read back before this
/// browser's own change, put the old pick back.
#[test]
fn a_pick_read_before_the_one_shown_does_not_replace_it() {
    let pick = |core: &Core<Fake>| {
        let shown = &core.library_view().assets[0];
        (shown.favourite, shown.decision.clone())
    };
    let push = |core: &Core<Fake>, event: Value| {
        script(core, ok(json!(null)));
        *fake(core).pieces.borrow_mut() = [Ok(format!("event: pick\ndata: {event}\n\n"))].into();
        block_on(core.follow_changes()).unwrap();
    };
    let core = studio();
    core.enter_project("p1");
    script(&core, ok(json!({"videos": [video("a.mp4")]})));
    block_on(core.load_assets()).unwrap();
    let mut starred = video("a.mp4");
    starred["favourite"] = json!(true);
    starred["picked_at"] = json!(2000);
    script(&core, ok(starred));
    block_on(core.pick_asset("projects/p1/a.mp4", Some(true), None)).unwrap();
    assert_eq!(pick(&core), (true, None));

    push(
        &core,
        json!({"file_name": "a.mp4", "favourite": false, "decision": null, "picked_at": 1000}),
    );
    assert_eq!(pick(&core), (true, None), "read before the star: not shown");
    // Opened again, the stream reads the library first (the pick it lists has no time).
    script(&core, ok(json!({"videos": [video("a.mp4")]})));
    push(
        &core,
        json!({"file_name": "a.mp4", "favourite": true, "decision": "approved", "picked_at": 3000}),
    );
    assert_eq!(pick(&core), (true, Some("approved".to_owned())));
}

/// Fails on loading the library twice for one Save: the change pushed back for this browser's
/// own save, arriving before the save's reload was answered, started a second load.
#[test]
fn a_save_here_loads_the_library_once_whatever_its_echo() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    script(
        &core,
        ok(json!({"status": "done", "progress": 100, "preview_url": "http://h/p.mp4"})),
    );
    block_on(core.check_job("m:task_a")).unwrap();
    fake(&core).hold.set(true);
    // Answers are taken in the order requests finish: the save, then the stream (which brings
    // the echo), then the save's reload.
    script(&core, ok(json!({"r2_key": "projects/p1/m:task_a.mp4"})));
    script(&core, ok(json!(null)));
    script(&core, ok(json!({"videos": [video("m:task_a.mp4")]})));
    script(&core, ok(json!({"videos": [video("m:task_a.mp4")]})));
    let mut save = Box::pin(core.save_job("m:task_a"));
    let waker = futures::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    // The save's request, answered; then its reload asked for.
    while fake(&core).requests.borrow().last().unwrap().url != "http://h/api/projects/p1/assets" {
        assert!(save.as_mut().poll(&mut cx).is_pending());
    }
    *fake(&core).pieces.borrow_mut() = [Ok(
        "event: library\ndata: {\"file_name\":\"m:task_a.mp4\",\"saved\":true}\n\n".to_owned(),
    )]
    .into();
    block_on(core.follow_changes()).unwrap();
    block_on(save).unwrap();
    let loads = fake(&core)
        .requests
        .borrow()
        .iter()
        .filter(|r| r.url.contains("/assets"))
        .count();
    assert_eq!(loads, 2, "the first load, and the save's reload alone");
    assert_eq!(library_names(&core), ["m:task_a.mp4"]);
}

/// Fails on Compare and the share selection keeping what was deleted: sharing a selection
/// with a video deleted elsewhere failed with "No such video".
#[test]
fn deleted_videos_leave_compare_and_the_selection() {
    let key = |name: &str| format!("projects/p1/{name}");
    let core = studio();
    core.enter_project("p1");
    script(
        &core,
        ok(json!({"videos": [video("a.mp4"), video("b.mp4"), video("c.mp4")]})),
    );
    block_on(core.load_assets()).unwrap();
    for name in ["a.mp4", "b.mp4", "c.mp4"] {
        core.toggle_compare(&key(name)).unwrap();
        core.toggle_select(&key(name)).unwrap();
    }
    let chosen = |core: &Core<Fake>| -> (Vec<String>, Vec<String>) {
        let compared = core
            .compare_view()
            .chosen
            .into_iter()
            .map(|i| i.id)
            .collect();
        (compared, core.shares_view().selected)
    };
    // Deleted elsewhere, pushed.
    *fake(&core).pieces.borrow_mut() = [Ok(
        "event: library\ndata: {\"file_name\":\"a.mp4\",\"saved\":false}\n\n".to_owned(),
    )]
    .into();
    script(&core, ok(json!(null)));
    block_on(core.follow_changes()).unwrap();
    let rest = vec![key("b.mp4"), key("c.mp4")];
    assert_eq!(chosen(&core), (rest.clone(), rest));
    // Deleted here.
    script(
        &core,
        Ok(HttpResponse {
            status: 204,
            status_text: "No Content".into(),
            body: String::new(),
        }),
    );
    block_on(core.delete_asset(&key("b.mp4"))).unwrap();
    assert_eq!(chosen(&core), (vec![key("c.mp4")], vec![key("c.mp4")]));
    // Deleted while nothing was pushed here: the next load of the library no longer has it.
    script(&core, ok(json!({"videos": []})));
    block_on(core.load_assets()).unwrap();
    assert_eq!(chosen(&core), (vec![], vec![]));
    assert!(!core.compare_view().open);
}

#[test]
fn a_video_saved_or_deleted_elsewhere_is_pushed_into_the_library() {
    // Follows a stream that says `pieces`: the addresses the core asked for meanwhile.
    let follow = |core: &Core<Fake>, pieces: &[&str]| -> Vec<String> {
        *fake(core).pieces.borrow_mut() = pieces.iter().map(|p| Ok((*p).to_owned())).collect();
        let asked = fake(core).requests.borrow().len();
        block_on(core.follow_changes()).unwrap();
        let requests = fake(core).requests.borrow();
        requests[asked..].iter().map(|r| r.url.clone()).collect()
    };
    let core = studio();
    core.enter_project("p1");
    script(&core, ok(json!({"videos": [video("m:task_1.mp4")]})));
    block_on(core.load_assets()).unwrap();
    let listed = json!({"jobs": [{"sora_job_id": "m:task_1", "status": "done", "prompt": "p",
        "preview_url": "http://h/p.mp4", "final_r2_key": "projects/p1/m:task_1.mp4",
        "created_at": "2026-11-21T10:05:00.000Z", "updated_at": "2026-11-21T10:05:00.000Z"}]});
    script(&core, ok(listed));
    block_on(core.reattach()).unwrap();
    assert!(core.snapshot().jobs.items[0].saved_as.is_some());

    // Two saves arrive in one piece, one of a video already held: the newest page is read
    // once, and the new video put in its place.
    script(&core, ok(json!(null)));
    script(
        &core,
        ok(json!({"videos": [video("m:task_2.mp4"), video("m:task_1.mp4")], "total": 2})),
    );
    let loads = follow(
        &core,
        &[
            "event: library\ndata: {\"file_name\":\"m:task_2.mp4\",\"saved\":true}\n\nevent: library\ndata: {\"file_name\":\"m:task_1.mp4\",\"saved\":true}\n\n",
            "event: library\ndata: {\"file_name\":\"m:task_1.mp4\",\"saved\":false}\n\n",
            "event: library\ndata: {\"file_name\":\"gone.mp4\",\"saved\":false}\n\nevent: library\ndata: {\"saved\":true}\n\n",
        ],
    );
    assert_eq!(
        loads,
        [
            "http://h/api/projects/p1/events",
            "http://h/api/projects/p1/assets?limit=100"
        ]
    );
    assert_eq!(
        library_names(&core),
        ["m:task_2.mp4"],
        "the deleted video left, without a load"
    );
    assert!(
        core.snapshot().jobs.items[0].saved_as.is_none(),
        "the job saved as the deleted video can be saved again"
    );

    // A saved video the newest page does not show (its file's time is older): the whole
    // library is loaded again.
    // (The stream opens again: the library it does not replay is read again first.)
    script(&core, ok(json!(null)));
    script(&core, ok(json!({"videos": [video("m:task_2.mp4")]})));
    script(
        &core,
        ok(json!({"videos": [video("m:task_2.mp4")], "total": 2})),
    );
    script(
        &core,
        ok(json!({"videos": [video("m:task_2.mp4"), video("old.mp4")]})),
    );
    let loads = follow(
        &core,
        &["event: library\ndata: {\"file_name\":\"old.mp4\",\"saved\":true}\n\n"],
    );
    assert_eq!(
        loads,
        [
            "http://h/api/projects/p1/events",
            "http://h/api/projects/p1/assets",
            "http://h/api/projects/p1/assets?limit=100",
            "http://h/api/projects/p1/assets"
        ]
    );
    assert_eq!(library_names(&core), ["m:task_2.mp4", "old.mp4"]);

    // Each new video goes after the one before it on the page.
    script(&core, ok(json!(null)));
    script(
        &core,
        ok(json!({"videos": [video("m:task_2.mp4"), video("old.mp4")]})),
    );
    script(
        &core,
        ok(
            json!({"videos": [video("n1.mp4"), video("m:task_2.mp4"), video("n2.mp4"), video("old.mp4")], "total": 4}),
        ),
    );
    follow(&core, &["event: library\ndata: {\"file_name\":\"n2.mp4\",\"saved\":true}\n\nevent: library\ndata: {\"file_name\":\"n1.mp4\",\"saved\":true}\n\n"]);
    assert_eq!(
        library_names(&core),
        ["n1.mp4", "m:task_2.mp4", "n2.mp4", "old.mp4"]
    );
}

#[test]
fn cancel_retry_and_remove() {
    let core = studio();
    open(&core, "p1");
    *fake(&core).now.borrow_mut() = "2026-11-21T10:00:00.000Z".into();
    script(
        &core,
        ok(
            json!({"sora_job_id": "m:task_a", "status": "queued", "model": "m", "seconds": 8, "size": "720x1280"}),
        ),
    );
    block_on(core.create_job(Some("a fox"))).unwrap();
    assert!(core.snapshot().jobs.items[0].can_cancel);
    assert_eq!(
        block_on(core.retry_job("m:task_a")).unwrap_err().code(),
        "not-allowed"
    );

    script(&core, ok(json!({"status": "error", "error": "Cancelled"})));
    let cancelled = block_on(core.cancel_job("m:task_a")).unwrap();
    assert_eq!(cancelled.status, "error");
    let view = &core.snapshot().jobs.items[0];
    assert_eq!(view.error.as_deref(), Some("Cancelled"));
    assert!(view.can_retry && !view.can_cancel && view.busy.is_none());
    let cancel = fake(&core).requests.borrow().last().unwrap().clone();
    assert_eq!(
        (cancel.method, cancel.url.as_str()),
        ("POST", "http://h/api/jobs/sora/m%3Atask_a/cancel")
    );

    *fake(&core).now.borrow_mut() = "2026-11-21T10:01:00.000Z".into();
    script(
        &core,
        ok(json!({"sora_job_id": "m:task_b", "status": "queued"})),
    );
    block_on(core.retry_job("m:task_a")).unwrap();
    let body = last_body(&core);
    assert_eq!(
        body,
        json!({"prompt": "a fox", "model": "m", "seconds": 8, "size": "720x1280"})
    );
    assert_eq!(ids(&core), ["m:task_b", "m:task_a"]);

    script(&core, status(500, "Internal Server Error"));
    block_on(core.remove_job("m:task_a")).unwrap_err();
    assert_eq!(
        core.snapshot().banner.unwrap().message,
        "Failed to remove generation job"
    );
    assert_eq!(ids(&core).len(), 2, "kept while the server still has it");
    script(&core, status(404, "Not Found"));
    block_on(core.remove_job("m:task_a")).unwrap();
    assert_eq!(ids(&core), ["m:task_b"]);
    assert_eq!(
        stored(&core, "jobs:p1").unwrap().as_array().unwrap().len(),
        1
    );
}

#[test]
fn a_keystroke_changes_only_the_console_part() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_a", "2026-11-21T10:00:00.000Z");
    let parts = |core: &Core<Fake>| Part::ALL.map(|p| core.part_version(p));
    let before = parts(&core);
    core.set_draft("a");
    let after = parts(&core);
    let changed: Vec<Part> = Part::ALL
        .into_iter()
        .filter(|p| before[p.index()] != after[p.index()])
        .collect();
    assert_eq!(changed, [Part::Console]);
}

#[test]
fn a_recent_project_opens_as_it_is_stored() {
    let platform = Fake::default();
    platform
        .storage
        .borrow_mut()
        .insert("recent-projects".into(), r#"["My Project", "a/b"]"#.into());
    let core = Core::new(platform);
    assert_eq!(core.snapshot().recent, ["My Project", "a/b"]);
    assert!(core.snapshot().banner.is_none());
    assert_eq!(
        core.open_recent("My Project").as_deref(),
        Some("My Project")
    );
    core.configure(ApiConfig {
        api_base: "/api".into(),
        ..ApiConfig::default()
    });
    open(&core, "My Project");
    assert_eq!(
        fake(&core).requests.borrow()[0].url,
        "/api/projects/My%20Project/assets?limit=100"
    );
}

#[test]
fn the_library_is_searched_sorted_and_deleted_from_with_the_tick_cleared() {
    let core = studio();
    open(&core, "p1");
    create(&core, "local-1:task_a", "2026-11-21T10:00:00.000Z");
    script(
        &core,
        ok(
            json!({"sora_job_id": "local-1:task_a", "status": "done", "progress": 100, "preview_url": "http://h/p.mp4"}),
        ),
    );
    block_on(core.check_job("local-1:task_a")).unwrap();
    script(
        &core,
        ok(json!({"r2_key": "projects/p1/local-1:task_a.mp4"})),
    );
    script(
        &core,
        ok(json!({"videos": [
            {"key": "projects/p1/local-1:task_a.mp4", "size_bytes": 10, "last_modified": "2026-11-21T10:03:00Z", "public_url": "http://h/a.mp4", "poster_url": "http://h/a.jpg", "prompt": "A Red Kite over hills"},
            {"key": "projects/p1/b.mp4", "size_bytes": 30, "last_modified": "2026-11-21T10:02:00Z", "public_url": "http://h/b.mp4"},
            {"key": "projects/p1/c.mp4", "size_bytes": 20, "last_modified": "2026-11-21T10:01:00Z", "public_url": "http://h/c.mp4", "prompt": "blue sea"}
        ]})),
    );
    block_on(core.save_job("local-1:task_a")).unwrap();
    assert!(core.snapshot().jobs.items[0].saved_as.is_some());
    assert_eq!(
        library_names(&core),
        ["local-1:task_a.mp4", "b.mp4", "c.mp4"]
    );
    let first = &core.library_view().assets[0];
    assert_eq!(first.poster_url.as_deref(), Some("http://h/a.jpg"));
    assert_eq!(first.download_name, "A-Red-Kite-over-hills.mp4");

    let before = core.part_version(Part::Library);
    core.search_library("KITE");
    assert_eq!(
        library_names(&core),
        ["local-1:task_a.mp4"],
        "by prompt, any case"
    );
    assert_eq!(core.library_view().total, 3);
    core.search_library("KITE");
    assert_eq!(
        core.part_version(Part::Library),
        before + 1,
        "no change, no version"
    );
    core.search_library("b.mp4");
    assert_eq!(library_names(&core), ["b.mp4"], "by file name");
    core.search_library("");
    core.sort_library(studio_core::snapshot::LibrarySort::Largest);
    assert_eq!(
        library_names(&core),
        ["b.mp4", "c.mp4", "local-1:task_a.mp4"]
    );
    core.sort_library(studio_core::snapshot::LibrarySort::Oldest);
    assert_eq!(
        library_names(&core),
        ["c.mp4", "b.mp4", "local-1:task_a.mp4"]
    );

    script(&core, status(500, "Internal Server Error"));
    let error = block_on(core.delete_asset("projects/p1/local-1:task_a.mp4")).unwrap_err();
    assert_eq!(error.code(), "api");
    assert_eq!(
        core.snapshot().banner.unwrap().message,
        "Failed to delete video from library"
    );
    assert_eq!(core.library_view().total, 3, "nothing lost on failure");

    script(
        &core,
        Ok(HttpResponse {
            status: 204,
            status_text: "No Content".into(),
            body: String::new(),
        }),
    );
    block_on(core.delete_asset("projects/p1/local-1:task_a.mp4")).unwrap();
    let request = fake(&core).requests.borrow().last().unwrap().clone();
    assert_eq!(
        (request.method, request.url.as_str()),
        (
            "DELETE",
            "http://h/api/projects/p1/assets/local-1%3Atask_a.mp4"
        )
    );
    assert_eq!(library_names(&core), ["c.mp4", "b.mp4"]);
    assert!(core.snapshot().banner.is_none());
    let job = &core.snapshot().jobs.items[0];
    assert!(
        job.saved_as.is_none() && job.can_save,
        "the tick is cleared: it can be saved again"
    );
    assert_eq!(
        stored(&core, "jobs:p1").unwrap()[0]["final_r2_key"],
        Value::Null
    );
    assert_eq!(
        block_on(core.delete_asset("projects/p1/none.mp4"))
            .unwrap_err()
            .code(),
        "unknown-asset"
    );
}

#[test]
fn the_cards_view_holds_only_the_grids_window_of_the_matching_videos() {
    let core = studio();
    core.enter_project("p1");
    let videos: Vec<Value> = (0..250)
        .map(|n| json!({"key": format!("projects/p1/v{n}.mp4"), "size_bytes": n, "last_modified": "2026-11-21T10:03:00Z", "public_url": "u", "prompt": if n % 50 == 0 { "a kite" } else { "the sea" }}))
        .collect();
    script(&core, ok(json!({ "videos": videos })));
    block_on(core.load_assets()).unwrap();
    let names = |assets: &[studio_core::snapshot::AssetView]| -> Vec<String> {
        assets.iter().map(|a| a.file_name.clone()).collect()
    };
    let all = core.library_view();
    assert_eq!((all.assets.len(), all.matching, all.first), (250, 250, 0));
    let cards = core.cards_view();
    assert_eq!(
        (cards.assets.len(), cards.matching, cards.first),
        (100, 250, 0),
        "the first page until the grid asks"
    );

    let (library, before) = (
        core.part_version(Part::Library),
        core.part_version(Part::Cards),
    );
    core.show_library_cards(120, 150);
    let cards = core.cards_view();
    assert_eq!((cards.first, cards.matching, cards.total), (120, 250, 250));
    assert_eq!(names(&cards.assets), names(&all.assets[120..150]));
    assert!(core.part_version(Part::Cards) > before);
    assert_eq!(
        core.part_version(Part::Library),
        library,
        "moving the window changes nothing in the library"
    );
    let moved = core.part_version(Part::Cards);
    core.show_library_cards(120, 150);
    assert_eq!(
        core.part_version(Part::Cards),
        moved,
        "the same window, no version"
    );

    core.search_library("kite");
    assert!(
        core.part_version(Part::Cards) > moved,
        "the library's changes are the cards' too"
    );
    let cards = core.cards_view();
    assert_eq!(
        (cards.matching, cards.first, cards.assets.len()),
        (5, 5, 0),
        "a window past the matches holds none"
    );
    core.show_library_cards(0, 40);
    assert_eq!(
        names(&core.cards_view().assets),
        ["v0.mp4", "v50.mp4", "v100.mp4", "v150.mp4", "v200.mp4"]
    );
    core.sort_library(studio_core::snapshot::LibrarySort::Largest);
    core.show_library_cards(1, 3);
    assert_eq!(
        names(&core.cards_view().assets),
        ["v150.mp4", "v100.mp4"],
        "positions in the chosen order"
    );

    core.leave_project();
    core.enter_project("p1");
    script(&core, ok(json!({ "videos": videos })));
    block_on(core.load_assets()).unwrap();
    let cards = core.cards_view();
    assert_eq!(
        (cards.first, cards.assets.len()),
        (0, 100),
        "a project entered again starts at the first page"
    );
}

#[test]
fn a_big_library_shows_a_first_page_then_the_rest_and_reloads_whole() {
    let core = studio();
    core.enter_project("p1");
    let video = |name: &str| json!({"key": format!("projects/p1/{name}.mp4"), "size_bytes": 1, "last_modified": "2026-11-21T10:03:00Z", "public_url": "u"});
    script(
        &core,
        ok(json!({"videos": [video("a")], "total": 3, "next_cursor": "1795255380~a.mp4"})),
    );
    script(
        &core,
        ok(json!({"videos": [video("b"), video("c")], "total": 3})),
    );
    assert_eq!(block_on(core.load_assets()).unwrap(), 3);
    let urls: Vec<String> = fake(&core)
        .requests
        .borrow()
        .iter()
        .map(|r| r.url.clone())
        .collect();
    assert_eq!(
        urls,
        [
            "http://h/api/projects/p1/assets?limit=100",
            "http://h/api/projects/p1/assets?cursor=1795255380~a.mp4"
        ]
    );
    let view = core.library_view();
    assert_eq!((view.total, view.assets.len()), (3, 3));

    script(&core, ok(json!({"videos": [video("a"), video("b")]})));
    assert_eq!(block_on(core.load_assets()).unwrap(), 2);
    assert_eq!(
        fake(&core).requests.borrow().last().unwrap().url,
        "http://h/api/projects/p1/assets",
        "a reload asks for the whole list at once"
    );

    // The rest failing keeps the first page and says so.
    core.leave_project();
    core.enter_project("p2");
    script(
        &core,
        ok(json!({"videos": [video("a")], "total": 3, "next_cursor": "1~a.mp4"})),
    );
    script(&core, status(500, "Internal Server Error"));
    assert!(block_on(core.load_assets()).is_err());
    let view = core.library_view();
    assert_eq!((view.total, view.assets.len()), (1, 1));
    assert_eq!(
        core.snapshot().banner.unwrap().message,
        "Failed to load assets"
    );
}

#[test]
fn what_is_typed_while_a_job_is_created_is_kept() {
    let core = studio();
    open(&core, "p1");
    core.set_draft("the first prompt");
    script(
        &core,
        ok(json!({"sora_job_id": "m:task_1", "status": "queued"})),
    );
    fake(&core).hold.set(true);
    // The create waits for its answer; meanwhile the user types the next prompt.
    let typing = async { core.set_draft("the next prompt") };
    let (created, ()) = block_on(futures::future::join(core.create_job(None), typing));
    assert_eq!(created.unwrap().prompt, "the first prompt");
    assert_eq!(core.snapshot().console.draft, "the next prompt");
}

fn reference(id: &str, width: u32, height: u32) -> Value {
    json!({"id": id, "width": width, "height": height, "content_type": "image/png",
           "size_bytes": 10, "created_at": "2026-11-25T00:00:00Z", "source": null,
           "url": format!("http://h/media/{id}.png")})
}

/// Opens p1 with local-1 (every input) and sora-2 (none) offered, and two references.
fn open_shot(core: &Core<Fake>) {
    core.configure(ApiConfig {
        api_base: "http://h/api/".into(),
        token: "t0k".into(),
        models: vec!["local-1".into(), "sora-2".into()],
    });
    open(core, "p1");
    script(
        core,
        ok(json!({"models": [
            {"id": "local-1", "inputs": {"first_frame": true, "last_frame": true, "references": 4, "extend": true, "remix": true}},
            {"id": "sora-2", "inputs": {"first_frame": false, "last_frame": false, "references": 0, "extend": false, "remix": false}}
        ]})),
    );
    script(
        core,
        ok(json!({"references": [reference("ref_b", 1000, 1000), reference("ref_a", 1280, 720)]})),
    );
    script(core, ok(json!({"cast": []})));
    assert_eq!(block_on(core.load_shot()).unwrap(), 2);
}

#[test]
fn a_job_is_made_from_the_attached_pictures_then_they_are_cleared() {
    let core = studio();
    open_shot(&core);
    let shot = core.shot_view();
    assert_eq!(shot.references.len(), 2);
    assert_eq!(shot.roles.len(), 3);
    assert!(shot.can_extend && shot.can_remix);
    core.set_role("ref_a", Some(ImageRole::FirstFrame)).unwrap();
    assert_eq!(core.shot_view().fit_note, None, "the same shape as the job");
    core.set_role("ref_b", Some(ImageRole::LastFrame)).unwrap();
    assert!(core.shot_view().fit_note.unwrap().contains("centre crop"));
    core.set_fit(Fit::Pad);
    core.use_video("a.mp4", VideoRole::Extend).unwrap();
    script(
        &core,
        ok(json!({"sora_job_id": "local-1:task_1", "status": "queued"})),
    );
    block_on(core.create_job(Some("the kite lands"))).unwrap();
    let sent = last_body(&core);
    assert_eq!(
        sent,
        json!({"prompt": "the kite lands", "fit": "pad", "inputs": [
            {"reference": "ref_a", "role": "first_frame"},
            {"reference": "ref_b", "role": "last_frame"},
            {"video": "a.mp4", "role": "extend"}
        ]})
    );
    let shot = core.shot_view();
    assert!(
        shot.references.iter().all(|r| r.role.is_none()),
        "roles cleared"
    );
    assert_eq!(shot.video, None);
    assert_eq!(shot.references.len(), 2, "the strip stays");
}

#[test]
fn roles_follow_the_chosen_model() {
    let core = studio();
    open_shot(&core);
    core.set_role("ref_a", Some(ImageRole::Reference)).unwrap();
    core.set_model("sora-2").unwrap();
    let shot = core.shot_view();
    assert!(shot.roles.is_empty());
    assert!(shot.references.iter().all(|r| r.role.is_none()), "dropped");
    let err = core
        .set_role("ref_a", Some(ImageRole::FirstFrame))
        .unwrap_err();
    assert_eq!(err.to_string(), "sora-2 does not take a first frame");
    assert!(core.use_video("a.mp4", VideoRole::Remix).is_err());
    assert!(matches!(
        core.set_role("ref_zzz", None),
        Err(CoreError::UnknownReference(_))
    ));
}

/// Fails on refusing an upload while one is in flight: three pictures chosen at once made one
/// reference, and the two others were dropped without a word.
#[test]
fn pictures_chosen_at_once_are_all_added_one_after_another() {
    let core = studio();
    open_shot(&core);
    fake(&core).hold.set(true);
    for id in ["ref_1", "ref_2", "ref_3"] {
        script(&core, ok(reference(id, 64, 64)));
    }
    let sent = fake(&core).requests.borrow().len();
    let uploads = futures::future::join3(
        core.upload_reference(vec![1], "image/png"),
        core.upload_reference(vec![2], "image/png"),
        core.upload_reference(vec![3], "image/png"),
    );
    let (a, b, c) = block_on(uploads);
    assert_eq!(
        [a.unwrap(), b.unwrap(), c.unwrap()],
        ["ref_1", "ref_2", "ref_3"]
    );
    let bodies: Vec<Option<Body>> = fake(&core).requests.borrow()[sent..]
        .iter()
        .map(|r| r.body.clone())
        .collect();
    let file = |byte| {
        Some(Body::File {
            bytes: vec![byte],
            content_type: "image/png".into(),
        })
    };
    assert_eq!(bodies, [file(1), file(2), file(3)], "in the order chosen");
    let view = core.shot_view();
    let newest: Vec<&str> = view.references[..3].iter().map(|r| r.id.as_str()).collect();
    assert_eq!(newest, ["ref_3", "ref_2", "ref_1"], "newest first");
    assert!(!view.adding);
}

#[test]
fn uploads_send_the_bytes_and_a_refusal_names_the_limit() {
    let core = studio();
    open_shot(&core);
    script(&core, ok(reference("ref_c", 64, 64)));
    let id = block_on(core.upload_reference(vec![0x89, b'P'], "image/png")).unwrap();
    assert_eq!(id, "ref_c");
    let request = fake(&core).requests.borrow().last().unwrap().clone();
    assert_eq!(request.url, "http://h/api/projects/p1/references");
    assert_eq!(
        request.body,
        Some(Body::File {
            bytes: vec![0x89, b'P'],
            content_type: "image/png".into()
        })
    );
    assert_eq!(core.shot_view().references[0].id, "ref_c", "newest first");
    script(
        &core,
        Ok(HttpResponse {
            status: 422,
            status_text: "Unprocessable Entity".into(),
            body: r#"{"error":{"code":"invalid","message":"each side must be at most 8192 px"}}"#
                .into(),
        }),
    );
    let err = block_on(core.grab_frame("a.mp4", json!("last"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Failed to add reference image: each side must be at most 8192 px"
    );
    let banner = core.snapshot().banner.unwrap();
    assert_eq!(banner.message, "Failed to update reference images");
    assert!(block_on(core.grab_frame("a.mp4", json!("middle"))).is_err());
    assert!(!core.shot_view().adding);
}

#[test]
fn takes_are_made_in_one_request_and_shown_together_as_one_shot() {
    let core = studio();
    open(&core, "p1");
    create(&core, "m:task_old", "2026-11-21T10:00:00.000Z");
    assert_eq!(core.snapshot().console.takes, 1);
    for bad in [0, 9] {
        assert_eq!(core.set_takes(bad).unwrap_err().code(), "refused");
    }
    core.set_takes(3).unwrap();
    assert_eq!(core.snapshot().console.takes, 3);
    *fake(&core).now.borrow_mut() = "2026-11-21T10:05:00.000Z".into();
    let take = |n: u32| {
        json!({"sora_job_id": format!("m:task_t{n}"), "status": "queued", "seed": 40 + n,
               "take": {"shot": "m:task_t1", "index": n, "count": 3}})
    };
    script(&core, ok(json!({"takes": [take(1), take(2), take(3)]})));
    core.set_draft("a lighthouse");
    let first = block_on(core.create_job(None)).unwrap();
    assert_eq!(first.sora_job_id, "m:task_t1");
    let request = fake(&core).requests.borrow().last().unwrap().clone();
    assert!(
        request.url.ends_with("/api/projects/p1/takes"),
        "{}",
        request.url
    );
    assert_eq!(
        last_body(&core),
        json!({"prompt": "a lighthouse", "count": 3})
    );
    let items = core.snapshot().jobs.items;
    let shown: Vec<(&str, Option<u32>)> = items
        .iter()
        .map(|j| (j.id.as_str(), j.take.as_ref().map(|t| t.index)))
        .collect();
    assert_eq!(
        shown,
        [
            ("m:task_t1", Some(1)),
            ("m:task_t2", Some(2)),
            ("m:task_t3", Some(3)),
            ("m:task_old", None)
        ]
    );
    assert!(items[..3]
        .iter()
        .all(|j| j.take.as_ref().unwrap().shot == "m:task_t1"));
    // One take again: the plain route.
    core.set_takes(1).unwrap();
    script(
        &core,
        ok(json!({"sora_job_id": "m:task_one", "status": "queued"})),
    );
    block_on(core.create_job(Some("a boat"))).unwrap();
    let request = fake(&core).requests.borrow().last().unwrap().clone();
    assert!(request.url.ends_with("/api/projects/p1/jobs"));
}

#[test]
fn a_video_is_starred_and_approved_and_the_chips_filter_by_pick() {
    let core = studio();
    core.enter_project("p1");
    let video = |name: &str, favourite: bool, decision: Value| {
        json!({"key": format!("projects/p1/{name}.mp4"), "size_bytes": 1,
               "last_modified": "2026-11-21T10:03:00Z", "public_url": "u",
               "favourite": favourite, "decision": decision})
    };
    script(
        &core,
        ok(
            json!({"videos": [video("a", false, Value::Null), video("b", true, json!("rejected"))], "total": 2}),
        ),
    );
    block_on(core.load_assets()).unwrap();
    let shown = |core: &Core<Fake>| -> Vec<(String, bool, Option<String>)> {
        core.library_view()
            .assets
            .into_iter()
            .map(|a| (a.file_name, a.favourite, a.decision))
            .collect()
    };
    assert_eq!(
        shown(&core),
        [
            ("a.mp4".into(), false, None),
            ("b.mp4".into(), true, Some("rejected".into()))
        ]
    );
    script(&core, ok(video("a", true, json!("approved"))));
    block_on(core.pick_asset(
        "projects/p1/a.mp4",
        None,
        Some(Some(studio_core::asset::Decision::Approved)),
    ))
    .unwrap();
    let request = fake(&core).requests.borrow().last().unwrap().clone();
    assert_eq!(
        (request.method, request.url.as_str()),
        ("PATCH", "http://h/api/projects/p1/assets/a.mp4")
    );
    assert_eq!(last_body(&core), json!({"decision": "approved"}));
    assert_eq!(
        shown(&core)[0],
        ("a.mp4".into(), true, Some("approved".into()))
    );

    core.filter_library(PickFilter::Approved);
    assert_eq!(core.library_view().filter, PickFilter::Approved);
    assert_eq!(shown(&core).len(), 1);
    core.filter_library(PickFilter::Rejected);
    assert_eq!(shown(&core)[0].0, "b.mp4");
    core.filter_library(PickFilter::Favourites);
    assert_eq!(shown(&core).len(), 2);

    script(&core, status(500, "Internal Server Error"));
    let error = block_on(core.pick_asset("projects/p1/b.mp4", Some(false), None)).unwrap_err();
    assert_eq!(error.code(), "api");
    assert_eq!(
        core.snapshot().banner.unwrap().message,
        "Failed to mark video"
    );
    assert!(shown(&core)[1].1, "unchanged on failure");
    assert_eq!(
        block_on(core.pick_asset("projects/p1/none.mp4", Some(true), None))
            .unwrap_err()
            .code(),
        "unknown-asset"
    );
}

#[test]
fn two_to_four_videos_are_chosen_and_compared() {
    let core = studio();
    core.enter_project("p1");
    let video = |name: &str| {
        json!({"key": format!("projects/p1/{name}.mp4"), "size_bytes": 1,
               "last_modified": "2026-11-21T10:03:00Z", "public_url": format!("http://h/{name}.mp4")})
    };
    let videos: Vec<Value> = ["a", "b", "c", "d", "e"].map(video).into();
    script(&core, ok(json!({"videos": videos, "total": 5})));
    block_on(core.load_assets()).unwrap();
    create(&core, "m:task_running", "2026-11-21T10:00:00.000Z");
    assert_eq!(
        core.toggle_compare("m:task_running").unwrap_err().code(),
        "not-allowed"
    );
    assert_eq!(
        core.toggle_compare("nothing").unwrap_err().code(),
        "unknown-job"
    );
    core.toggle_compare("projects/p1/a.mp4").unwrap();
    assert_eq!(core.open_compare().unwrap_err().code(), "refused");
    for name in ["b", "c", "d"] {
        core.toggle_compare(&format!("projects/p1/{name}.mp4"))
            .unwrap();
    }
    assert_eq!(
        core.toggle_compare("projects/p1/e.mp4").unwrap_err().code(),
        "refused",
        "at most four"
    );
    core.open_compare().unwrap();
    let view = core.snapshot().compare;
    assert!(view.open && view.can_open);
    assert_eq!(
        view.chosen
            .iter()
            .map(|i| i.url.as_str())
            .collect::<Vec<_>>(),
        [
            "http://h/a.mp4",
            "http://h/b.mp4",
            "http://h/c.mp4",
            "http://h/d.mp4"
        ]
    );
    // Taking all but one out closes it; a new project forgets the choice.
    for name in ["b", "c", "d"] {
        core.toggle_compare(&format!("projects/p1/{name}.mp4"))
            .unwrap();
    }
    assert!(!core.snapshot().compare.open);
    core.enter_project("p2");
    assert!(core.snapshot().compare.chosen.is_empty());
}

#[test]
fn selected_videos_become_a_link_whose_notes_arrive_by_the_stream() {
    let core = studio();
    core.enter_project("p1");
    let video = |name: &str| {
        json!({"key": format!("projects/p1/{name}.mp4"), "size_bytes": 1,
               "last_modified": "2026-11-21T10:03:00Z", "public_url": "u"})
    };
    script(
        &core,
        ok(json!({"videos": [video("a"), video("b")], "total": 2})),
    );
    block_on(core.load_assets()).unwrap();
    assert_eq!(
        block_on(core.share_selected(72, true, None))
            .unwrap_err()
            .code(),
        "refused",
        "nothing selected"
    );
    core.toggle_select("projects/p1/a.mp4").unwrap();
    core.toggle_select("projects/p1/b.mp4").unwrap();
    core.toggle_select("projects/p1/b.mp4").unwrap();
    assert_eq!(
        core.toggle_select("projects/p1/none.mp4")
            .unwrap_err()
            .code(),
        "unknown-asset"
    );
    assert_eq!(core.shares_view().selected, ["projects/p1/a.mp4"]);

    let share = json!({"id": "s1", "videos": ["a.mp4"], "comments_enabled": true,
        "created_at": "2026-11-21T10:05:00Z", "expires_at": "2026-11-24T10:05:00Z",
        "expired": false, "comments": [], "decisions": []});
    script(&core, Ok(HttpResponse { status: 201, status_text: "Created".into(),
        body: json!({"id": "s1", "url": "http://h/review/tok", "expires_at": "2026-11-24T10:05:00Z"}).to_string() }));
    script(&core, ok(json!({"shares": [share]})));
    let created = block_on(core.share_selected(72, false, Some("  Kite, cut 2 "))).unwrap();
    assert_eq!(created.url, "http://h/review/tok");
    let requests = fake(&core).requests.borrow().clone();
    let post = &requests[requests.len() - 2];
    assert_eq!(
        (post.method, post.url.as_str()),
        ("POST", "http://h/api/projects/p1/shares")
    );
    assert_eq!(
        serde_json::from_str::<Value>(post.json().unwrap()).unwrap(),
        json!({"videos": ["a.mp4"], "expires_in_hours": 72, "comments": false, "title": "Kite, cut 2"})
    );
    let view = core.shares_view();
    assert!(view.selected.is_empty());
    assert_eq!(view.links.len(), 1);
    assert_eq!(view.created.unwrap().url, "http://h/review/tok");

    script(&core, ok(json!(null)));
    // The links are read again when the stream opens: notes are not replayed.
    script(&core, ok(json!({"shares": [share.clone()]})));
    *fake(&core).pieces.borrow_mut() = [
        "event: review\ndata: {\"share_id\":\"s1\",\"note\":{\"kind\":\"comment\",\"id\":\"n1\",\"video\":\"a.mp4\",\"at_seconds\":1.26,\"name\":\"Ana\",\"text\":\"<img src=x>\",\"created_at\":\"2026-11-21T10:06:00Z\"}}\n\n",
        "event: review\ndata: {\"share_id\":\"s1\",\"note\":{\"kind\":\"decision\",\"id\":\"n2\",\"video\":\"a.mp4\",\"decision\":\"approved\",\"name\":\"Ana\",\"created_at\":\"2026-11-21T10:07:00Z\"}}\n\n",
        "event: pick\ndata: {\"file_name\":\"b.mp4\",\"favourite\":true,\"decision\":\"approved\"}\n\n",
    ]
    .map(|p| Ok(p.to_owned()))
    .into();
    block_on(core.follow_changes()).unwrap();
    let view = core.shares_view();
    let notes = &view.by_video["a.mp4"];
    assert_eq!(notes.comments[0].text, "<img src=x>");
    assert_eq!(notes.comments[0].at_label, "0:01.3");
    assert_eq!(notes.decisions[0].label, "Approved");
    assert_eq!(view.links[0].notes.comments.len(), 1);
    let b = &core.library_view().assets[1];
    assert_eq!(
        (b.favourite, b.decision.as_deref()),
        (true, Some("approved"))
    );

    script(&core, status(500, "Internal Server Error"));
    assert!(block_on(core.revoke_share("s1")).is_err());
    assert_eq!(
        core.snapshot().banner.unwrap().message,
        "Failed to revoke review link"
    );
    script(
        &core,
        Ok(HttpResponse {
            status: 204,
            status_text: "No Content".into(),
            body: String::new(),
        }),
    );
    block_on(core.revoke_share("s1")).unwrap();
    assert!(core.shares_view().links.is_empty());
    assert_eq!(
        block_on(core.revoke_share("s1")).unwrap_err().code(),
        "unknown-name"
    );
}

/// The client id the last post before the page's reload carried.
fn client_of_post(core: &ReviewSession<Fake>) -> String {
    let requests = core.platform().requests.borrow();
    let post = &requests[requests.len() - 2];
    let body: Value = serde_json::from_str(post.json().unwrap()).unwrap();
    body["client_id"].as_str().unwrap().to_owned()
}

#[test]
fn a_review_link_opens_without_the_bearer_and_takes_notes() {
    let told = std::rc::Rc::new(Cell::new(0u32));
    let counted = told.clone();
    let core = ReviewSession::new(
        Fake::default(),
        "http://h/api/",
        Box::new(move || counted.set(counted.get() + 1)),
    );
    let answer = |with| core.platform().answers.borrow_mut().push_back(with);
    let page = json!({"videos": [{"file_name": "m:task_a.mp4", "public_url": "http://h/media/a.mp4",
        "poster_url": "http://h/media/a.jpg", "comments": [], "decisions": []}],
        "expires_at": "2026-11-24T10:05:00Z", "comments_enabled": true});
    answer(ok(page.clone()));
    assert_eq!(block_on(core.open("tok")).unwrap(), 1);
    let request = core.platform().requests.borrow().last().unwrap().clone();
    assert_eq!(request.url, "http://h/api/review/tok");
    assert_eq!(request.bearer, None, "a review asks no bearer");
    let view = core.view();
    assert!(
        told.get() >= 2,
        "the page is told of the loading and of the answer"
    );
    assert_eq!(view.state, studio_core::snapshot::ReviewState::Ready);
    assert_eq!(view.videos[0].title, "a", "without a prompt, its id");
    assert_eq!(view.title, None);

    // A titled link, and a video named by what it shows: its id stays beside it.
    let mut titled = page.clone();
    titled["title"] = json!("Heron spot, cut 2");
    titled["videos"][0]["title"] = json!("a heron lifting off");
    answer(ok(titled));
    block_on(core.open("tok")).unwrap();
    let view = core.view();
    assert_eq!(view.title.as_deref(), Some("Heron spot, cut 2"));
    assert_eq!(
        (view.videos[0].title.as_str(), view.videos[0].id.as_str()),
        ("a heron lifting off", "a")
    );
    answer(ok(page.clone()));
    block_on(core.open("tok")).unwrap();

    let mut answered = page.clone();
    answered["videos"][0]["comments"] = json!([{"id": "n1", "video": "m:task_a.mp4",
        "at_seconds": 2.0, "name": "Ana", "text": "warmer", "created_at": "2026-11-21T10:06:00Z"}]);
    answer(Ok(HttpResponse {
        status: 201,
        status_text: "Created".into(),
        body: "{}".into(),
    }));
    answer(ok(answered));
    block_on(core.post_comment("m:task_a.mp4", 2.0, " Ana ", "warmer")).unwrap();
    let requests = core.platform().requests.borrow().clone();
    let post = &requests[requests.len() - 2];
    assert_eq!(post.url, "http://h/api/review/tok/comments");
    assert_eq!(post.bearer, None);
    assert_eq!(
        serde_json::from_str::<Value>(post.json().unwrap()).unwrap(),
        json!({"video": "m:task_a.mp4", "at_seconds": 2.0, "name": "Ana", "text": "warmer",
               "client_id": format!("{:024x}", 1)})
    );
    let view = core.view();
    assert_eq!(view.name, "Ana");
    assert_eq!(view.videos[0].notes.comments[0].at_label, "0:02.0");

    answer(Ok(HttpResponse {
        status: 422,
        status_text: "Unprocessable Entity".into(),
        body: r#"{"error":{"code":"invalid","message":"name must be 1 to 80 characters"}}"#.into(),
    }));
    assert!(block_on(core.post_decision(
        "m:task_a.mp4",
        studio_core::review::Verdict::Approved,
        "x"
    ))
    .is_err());
    assert_eq!(
        core.view().error.as_deref(),
        Some("Failed to send: name must be 1 to 80 characters")
    );

    // A post whose answer was lost is sent again with the same client id, so the server keeps
    // it once; a new post goes with a new one.
    let client_of = |core: &ReviewSession<Fake>| {
        let requests = core.platform().requests.borrow();
        let body: Value = serde_json::from_str(requests.last().unwrap().json().unwrap()).unwrap();
        body["client_id"].as_str().unwrap().to_owned()
    };
    answer(Err("Failed to fetch".into()));
    assert!(block_on(core.post_comment("m:task_a.mp4", 3.0, "Ana", "cooler")).is_err());
    let lost = client_of(&core);
    answer(Ok(HttpResponse {
        status: 200,
        status_text: "OK".into(),
        body: "{}".into(),
    }));
    answer(ok(page.clone()));
    block_on(core.post_comment("m:task_a.mp4", 3.5, "Ana", "cooler")).unwrap();
    assert_eq!(client_of_post(&core), lost, "the same post, the same id");
    answer(Ok(HttpResponse {
        status: 201,
        status_text: "Created".into(),
        body: "{}".into(),
    }));
    answer(ok(page.clone()));
    block_on(core.post_comment("m:task_a.mp4", 3.5, "Ana", "cooler")).unwrap();
    assert_ne!(
        client_of_post(&core),
        lost,
        "kept: the next post is a new one"
    );

    // A post on a link revoked meanwhile: the page says the link is gone (and shows no form).
    answer(Ok(HttpResponse {
        status: 404,
        status_text: "Not Found".into(),
        body: r#"{"error":{"code":"not_found","message":"This review link is not valid"}}"#.into(),
    }));
    assert!(block_on(core.post_comment("m:task_a.mp4", 1.0, "Ana", "late")).is_err());
    assert_eq!(core.view().state, studio_core::snapshot::ReviewState::Gone);

    answer(Ok(HttpResponse {
        status: 404,
        status_text: "Not Found".into(),
        body: r#"{"error":{"code":"not_found","message":"This review link is not valid"}}"#.into(),
    }));
    assert!(block_on(core.open("tok")).is_err());
    let view = core.view();
    assert_eq!(view.state, studio_core::snapshot::ReviewState::Gone);
    assert_eq!(view.error.as_deref(), Some("This review link is not valid"));
}

#[test]
fn the_selected_videos_download_as_one_zip() {
    let core = studio();
    core.enter_project("p1");
    let video = |name: &str| {
        json!({"key": format!("projects/p1/{name}.mp4"), "size_bytes": 1,
               "last_modified": "2026-11-21T10:03:00Z", "public_url": "u"})
    };
    script(
        &core,
        ok(json!({"videos": [video("m:task_a"), video("b")], "total": 2})),
    );
    block_on(core.load_assets()).unwrap();
    assert_eq!(
        block_on(core.download_selected()).unwrap_err().code(),
        "refused"
    );
    core.toggle_select("projects/p1/m:task_a.mp4").unwrap();
    core.toggle_select("projects/p1/b.mp4").unwrap();
    // The ZIP is the browser's own download: the page asks for a ticket and hands the
    // browser its address, instead of holding the whole archive first.
    fake(&core).hold.set(true);
    script(&core, ok(json!({"ticket": "T.s", "expires_in_s": 300})));
    let first = core.download_selected();
    let mut first = std::pin::pin!(first);
    let waker = futures::task::noop_waker();
    assert!(first
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    assert_eq!(
        block_on(core.download_selected()).unwrap_err().code(),
        "busy",
        "a second click while the first is asked for"
    );
    assert_eq!(block_on(first).unwrap(), 2);
    fake(&core).hold.set(false);
    let request = fake(&core).requests.borrow().last().unwrap().clone();
    assert_eq!(
        (request.method, request.url.as_str()),
        ("POST", "http://h/api/projects/p1/downloads")
    );
    assert_eq!(
        last_body(&core),
        json!({"names": ["m:task_a.mp4", "b.mp4"]})
    );
    assert_eq!(request.bearer.as_deref(), Some("t0k"));
    assert_eq!(
        *fake(&core).downloads.borrow(),
        [(
            "http://h/api/downloads/T.s".to_owned(),
            "p1-videos.zip".to_owned()
        )]
    );
    script(&core, status(413, "Payload Too Large"));
    assert!(block_on(core.download_selected()).is_err());
    assert_eq!(
        core.snapshot().banner.unwrap().message,
        "Failed to download videos"
    );
}

#[test]
fn generate_shows_its_price_and_asks_above_the_threshold() {
    let core = studio();
    core.configure(ApiConfig {
        api_base: "http://h/api".into(),
        token: "t0k".into(),
        models: vec!["local-1".into(), "veo".into()],
    });
    core.enter_project("p1");
    script(
        &core,
        ok(json!({"models": [
            {"id": "local-1", "seconds": 10, "size": "1280x720", "price": {"usd_per_second": 0.0}},
            {"id": "veo", "seconds": 8, "size": "1920x1080",
             "price": {"by_resolution": {"720p": 0.10, "1080p": 0.12}, "seen": "2026-04-07"}}
        ]})),
    );
    script(&core, ok(json!({"references": []})));
    script(&core, ok(json!({"cast": []})));
    block_on(core.load_shot()).unwrap();
    let view = core.console_view();
    assert_eq!(
        (view.estimate, view.confirm),
        (None, false),
        "the free engine shows no price"
    );
    core.set_model("veo").unwrap();
    assert_eq!(core.console_view().estimate.as_deref(), Some("$0.96"));
    core.set_takes(8).unwrap();
    let view = core.console_view();
    assert_eq!(
        (view.estimate.as_deref(), view.confirm),
        (Some("$7.68"), true)
    );
    core.set_confirm_above(10.0).unwrap();
    assert!(!core.console_view().confirm);
    assert_eq!(core.set_confirm_above(-1.0).unwrap_err().code(), "refused");
    core.set_takes(1).unwrap();
    assert_eq!(core.console_view().default_seconds, Some(8));
    core.set_seconds(Some(4)).unwrap();
    let view = core.console_view();
    assert_eq!(
        (view.seconds, view.estimate.as_deref()),
        (Some(4), Some("$0.48"))
    );
    assert_eq!(core.set_seconds(Some(21)).unwrap_err().code(), "refused");
    core.set_seconds(None).unwrap();
    assert_eq!(core.console_view().estimate.as_deref(), Some("$0.96"));
    assert_eq!(
        core.console_view().default_size.as_deref(),
        Some("1920x1080")
    );
    core.set_size(Some("1280x720")).unwrap();
    assert_eq!(core.console_view().estimate.as_deref(), Some("$0.80"));
    for bad in ["1280", "1281x720", "4096x2160", "axb"] {
        assert_eq!(core.set_size(Some(bad)).unwrap_err().code(), "refused");
    }
}

#[test]
fn a_create_over_budget_shows_the_figures_in_the_banner() {
    let core = studio();
    core.enter_project("p1");
    core.set_draft("a kite");
    script(
        &core,
        Ok(HttpResponse {
            status: 402,
            status_text: "Payment Required".into(),
            body: json!({"error": {"code": "over_budget", "message": "m"},
                "cap_usd": 1.0, "committed_usd": 0.9, "estimate_usd": 0.2})
            .to_string(),
        }),
    );
    let error = block_on(core.create_job(None)).unwrap_err();
    assert_eq!(error.code(), "over-budget");
    let banner = core.snapshot().banner.unwrap();
    assert_eq!(banner.message, "Failed to create generation job");
    assert_eq!(
        banner.detail.as_deref(),
        Some("Over budget: $0.90 of the monthly $1.00 is committed, and this would cost $0.20")
    );
    assert_eq!(core.console_view().draft, "a kite", "the prompt is kept");
}

#[test]
fn the_spend_panel_reads_the_month_against_the_cap() {
    let core = studio();
    core.enter_project("p1");
    script(
        &core,
        ok(
            json!({"total_usd": 1.5, "cap_usd": 4.0, "committed_usd": 2.0,
            "by_day": [{"date": "2026-11-24", "usd": 0.5}, {"date": "2026-11-25", "usd": 1.0}],
            "by_model": [{"model": "veo", "usd": 1.5, "seconds": 16, "jobs": 2}]}),
        ),
    );
    block_on(core.open_spend()).unwrap();
    let view = core.spend_view();
    assert!(view.open && view.loaded && !view.loading);
    assert_eq!(
        (view.total_label.as_str(), view.committed_label.as_str()),
        ("$1.50", "$2.00")
    );
    assert_eq!(
        (view.cap_label.as_deref(), view.used),
        (Some("$4.00"), Some(0.5))
    );
    assert_eq!(view.days[0].height, 0.5);
    assert_eq!(view.days[1].label, "$1.00");
    assert_eq!(
        (view.models[0].model.as_str(), view.models[0].jobs),
        ("veo", 2)
    );
    script(&core, status(500, "Internal Server Error"));
    assert!(block_on(core.open_spend()).is_err());
    assert_eq!(
        core.spend_view().error.as_deref(),
        Some("Failed to get spend: Internal Server Error")
    );
    assert!(core.spend_view().loaded, "what was shown stays");
    core.close_spend();
    assert!(!core.spend_view().open);
}

#[test]
fn a_sequence_save_refused_for_a_change_elsewhere_brings_the_current_sequence() {
    use studio_core::sequence::client::{Client, Saved};
    let fake = Fake::default();
    let config = ApiConfig {
        token: "t".into(),
        ..ApiConfig::default()
    };
    let client = Client::new(&fake, &config, "cut room");
    let sequence = |version: u64| {
        json!({"id": "seq_1", "name": "Cut", "fps": 24, "size": "1280x720", "fit": "crop",
               "version": version, "shots": [{"id": "s1", "label": "Wide", "prompt": null,
               "takes": ["a.mp4"], "take": "a.mp4", "in_s": 0.5, "out_s": 2, "take_missing": false}]})
    };
    fake.answers.borrow_mut().push_back(Ok(HttpResponse {
        status: 409,
        status_text: "Conflict".into(),
        body: json!({"error": {"code": "conflict", "message": "changed"}, "current": sequence(4)})
            .to_string(),
    }));
    let Saved::ChangedElsewhere(current) = block_on(client.save("seq_1", sequence(3))).unwrap()
    else {
        panic!("a 409 is a change elsewhere");
    };
    assert_eq!((current.version, current.shots[0].in_frame), (4, 12));
    let request = fake.requests.borrow().last().cloned().unwrap();
    assert_eq!(
        (
            request.method,
            request.url.as_str(),
            request.bearer.as_deref()
        ),
        ("PUT", "/api/projects/cut%20room/sequences/seq_1", Some("t"))
    );
    fake.answers.borrow_mut().push_back(ok(sequence(5)));
    assert!(matches!(
        block_on(client.save("seq_1", sequence(4))),
        Ok(Saved::Taken(s)) if s.version == 5
    ));
    fake.answers.borrow_mut().push_back(Ok(HttpResponse {
        status: 422,
        status_text: "Unprocessable Entity".into(),
        body: json!({"error": {"code": "invalid", "message": "Shot 1 (Wide): in_s must be before out_s"}})
            .to_string(),
    }));
    assert_eq!(
        block_on(client.save("seq_1", sequence(5))),
        Ok(Saved::Refused(
            "Shot 1 (Wide): in_s must be before out_s".into()
        )),
        "refused for what it holds: the server's message names the shot"
    );
    fake.answers.borrow_mut().push_back(Ok(HttpResponse {
        status: 503,
        status_text: "Service Unavailable".into(),
        body: String::new(),
    }));
    assert!(
        block_on(client.save("seq_1", sequence(5))).is_err(),
        "a 5xx did not arrive: it is tried again later"
    );
}

#[test]
fn a_review_page_reads_a_shared_videos_credentials_without_the_bearer() {
    let core = ReviewSession::new(Fake::default(), "http://h/api/", Box::new(|| {}));
    let answer = |with| core.platform().answers.borrow_mut().push_back(with);
    answer(ok(
        json!({"videos": [{"file_name": "m:task_a.mp4", "public_url": "http://h/media/a.mp4",
        "poster_url": "http://h/media/a.jpg", "comments": [], "decisions": []}],
        "expires_at": "2026-11-24T10:05:00Z", "comments_enabled": true}),
    ));
    block_on(core.open("tok")).unwrap();
    answer(Ok(HttpResponse {
        status: 500,
        status_text: "Internal Server Error".into(),
        body: r#"{"error":{"code":"internal","message":"Internal Server Error"}}"#.into(),
    }));
    assert_eq!(
        block_on(core.read_credentials("m:task_a.mp4"))
            .unwrap_err()
            .to_string(),
        "Failed to read Content Credentials: Internal Server Error"
    );
    answer(ok(json!({"present": true, "valid": true, "trusted": false,
        "signer": "Studio local signer (Studio)",
        "digital_source_type": "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia",
        "made": "Made with AI by veo/veo-3.1",
        "actions": [{"action": "c2pa.created", "software_agent": "veo/veo-3.1"}],
        "ingredients": [], "errors": [], "note": "untrusted signer"})));
    let credentials = block_on(core.read_credentials("m:task_a.mp4")).unwrap();
    let request = core.platform().requests.borrow().last().unwrap().clone();
    assert_eq!(
        request.url,
        "http://h/api/review/tok/videos/m%3Atask_a.mp4/credentials"
    );
    assert_eq!(request.bearer, None, "a review asks no bearer");
    assert_eq!(
        credentials.state,
        studio_core::snapshot::CredentialsState::Untrusted
    );
    assert_eq!(
        credentials.made.as_deref(),
        Some("Made with AI by veo/veo-3.1")
    );
    assert_eq!(credentials.note.as_deref(), Some("untrusted signer"));
}

/// Opens p1 and reads its shot strip: no models or references, and `cast` as its cast.
fn read_cast(core: &Core<Fake>, cast: Result<HttpResponse, String>) {
    script(core, ok(json!({"models": []})));
    script(core, ok(json!({"references": []})));
    script(core, cast);
    let _ = block_on(core.load_shot());
}

#[test]
fn the_casts_names_are_offered_as_a_mention_is_typed_in_the_prompt() {
    let core = studio();
    open(&core, "p1");
    read_cast(
        &core,
        ok(
            json!({"cast": [{"id": "c1", "name": "Mara"}, {"id": "c2", "name": "Leo"},
                           {"id": "c3", "name": "maks"}, {"id": "c4", "name": "Élodie"}]}),
        ),
    );
    assert!(fake(&core)
        .requests
        .borrow()
        .last()
        .unwrap()
        .url
        .ends_with("/api/projects/p1/cast"));
    assert_eq!(core.console_view().cast, ["Mara", "Leo", "maks", "Élodie"]);
    let offer = core.mention_at("Wide on @MA", 11).unwrap();
    assert_eq!(offer.start, 8);
    assert_eq!(offer.names, ["Mara", "maks"]);
    assert_eq!(core.mention_at("@élo", 4).unwrap().names, ["Élodie"]);
    assert_eq!(
        core.mention_at("Wide on @ma", 4),
        None,
        "the caret is before the @"
    );
    assert_eq!(
        core.mention_at("ana@ma", 6),
        None,
        "an address mentions no one"
    );
    assert_eq!(core.mention_at("@zed", 4), None, "no name fits");
}

#[test]
fn a_failed_cast_read_keeps_the_names_and_the_strip_and_raises_no_banner() {
    let core = studio();
    open(&core, "p1");
    read_cast(&core, ok(json!({"cast": [{"id": "c1", "name": "Mara"}]})));
    script(&core, ok(json!({"models": []})));
    script(
        &core,
        ok(json!({"references": [reference("ref_a", 1280, 720)]})),
    );
    script(&core, status(500, "Internal Server Error"));
    assert_eq!(
        block_on(core.load_shot()).unwrap(),
        1,
        "the references are read all the same"
    );
    assert_eq!(core.console_view().cast, ["Mara"]);
    assert!(core.snapshot().banner.is_none());
    assert!(fake(&core)
        .logs
        .borrow()
        .iter()
        .any(|(_, m)| m.starts_with("Failed to get cast: ")));
    core.enter_project("p2");
    assert!(
        core.console_view().cast.is_empty(),
        "another project's cast is not offered"
    );
}
