//! The core's browser glue in headless Chromium: localStorage, the timers, subscriptions and
//! fetch against a real server-stub (started by scripts/test-wasm.sh, which passes its address).
#![cfg(target_arch = "wasm32")]

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use studio_core::wasm::Studio;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const API: Option<&str> = option_env!("STUDIO_TEST_API");
const TOKEN: Option<&str> = option_env!("STUDIO_TEST_TOKEN");

fn storage() -> web_sys::Storage {
    web_sys::window().unwrap().local_storage().unwrap().unwrap()
}

fn config(token: &str) -> JsValue {
    let api = API.expect("STUDIO_TEST_API names the server-stub under test");
    js_sys::JSON::parse(&format!(r#"{{"apiBase":"{api}","token":"{token}"}}"#)).unwrap()
}

fn studio() -> Studio {
    storage().clear().unwrap();
    Studio::new(config(TOKEN.unwrap_or_default())).unwrap()
}

fn get(value: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(value.clone(), |v, key| {
        Reflect::get(&v, &JsValue::from_str(key)).unwrap()
    })
}

/// A listener that counts its calls; its closure lives as long as it does.
struct Counter {
    count: Rc<Cell<u32>>,
    function: Function,
    _closure: Closure<dyn Fn()>,
}

impl Counter {
    fn new() -> Counter {
        let count = Rc::new(Cell::new(0));
        let seen = count.clone();
        let closure = Closure::<dyn Fn()>::new(move || seen.set(seen.get() + 1));
        let function = closure.as_ref().unchecked_ref::<Function>().clone();
        Counter {
            count,
            function,
            _closure: closure,
        }
    }

    fn calls(&self) -> u32 {
        self.count.get()
    }
}

async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// Waits until `condition` holds, checking every 50 ms, for at most `limit_ms`.
async fn until(limit_ms: i32, condition: impl Fn() -> bool) -> bool {
    for _ in 0..limit_ms / 50 {
        if condition() {
            return true;
        }
        sleep(50).await;
    }
    condition()
}

#[wasm_bindgen_test]
fn recent_projects_live_in_local_storage() {
    let studio = studio();
    assert_eq!(
        studio.open_project("My Project_1!").as_deref(),
        Some("my-project-1-")
    );
    studio.open_recent("Other");
    assert_eq!(
        storage().get_item("recent-projects").unwrap().as_deref(),
        Some(r#"["Other","my-project-1-"]"#)
    );
    let again = Studio::new(JsValue::UNDEFINED).unwrap();
    assert_eq!(
        js_sys::JSON::stringify(&get(&again.snapshot(), &["recent"])).unwrap(),
        r#"["Other","my-project-1-"]"#
    );
}

#[wasm_bindgen_test]
fn a_corrupted_recent_list_is_kept_aside_with_the_two_backups_before_it() {
    storage().clear().unwrap();
    // Three older backups of the same list, and one of another key.
    for (key, text) in [
        ("backup:recent-projects:2026-11-01T00:00:00.000Z", "oldest"),
        ("backup:recent-projects:2026-11-02T00:00:00.000Z", "older"),
        ("backup:recent-projects:2026-11-03T00:00:00.000Z", "old"),
        ("backup:jobs:p:2026-10-01T00:00:00.000Z", "another list"),
    ] {
        storage().set_item(key, text).unwrap();
    }
    storage().set_item("recent-projects", "not json").unwrap();
    let studio = Studio::new(JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&studio.snapshot(), &["recent", "length"]), 0);
    let storage = storage();
    let mut kept: Vec<String> = (0..storage.length().unwrap())
        .filter_map(|i| storage.key(i).unwrap())
        .filter(|k| k.starts_with("backup:"))
        .map(|k| storage.get_item(&k).unwrap().unwrap())
        .collect();
    kept.sort();
    assert_eq!(kept, ["another list", "not json", "old", "older"]);
}

#[wasm_bindgen_test]
fn subscribers_hear_changes_and_can_unsubscribe() {
    let studio = studio();
    let listener = Counter::new();
    let unsubscribe: Function = studio
        .subscribe(listener.function.clone(), None)
        .unwrap()
        .into();
    let before = studio.snapshot();
    assert!(get(&before, &["console", "draft"]).is_string());
    assert!(
        js_sys::Object::is(&before, &studio.snapshot()),
        "same object until the version changes"
    );
    studio.set_draft("hello");
    assert_eq!(listener.calls(), 1);
    assert!(!js_sys::Object::is(&before, &studio.snapshot()));
    studio.set_draft("hello");
    assert_eq!(listener.calls(), 1, "no change, no notification");
    unsubscribe.call0(&JsValue::NULL).unwrap();
    studio.set_draft("bye");
    assert_eq!(listener.calls(), 1);
}

/// Fails when a change a listener makes is told from inside that listener's call (the other
/// listeners then hear the second change before the first), or when a listener that throws
/// keeps the others from hearing.
#[wasm_bindgen_test]
fn a_change_made_by_a_listener_is_told_after_every_listener_heard_the_one_before() {
    let studio = Rc::new(studio());
    let heard = Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let listener = |name: &'static str, changes: bool| {
        let (studio, heard) = (Rc::clone(&studio), Rc::clone(&heard));
        Closure::<dyn FnMut()>::new(move || {
            let draft = get(&studio.view("console").unwrap(), &["draft"])
                .as_string()
                .unwrap();
            heard.borrow_mut().push(format!("{name} {draft}"));
            if changes && draft == "one" {
                studio.set_draft("two");
            }
        })
    };
    let _throws = studio
        .subscribe(
            Function::new_no_args("throw new Error('a listener that throws')"),
            None,
        )
        .unwrap();
    let first = listener("first", true);
    let second = listener("second", false);
    let _first = studio
        .subscribe(first.as_ref().unchecked_ref::<Function>().clone(), None)
        .unwrap();
    let _second = studio
        .subscribe(second.as_ref().unchecked_ref::<Function>().clone(), None)
        .unwrap();
    studio.set_draft("one");
    assert_eq!(
        *heard.borrow(),
        ["first one", "second two", "first two", "second two"]
    );
}

#[wasm_bindgen_test]
fn a_part_listener_hears_only_its_part_and_views_keep_their_identity() {
    let studio = studio();
    let listener = Counter::new();
    let _off = studio
        .subscribe(listener.function.clone(), Some("jobs".into()))
        .unwrap();
    let jobs = studio.view("jobs").unwrap();
    let console = studio.view("console").unwrap();
    studio.set_draft("typing");
    assert_eq!(listener.calls(), 0, "a keystroke is not a jobs change");
    assert!(js_sys::Object::is(&jobs, &studio.view("jobs").unwrap()));
    assert!(!js_sys::Object::is(
        &console,
        &studio.view("console").unwrap()
    ));
    assert!(studio.view("nothing").is_err());
    assert!(studio
        .subscribe(Function::new_no_args(""), Some("nothing".into()))
        .is_err());
}

#[wasm_bindgen_test]
fn a_cards_listener_hears_the_library_and_its_window_but_not_the_rest() {
    let studio = studio();
    let listener = Counter::new();
    let _off = studio
        .subscribe(listener.function.clone(), Some("cards".into()))
        .unwrap();
    studio.set_draft("typing");
    assert_eq!(listener.calls(), 0, "a keystroke is not a library change");
    studio.search_library("kite");
    assert_eq!(
        listener.calls(),
        1,
        "the library's changes are the cards' too"
    );
    let cards = studio.view("cards").unwrap();
    studio.show_library_cards(40, 80);
    assert_eq!(listener.calls(), 2);
    assert!(!js_sys::Object::is(&cards, &studio.view("cards").unwrap()));
    assert_eq!(
        get(&studio.view("cards").unwrap(), &["matching"]).as_f64(),
        Some(0.0)
    );
}

#[wasm_bindgen_test]
async fn a_second_browser_sees_the_job_pushed_and_a_typed_error_has_a_code() {
    let a = studio();
    a.enter_project("wasm-push");
    let b = Studio::new(config(TOKEN.unwrap_or_default())).unwrap();
    let created = JsFuture::from(a.create_job(Some("a green cube spinning".into())))
        .await
        .unwrap();
    let id = get(&created, &["sora_job_id"]).as_string().unwrap();
    a.leave_project();
    storage().remove_item("jobs:wasm-push").unwrap();
    b.enter_project("wasm-push");
    let seen = until(10_000, || {
        get(&b.view("jobs").unwrap(), &["stream"])
            .as_string()
            .as_deref()
            == Some("open")
            && b.jobs().unchecked_into::<js_sys::Array>().length() == 1
    })
    .await;
    assert!(
        seen,
        "B got the job from the server and follows its changes"
    );
    let cancelled = JsFuture::from(b.cancel_job(id.clone())).await;
    let done_first = cancelled.is_err();
    if done_first {
        let error = cancelled.unwrap_err();
        assert_eq!(
            get(&error, &["name"]).as_string().as_deref(),
            Some("StudioError")
        );
        assert_eq!(
            get(&error, &["code"]).as_string().as_deref(),
            Some("not-allowed")
        );
    } else {
        let job = cancelled.unwrap();
        assert_eq!(
            get(&job, &["error"]).as_string().as_deref(),
            Some("Cancelled")
        );
    }
    b.leave_project();
}

#[wasm_bindgen_test]
async fn creates_checks_and_lists_against_the_real_server() {
    let studio = studio();
    studio.enter_project("wasm-tests");
    let created = JsFuture::from(studio.create_job(Some("a blue ball bouncing".into())))
        .await
        .unwrap();
    let id = get(&created, &["sora_job_id"]).as_string().unwrap();
    assert!(id.starts_with("local-1:task_"), "{id}");
    let stored = storage().get_item("jobs:wasm-tests").unwrap().unwrap();
    assert!(stored.contains(&id));
    let checked = JsFuture::from(studio.check_status(id.clone()))
        .await
        .unwrap();
    let status = get(&checked, &["status"]).as_string().unwrap();
    assert!(
        ["queued", "running", "done"].contains(&status.as_str()),
        "{status}"
    );
    let count = JsFuture::from(studio.load_assets()).await.unwrap();
    assert_eq!(count.as_f64(), Some(0.0));
    studio.leave_project();
}

#[wasm_bindgen_test]
async fn a_wrong_token_fails_with_the_status_text() {
    storage().clear().unwrap();
    let studio = Studio::new(config("wrong")).unwrap();
    studio.enter_project("wasm-tests");
    let error = JsFuture::from(studio.load_assets()).await.unwrap_err();
    let message = get(&error, &["message"]).as_string().unwrap();
    assert_eq!(message, "Failed to get assets: Unauthorized");
    assert_eq!(
        get(&studio.snapshot(), &["banner", "message"])
            .as_string()
            .as_deref(),
        Some("Failed to load assets")
    );
    studio.leave_project();
}

#[wasm_bindgen_test]
async fn the_one_second_reread_picks_up_another_tabs_jobs() {
    let studio = studio();
    studio.enter_project("reread");
    let job = r#"[{"sora_job_id":"local-1:task_zz","status":"error","prompt":"from another tab","created_at":"2026-11-21T10:00:00Z"}]"#;
    storage().set_item("jobs:reread", job).unwrap();
    let seen = until(5_000, || {
        get(&studio.snapshot(), &["jobs", "items", "length"]).as_f64() == Some(1.0)
    })
    .await;
    assert!(seen, "the timer re-read local storage");
    let first = js_sys::Array::from(&get(&studio.snapshot(), &["jobs", "items"])).get(0);
    assert_eq!(
        get(&first, &["prompt"]).as_string().as_deref(),
        Some("from another tab")
    );
    assert_eq!(
        get(&first, &["badge"]).as_string().as_deref(),
        Some("ERROR")
    );
    // A second change after the re-read has seen the first (the cheap check must not hide it).
    let two = job.replace(
        "}]",
        r#"},{"sora_job_id":"local-1:task_zy","status":"queued","prompt":"another","created_at":"2026-11-21T09:00:00Z"}]"#,
    );
    storage().set_item("jobs:reread", &two).unwrap();
    let seen = until(5_000, || {
        get(&studio.snapshot(), &["jobs", "items", "length"]).as_f64() == Some(2.0)
    })
    .await;
    assert!(seen, "the second change was read too");
    studio.leave_project();
}

/// A picture as the page holds it: a `Blob` of `bytes` (in JS memory) of type `kind`.
fn blob(bytes: &js_sys::Uint8Array, kind: &str) -> web_sys::Blob {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(kind);
    web_sys::Blob::new_with_u8_array_sequence_and_options(&js_sys::Array::of1(bytes), &options)
        .unwrap()
}

/// The wasm's memory, in bytes (it grows and never shrinks).
fn wasm_memory() -> u32 {
    wasm_bindgen::memory()
        .unchecked_into::<js_sys::WebAssembly::Memory>()
        .buffer()
        .unchecked_into::<js_sys::ArrayBuffer>()
        .byte_length()
}

/// Fails on copying each picture into the wasm before sending it: the memory grew by the
/// picture's size, for good.
#[wasm_bindgen_test]
async fn a_picture_goes_to_the_server_from_its_blob_without_entering_the_wasm() {
    let studio = studio();
    studio.enter_project("wasm-upload");
    let before = wasm_memory();
    let big = js_sys::Uint8Array::new_with_length(16 << 20);
    let refused = JsFuture::from(studio.upload_reference(blob(&big, "image/png"))).await;
    assert!(refused.is_err(), "16 MB of zeros is no picture");
    let grown = wasm_memory() - before;
    assert!(grown < 4 << 20, "the wasm grew by {grown} bytes");

    let png = js_sys::Uint8Array::from(&include_bytes!("fixtures/blue-64.png")[..]);
    let id = JsFuture::from(studio.upload_reference(blob(&png, "image/png")))
        .await
        .unwrap();
    assert!(id.as_string().unwrap().starts_with("ref_"), "{id:?}");
}

#[wasm_bindgen_test]
fn json_goes_through_the_browsers_parser_and_back_unchanged() {
    use serde_json::json;
    use studio_core::json;
    let text = r#"{"a":[1,-2,2.5,null,true,false],"b":"é \"q\" \u2028","c":{},"d":9007199254740991,"e":1e300}"#;
    let value = json::parse(text).expect("the browser parses it");
    assert_eq!(
        value,
        json!({"a": [1, -2, 2.5, null, true, false], "b": "é \"q\" \u{2028}", "c": {},
               "d": 9007199254740991u64, "e": 1e300})
    );
    assert_eq!(json::parse(&json::text(&value)), Some(value));
    assert_eq!(json::parse("{\"a\":"), None);
    assert_eq!(json::parse("[1,]"), None);
    // What JSON has no form for reads as null, as JSON.stringify writes it.
    let odd = js_sys::Object::new();
    Reflect::set(&odd, &"gone".into(), &JsValue::UNDEFINED).unwrap();
    Reflect::set(&odd, &"f".into(), &Function::new_no_args("")).unwrap();
    assert_eq!(
        json::browser::from_js(&odd),
        json!({"gone": null, "f": null})
    );
}

/// In the browser a name's letters are told and its case set aside by the platform: the same
/// answers as Rust's own tables give natively (`letters.rs`'s test).
#[wasm_bindgen_test]
fn the_browser_tells_letters_and_folds_case_as_rust_does() {
    use studio_core::letters::{is_letter_or_digit, lower};
    for yes in ['a', 'Z', '7', 'é', 'Ж', '字', '٣'] {
        assert!(is_letter_or_digit(yes), "{yes}");
    }
    for no in ['-', '_', ' ', '@', '.', '—', '😀'] {
        assert!(!is_letter_or_digit(no), "{no}");
    }
    assert_eq!(lower("JOSÉ Ωμέγα"), "josé ωμέγα");
    assert!(studio_core::cast::same_name("ÉLODIE", "élodie"));
}

/// In the browser a timestamp is read by `Date.parse`: the instants the native parser reads
/// from the forms browsers and servers write, and no time where there is none.
#[wasm_bindgen_test]
fn the_browser_reads_timestamps_as_the_native_parser_does() {
    use studio_core::time::parse_iso_millis;
    for (text, millis) in [
        ("1970-01-01T00:00:00.000Z", 0),
        ("2026-11-21T18:25:07.123Z", 1_795_285_507_123),
        ("2026-11-21T19:25:07.123+01:00", 1_795_285_507_123),
        ("2026-11-21T18:25:07Z", 1_795_285_507_000),
        ("2026-11-21T18:25:07.123456Z", 1_795_285_507_123),
        (" 2026-11-21 ", 1_795_219_200_000),
    ] {
        assert_eq!(parse_iso_millis(text), Some(millis), "{text}");
    }
    for bad in [
        "",
        "yesterday",
        "2026-13-01",
        "2026-11-21T25:00Z",
        "2026/11/21",
        "2026-11-21Tab:cdZ",
    ] {
        assert_eq!(parse_iso_millis(bad), None, "{bad}");
    }
}
