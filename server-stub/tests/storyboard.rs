//! From a script to a storyboard through the real router: the cast API (names unique
//! regardless of case, pictures that must be the project's), `@Name` mentions resolved into a
//! job's reference images in the order mentioned, a Fountain import read the way an
//! independent parser (fountain-js) reads it, and generate's dry run, budget and all-or-none
//! admission.

use axum::http::StatusCode;
use serde_json::{json, Value};
use server_stub::jobs::Limits;
use server_stub::prices::Prices;
use server_stub::providers::Catalog;

use crate::harness::*;

const CAST: &str = "/api/projects/film/cast";

/// A reference picture of the project `film`: its id.
async fn picture(h: &Harness, shade: u8) -> String {
    let image = image::RgbImage::from_pixel(96, 64, image::Rgb([shade, 120, 200 - shade]));
    let mut png = std::io::Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let reply = raw_post(
        &h.app,
        "/api/projects/film/references",
        Some("image/png"),
        png.into_inner(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.json());
    reply.json()["id"].as_str().unwrap().to_owned()
}

async fn member(h: &Harness, body: Value) -> Reply {
    api(&h.app, "POST", CAST, Some(body)).await
}

#[tokio::test]
async fn the_cast_keeps_unique_names_and_only_the_projects_pictures() {
    let h = start();
    let face = picture(&h, 10).await;
    let made = member(
        &h,
        json!({"name": "Mara", "kind": "character", "description": " The lead ", "references": [face, face]}),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    let mara = made.json();
    assert_eq!(mara["description"], "The lead");
    assert_eq!(mara["references"], json!([face]));
    let id = mara["id"].as_str().unwrap();
    for (body, status, says) in [
        (
            json!({"name": "MARA", "kind": "prop"}),
            StatusCode::CONFLICT,
            "Mara",
        ),
        (
            json!({"name": "Mary Jane", "kind": "character"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "one word",
        ),
        (
            json!({"name": "Key", "kind": "prop", "references": ["ref_00000000000000000000000000"]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "ref_00000000000000000000000000",
        ),
        (
            json!({"name": "Key", "kind": "vehicle"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "kind",
        ),
    ] {
        let refused = member(&h, body.clone()).await;
        assert_eq!(refused.status, status, "{body}: {}", refused.json());
        assert!(
            refused.json()["error"]["message"]
                .as_str()
                .unwrap()
                .contains(says),
            "{}",
            refused.json()
        );
    }
    let key = member(&h, json!({"name": "key", "kind": "prop"}))
        .await
        .json();
    let listed = api(&h.app, "GET", CAST, None).await.json();
    let names: Vec<&str> = listed["cast"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["key", "Mara"]);
    let one = format!("{CAST}/{id}");
    let renamed = api(
        &h.app,
        "PUT",
        &one,
        Some(json!({"name": "Mara_B", "kind": "character", "references": []})),
    )
    .await;
    assert_eq!(renamed.status, StatusCode::OK);
    assert_eq!(renamed.json()["created_at"], mara["created_at"]);
    let clash = api(
        &h.app,
        "PUT",
        &one,
        Some(json!({"name": "KEY", "kind": "character"})),
    )
    .await;
    assert_eq!(clash.status, StatusCode::CONFLICT);
    assert_eq!(
        api(&h.app, "GET", &one, None).await.json()["name"],
        "Mara_B"
    );
    let other = format!("/api/projects/other/cast/{id}");
    assert_eq!(
        api(&h.app, "GET", &other, None).await.status,
        StatusCode::NOT_FOUND
    );
    let key_url = format!("{CAST}/{}", key["id"].as_str().unwrap());
    assert_eq!(
        api(&h.app, "DELETE", &key_url, None).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        api(&h.app, "DELETE", &key_url, None).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn of_eight_members_named_alike_at_once_one_is_made() {
    let h = start();
    // All eight read the cast before any writes it unless the cast's lock keeps them apart.
    let names = [
        "Mara", "MARA", "mara", "mAra", "Mara", "MARA", "mara", "maRA",
    ];
    let posts = names.map(|name| member(&h, json!({"name": name, "kind": "character"})));
    let replies = futures_util::future::join_all(posts).await;
    let made = replies
        .iter()
        .filter(|r| r.status == StatusCode::CREATED)
        .count();
    let taken = replies
        .iter()
        .filter(|r| r.status == StatusCode::CONFLICT)
        .count();
    assert_eq!((made, taken), (1, 7));
    let cast = api(&h.app, "GET", CAST, None).await.json();
    assert_eq!(cast["cast"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn mentions_bring_the_cast_pictures_in_order_and_unknown_ones_are_refused() {
    let h = start();
    let (a, b, c) = (
        picture(&h, 10).await,
        picture(&h, 60).await,
        picture(&h, 90).await,
    );
    member(
        &h,
        json!({"name": "Mara", "kind": "character", "references": [a, b]}),
    )
    .await;
    member(
        &h,
        json!({"name": "Leo", "kind": "character", "references": [c]}),
    )
    .await;
    let job = |prompt: &str| json!({"prompt": prompt, "seconds": 1, "size": SMALL});
    let made = api(
        &h.app,
        "POST",
        "/api/projects/film/jobs",
        Some(job("@leo hands @Mara the key")),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    assert_eq!(
        made.json()["inputs"],
        json!([
            {"reference": c, "role": "reference", "cast": "Leo"},
            {"reference": a, "role": "reference", "cast": "Mara"},
            {"reference": b, "role": "reference", "cast": "Mara"},
        ])
    );
    let unknown = api(
        &h.app,
        "POST",
        "/api/projects/film/jobs",
        Some(job("@Mara meets @Zed")),
    )
    .await;
    assert!(unknown.refusal().contains("@Zed"));
    // local-1 takes 4 reference images: the cast brings 3, one given makes 4, two make 5.
    let d = picture(&h, 120).await;
    let e = picture(&h, 150).await;
    let mut over = job("@Mara and @Leo");
    over["inputs"] =
        json!([{"reference": d, "role": "reference"}, {"reference": e, "role": "reference"}]);
    let refused = api(&h.app, "POST", "/api/projects/film/jobs", Some(over)).await;
    let message = refused.refusal();
    assert!(
        message.contains("local-1") && message.contains("at most 4"),
        "{message}"
    );
    let mut given = job("a key");
    given["inputs"] = json!([{"reference": d, "role": "reference", "cast": "Mara"}]);
    let refused = api(&h.app, "POST", "/api/projects/film/jobs", Some(given)).await;
    assert!(refused.refusal().contains("@mentions"));
    // An address is no mention.
    let plain = api(
        &h.app,
        "POST",
        "/api/projects/film/jobs",
        Some(job("mail ana@example.com")),
    )
    .await;
    assert_eq!(plain.status, StatusCode::CREATED);
    assert_eq!(plain.json()["inputs"], json!([]));
}

const SCRIPT: &str = "Title: _The Key_\nAuthor: Studio\n\nINT. KITCHEN - NIGHT\n\nMARA enters. [[light?]] She sees LEO by the sink.\n\nMARA (V.O.)\n(whispers)\nWhere were you?\nI waited.\n\nLEO ^\nOut.\n\n> CUT TO:\n\nEXT. ROAD - DAY #2#\n\n= She leaves.\n\n# Act two\n\nDR. O'BRIEN\nYou again.\n\nA car passes. DR. O'BRIEN waves at MARA.\n\n/* INT. CUT SCENE\n\nNOBODY\nNever read. */\n\n===\n\nI/E TRAIN - DAWN\n\n@McCLANE\nYippee.\n";

/// What fountain-js reads of `script`.
fn independent(script: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("script.fountain");
    std::fs::write(&file, script).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = std::process::Command::new("node")
        .current_dir(&root)
        .arg("tests/node/read_fountain.mjs")
        .arg(&file)
        .output()
        .expect("node runs the independent Fountain reader");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test]
async fn an_import_reads_scenes_dialogue_and_characters_as_fountain_js_does() {
    let h = start();
    member(&h, json!({"name": "Leo", "kind": "character"})).await;
    let reply = raw_post(
        &h.app,
        "/api/projects/film/sequences/import",
        Some("text/plain; charset=utf-8"),
        SCRIPT.to_owned(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.json());
    let sequence = reply.json();
    let theirs = independent(SCRIPT);
    assert_eq!(sequence["name"], "The Key");
    assert_eq!(
        theirs["title"].as_str().map(|t| t.replace(['_', '*'], "")),
        Some("The Key".into())
    );
    let shots = sequence["shots"].as_array().unwrap();
    // Every scene of the script has a shot, labelled with its number and heading.
    let mut scenes: Vec<String> = Vec::new();
    for shot in shots {
        let label = shot["label"].as_str().unwrap();
        let heading = label.split_once(": ").unwrap().1.to_owned();
        if scenes.last() != Some(&heading) {
            scenes.push(heading);
        }
    }
    assert_eq!(json!(scenes), theirs["scenes"]);
    // Each dialogue block is a caption line, in order.
    let ours: Vec<String> = shots
        .iter()
        .filter_map(|s| s["caption"].as_str())
        .flat_map(|c| c.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    let blocks: Vec<String> = theirs["dialogue"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let lines: Vec<&str> = d["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap())
                .collect();
            format!(
                "{}: {}",
                d["character"].as_str().unwrap().to_uppercase(),
                lines.join(" ")
            )
        })
        .collect();
    assert_eq!(ours, blocks);
    // Everyone who speaks is in the cast, the member made before kept as it was.
    let cast = api(&h.app, "GET", CAST, None).await.json();
    let mut names: Vec<String> = cast["cast"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_uppercase())
        .collect();
    names.sort();
    let mut speakers: Vec<String> = theirs["characters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            c.as_str()
                .unwrap()
                .replace(['.', '\''], "")
                .replace(' ', "_")
                .to_uppercase()
        })
        .collect();
    speakers.sort();
    assert_eq!(names, speakers);
    // Prompts lead with the setting, mention the cast, and keep notes, boneyard, sections,
    // synopses and transitions out.
    assert_eq!(
        shots[0]["prompt"],
        "INT. KITCHEN - NIGHT. @Mara enters.  She sees @Leo by the sink."
    );
    assert_eq!(shots[1]["prompt"], "EXT. ROAD - DAY. Speaking: @Dr_Obrien.");
    assert_eq!(
        shots[2]["prompt"],
        "EXT. ROAD - DAY. A car passes. @Dr_Obrien waves at @Mara."
    );
    let all: String = shots
        .iter()
        .map(|s| s["prompt"].as_str().unwrap())
        .collect();
    for kept_out in ["light?", "CUT TO", "She leaves", "Act two", "NOBODY", "==="] {
        assert!(!all.contains(kept_out), "{kept_out} in {all}");
    }
    // Planned from the words: 14 words is 6 s, and never under 2 s.
    assert_eq!(shots[0]["planned_s"], 6.0);
    assert_eq!(
        (shots[0]["in_s"].as_f64(), shots[0]["out_s"].as_f64()),
        (Some(0.0), Some(6.0))
    );
    assert_eq!(shots[3]["planned_s"], 2.0);
}

#[tokio::test]
async fn a_script_that_makes_no_shot_or_is_not_text_creates_nothing() {
    let h = start();
    let import = "/api/projects/film/sequences/import";
    for (content_type, body, says) in [
        (
            "text/plain",
            b"Title: Nothing\n\nINT. EMPTY ROOM\n\n> CUT TO:".to_vec(),
            "no action",
        ),
        ("text/plain", vec![0xff, 0xfe, 0x00], "UTF-8"),
        ("image/png", b"INT. ROOM\n\nAction.".to_vec(), "text/plain"),
        ("application/json", br#"{"fountain": 3}"#.to_vec(), "JSON"),
        ("text/plain", vec![b'a'; 1024 * 1024 + 1], "1 MB"),
    ] {
        let reply = raw_post(&h.app, import, Some(content_type), body).await;
        let message = reply.refusal();
        assert!(message.contains(says), "{says}: {message}");
    }
    let sequences = api(&h.app, "GET", "/api/projects/film/sequences", None)
        .await
        .json();
    assert_eq!(sequences["sequences"], json!([]));
    assert_eq!(
        api(&h.app, "GET", CAST, None).await.json()["cast"],
        json!([])
    );
    let named = raw_post(
        &h.app,
        import,
        Some("application/json"),
        serde_json::to_vec(&json!({"fountain": "She runs.", "name": "Run"})).unwrap(),
    )
    .await;
    assert_eq!(named.json()["name"], "Run");
}

/// local-1 at $0.10 a second.
fn priced() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("prices.toml");
    std::fs::write(&file, "[models.\"local-1\"]\nusd_per_second = 0.10\n").unwrap();
    let mut catalog = Catalog::default();
    catalog.set_prices(Prices::load(&file).unwrap());
    let limits = Limits {
        active_per_project: 100,
        active: 100,
        ..Limits::default()
    };
    start_with_catalog(dir, catalog, limits)
}

#[tokio::test]
async fn generate_estimates_first_then_starts_every_empty_shot_all_or_none() {
    let h = priced();
    let script = "INT. LAB\n\nMARA opens the box.\n\nMARA\nHot.\n\nEXT. YARD\n\nThe box burns slowly in the yard tonight.\n";
    let sequence = raw_post(
        &h.app,
        "/api/projects/film/sequences/import",
        Some("text/plain"),
        script.to_owned(),
    )
    .await
    .json();
    let id = sequence["id"].as_str().unwrap();
    let generate = format!("/api/projects/film/sequences/{id}/generate");
    // 5 words plan 2 s; 8 words plan 3 s: two takes each are 10 s, $1.00.
    let dry = api(
        &h.app,
        "POST",
        &generate,
        Some(json!({"takes": 2, "dry_run": true})),
    )
    .await;
    assert_eq!(dry.status, StatusCode::OK, "{}", dry.json());
    assert_eq!(
        dry.json(),
        json!({"shots": 2, "jobs": 4, "seconds": 10, "estimate_usd": 1.0, "budget": {"remaining_usd": null, "enough": true}})
    );
    assert!(h.jobs.list("film").is_empty(), "a dry run starts nothing");
    api(
        &h.app,
        "PUT",
        "/api/projects/film/budget",
        Some(json!({"monthly_usd": 0.9})),
    )
    .await;
    let dry = api(
        &h.app,
        "POST",
        &generate,
        Some(json!({"takes": 2, "dry_run": true})),
    )
    .await
    .json();
    assert_eq!(
        dry["budget"],
        json!({"remaining_usd": 0.9, "enough": false})
    );
    let refused = api(&h.app, "POST", &generate, Some(json!({"takes": 2}))).await;
    assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(refused.json()["estimate_usd"], json!(1.0));
    assert!(h.jobs.list("film").is_empty(), "none of the jobs started");
    let made = api(&h.app, "POST", &generate, Some(json!({"takes": 1}))).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    let jobs = made.json()["jobs"].as_array().unwrap().clone();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0]["prompt"], "INT. LAB. @Mara opens the box.");
    assert_eq!(jobs[0]["inputs"], json!([]), "Mara has no pictures yet");
    let record = h
        .jobs
        .get(jobs[0]["sora_job_id"].as_str().unwrap())
        .unwrap();
    assert_eq!(json!(record.shot.unwrap().shot), sequence["shots"][0]["id"]);
    // The shots have jobs under way: generating again starts nothing more.
    let again = api(&h.app, "POST", &generate, Some(json!({"dry_run": true})))
        .await
        .json();
    assert_eq!(
        (again["shots"].as_u64(), again["jobs"].as_u64()),
        (Some(0), Some(0))
    );
    for bad in [
        json!({"takes": 5}),
        json!({"takes": 1.5}),
        json!({"model": "nope"}),
    ] {
        let reply = api(&h.app, "POST", &generate, Some(bad.clone())).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }
}

#[tokio::test]
async fn a_shot_that_mentions_someone_not_in_the_cast_is_named() {
    let h = start();
    let sequence = raw_post(
        &h.app,
        "/api/projects/film/sequences/import",
        Some("text/plain"),
        "She runs.".to_owned(),
    )
    .await
    .json();
    let id = sequence["id"].as_str().unwrap();
    let mut shots = sequence["shots"].clone();
    shots[0]["prompt"] = json!("@Ghost runs");
    let put = api(&h.app, "PUT", &format!("/api/projects/film/sequences/{id}"), Some(json!({"name": "Run", "fps": 24, "size": "1280x720", "fit": "crop", "version": 1, "shots": shots}))).await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.json());
    assert_eq!(put.json()["shots"][0]["planned_s"], 2.0);
    let reply = api(
        &h.app,
        "POST",
        &format!("/api/projects/film/sequences/{id}/generate"),
        Some(json!({})),
    )
    .await;
    let message = reply.refusal();
    assert!(
        message.starts_with("Shot 1 (\"Opening\")") && message.contains("@Ghost"),
        "{message}"
    );
}

/// What a provider's fake received for the job `id` through the router, once it is done.
async fn received(fakes: &provider_fakes::Fakes, h: &Harness, id: &str) -> Vec<String> {
    wait_for(&h.jobs, id, server_stub::jobs::record::Status::Done).await;
    let remote = h.jobs.get(id).unwrap().provider_job_id.unwrap();
    fakes.job(&remote).unwrap().inputs
}

#[tokio::test]
async fn each_provider_gets_the_mentioned_cast_in_its_own_form() {
    use clap::Parser;
    let fakes = provider_fakes::Fakes::new(provider_fakes::Settings::default());
    let address = provider_fakes::serve(fakes.clone(), 0).await.unwrap();
    let base = format!("http://{address}");
    let dir = tempfile::tempdir().unwrap();
    let config = server_stub::config::Config::parse_from([
        "server-stub".to_owned(),
        format!("--data={}", dir.path().join("data").display()),
        "--gemini-api-key=fake-key".into(),
        format!("--gemini-base-url={base}/gemini"),
        "--gemini-models=veo-3.1=veo-3.1-generate-001".into(),
        "--ark-api-key=fake-key".into(),
        format!("--ark-base-url={base}/ark"),
        "--ark-models=seedance=seedance-1-0-pro-250528".into(),
        "--kling-access-key=fake-key".into(),
        "--kling-secret-key=fake-key-secret".into(),
        format!("--kling-base-url={base}/kling"),
        "--provider-poll-ms=20".into(),
        "--allow-local-provider-downloads".into(),
    ]);
    let h = start_with_catalog(dir, config.catalog().unwrap(), Limits::default());
    let (a, b) = (picture(&h, 10).await, picture(&h, 90).await);
    let made = member(
        &h,
        json!({"name": "Mara", "kind": "character", "references": [a, b]}),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED);
    let create =
        |model: &str| json!({"prompt": "@Mara crosses the bridge", "model": model, "seconds": 8});
    let mut ids = Vec::new();
    for model in ["veo-3.1", "seedance"] {
        let reply = api(
            &h.app,
            "POST",
            "/api/projects/film/jobs",
            Some(create(model)),
        )
        .await;
        assert_eq!(
            reply.status,
            StatusCode::CREATED,
            "{model}: {}",
            reply.json()
        );
        ids.push(reply.json()["sora_job_id"].as_str().unwrap().to_owned());
    }
    // Veo: both pictures as referenceImages; ModelArk: both as reference_image content.
    assert_eq!(
        received(&fakes, &h, &ids[0]).await,
        [
            "referenceImages image/jpeg 96x64",
            "referenceImages image/jpeg 96x64"
        ]
    );
    assert_eq!(
        received(&fakes, &h, &ids[1]).await,
        [
            "reference_image image/jpeg 96x64",
            "reference_image image/jpeg 96x64"
        ]
    );
    // Kling takes no reference images here: refused before anything is sent.
    let refused = api(
        &h.app,
        "POST",
        "/api/projects/film/jobs",
        Some(create("kling-v2-1")),
    )
    .await;
    let message = refused.refusal();
    assert!(
        message.contains("kling-v2-1") && message.contains("at most 0"),
        "{message}"
    );
}

/// Fails on a storyboard made one call a shot: with `multi_shot`, Kling 3.0 makes the script's
/// three neighbouring shots in one call (each shot's prompt and length in `multi_prompt`), and
/// the video it answers is cut back into three takes, each as long as its shot, each joining
/// its own shot. A model that makes one shot a call is refused before anything starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn neighbouring_shots_are_made_in_one_kling_call_and_cut_back_into_their_takes() {
    use clap::Parser;
    use server_stub::engine::VideoSpec;
    let dir = tempfile::tempdir().unwrap();
    // What the provider answers: a 15 s video, longer than any run of shots it is asked for.
    let clip = dir.path().join("kling.mp4");
    let spec = VideoSpec {
        seconds: 15,
        width: 320,
        height: 180,
        fps: 24,
    };
    server_stub::engine::render_clip("three shots", &spec, &clip).unwrap();
    let fakes = provider_fakes::Fakes::new(provider_fakes::Settings {
        video: Some(std::fs::read(&clip).unwrap().into()),
        ..provider_fakes::Settings::default()
    });
    let base = format!(
        "http://{}",
        provider_fakes::serve(fakes.clone(), 0).await.unwrap()
    );
    let config = server_stub::config::Config::parse_from([
        "server-stub".to_owned(),
        format!("--data={}", dir.path().join("data").display()),
        "--kling-access-key=fake-key".into(),
        "--kling-secret-key=fake-key-secret".into(),
        format!("--kling-base-url={base}/kling"),
        "--provider-poll-ms=20".into(),
        "--allow-local-provider-downloads".into(),
    ]);
    let h = start_with_catalog(dir, config.catalog().unwrap(), Limits::default());
    let models = api(&h.app, "GET", "/api/models", None).await.json();
    let listed = |id: &str| {
        let all = models["models"].as_array().unwrap();
        all.iter().find(|m| m["id"] == id).unwrap().clone()
    };
    assert_eq!(
        listed("kling-v3")["lengths"],
        json!((3..=15).collect::<Vec<u32>>())
    );
    assert_eq!(
        listed("kling-v3")["shots"],
        json!({"most_shots": 6, "least_s": 3, "most_s": 15, "prompt_chars": 512})
    );
    assert_eq!(listed("kling-v3-pro")["size"], "1920x1080");
    assert_eq!(listed("kling-v2-1")["lengths"], json!([5, 10]));
    assert_eq!(listed("kling-v2-1")["shots"], Value::Null);
    let script = "EXT. HARBOUR\n\nA red kite rises slowly over the grey sea.\n\nThe old ferry turns hard toward the stone pier.\n\nGulls scatter as the horn sounds across the water.\n";
    let sequence = raw_post(
        &h.app,
        "/api/projects/film/sequences/import",
        Some("text/plain"),
        script.to_owned(),
    )
    .await
    .json();
    let id = sequence["id"].as_str().unwrap().to_owned();
    let generate = format!("/api/projects/film/sequences/{id}/generate");
    let refused = api(
        &h.app,
        "POST",
        &generate,
        Some(json!({"model": "kling-v2-1", "multi_shot": true})),
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused.refusal().contains("kling-v2-1"),
        "{}",
        refused.refusal()
    );
    let made = api(
        &h.app,
        "POST",
        &generate,
        Some(json!({"model": "kling-v3", "multi_shot": true})),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    assert_eq!(made.json()["shots"], 3);
    let jobs = made.json()["jobs"].as_array().unwrap().clone();
    assert_eq!(jobs.len(), 1, "one call for the three shots");
    let shot_ids: Vec<&Value> = sequence["shots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["id"])
        .collect();
    let named: Vec<&Value> = jobs[0]["shots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|link| &link["shot"])
        .collect();
    assert_eq!(
        named, shot_ids,
        "the job names the shots it makes, in order"
    );
    assert_eq!(jobs[0]["shot"], Value::Null);
    let job = jobs[0]["sora_job_id"].as_str().unwrap().to_owned();
    let again = api(&h.app, "POST", &generate, Some(json!({"dry_run": true}))).await;
    assert_eq!(
        again.json()["shots"],
        0,
        "the three shots are under way in the one call"
    );
    wait_for(&h.jobs, &job, server_stub::jobs::record::Status::Done).await;
    let planned: Vec<u64> = sequence["shots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["planned_s"].as_f64().unwrap() as u64)
        .collect();
    let remote = h.jobs.get(&job).unwrap().provider_job_id.unwrap();
    let task = remote.split_once('/').unwrap().1.to_owned();
    let lengths: Vec<String> = planned.iter().map(u64::to_string).collect();
    assert!(
        fakes
            .job(&task)
            .unwrap()
            .extras
            .contains(&format!("shots {}", lengths.join("+"))),
        "{:?}",
        fakes.job(&task).unwrap().extras
    );
    // Each shot gets its own take, cut from the video at its place, as long as the shot.
    let takes = tokio::time::timeout(std::time::Duration::from_secs(300), async {
        loop {
            let now = api(
                &h.app,
                "GET",
                &format!("/api/projects/film/sequences/{id}"),
                None,
            )
            .await
            .json();
            let takes: Vec<String> = now["shots"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|s| s["take"].as_str().map(str::to_owned))
                .collect();
            if takes.len() == 3 {
                return takes;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("every shot gets its take");
    for (index, (take, seconds)) in takes.iter().zip(&planned).enumerate() {
        assert_eq!(take, &format!("{job}-shot{}.mp4", index + 1));
        let file = h.dir.path().join("data/media/projects/film").join(take);
        assert!(file.exists(), "{}", file.display());
        let probe = std::process::Command::new("ffprobe")
            .args([
                "-v",
                "error",
                "-show_entries",
                "format=duration",
                "-of",
                "csv=p=0",
            ])
            .arg(&file)
            .output()
            .unwrap();
        let duration: f64 = String::from_utf8_lossy(&probe.stdout)
            .trim()
            .parse()
            .unwrap();
        assert!(
            (duration - *seconds as f64).abs() < 0.1,
            "{take}: {duration} s, not {seconds}"
        );
        let meta: Value =
            serde_json::from_slice(&std::fs::read(file.with_extension("json")).unwrap()).unwrap();
        assert_eq!(meta["multi_shot"]["shot"], index + 1);
        assert_eq!(meta["seconds"], *seconds);
    }
}
