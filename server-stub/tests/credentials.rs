//! Content Credentials end to end through the API: a take the engine made and an export of
//! takes carry signed C2PA manifests, read back by the server (`.../credentials`) and by an
//! independent reader (the C2PA project's c2pa-python, installed into target/py by
//! scripts/setup-test.sh); a changed byte of the media reads as broken, not missing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::http::StatusCode;
use serde_json::{json, Value};
use server_stub::credentials::{SignerSource, Signing};
use server_stub::jobs::record::Status;
use server_stub::jobs::Limits;

use crate::harness::*;
use crate::independent::independent;

const TRAINED: &str = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";
const COMPOSITE: &str =
    "http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia";

/// A server that signs with its local signer.
fn signing() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let signing = Signing::load(SignerSource::Local { data }, false).unwrap();
    start_with(
        dir,
        Limits {
            signing: Some(Arc::new(signing)),
            ..Limits::default()
        },
    )
}

async fn credentials(h: &Harness, project: &str, file: &str) -> Value {
    let reply = api(
        &h.app,
        "GET",
        &format!(
            "/api/projects/{project}/assets/{}/credentials",
            encoded(file)
        ),
        None,
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.json()
}

fn stored(h: &Harness, project: &str, file: &str) -> PathBuf {
    h.dir
        .path()
        .join("data/media/projects")
        .join(project)
        .join(file)
}

/// Flips one byte in the middle of the media (the `mdat` payload) of the MP4 at `path`.
fn tamper(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let size = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if &bytes[at + 4..at + 8] == b"mdat" {
            bytes[at + size / 2] ^= 0xff;
            std::fs::write(path, bytes).unwrap();
            return;
        }
        at += size.max(8);
    }
    panic!("no mdat");
}

/// Fails on a take with no Content Credentials, or on a changed byte that reads as missing.
#[tokio::test]
async fn a_take_says_it_was_made_with_ai_and_a_changed_byte_reads_as_broken() {
    let h = signing();
    let take = saved(&h, "cred", "a gull on a post").await;
    let report = credentials(&h, "cred", &take).await;
    assert_eq!(report["present"], true, "{report}");
    assert_eq!(report["valid"], true, "{report}");
    assert_eq!(
        report["trusted"], false,
        "a local signer is not on a trust list"
    );
    assert_eq!(report["digital_source_type"], TRAINED);
    assert_eq!(
        report["generator"],
        format!("Studio/{}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(report["actions"][0]["action"], "c2pa.created");
    assert_eq!(report["actions"][0]["software_agent"], "local/local-1");
    assert_eq!(report["made"], "Made with AI by local/local-1");
    assert_eq!(report["signer"], "Studio local signer (Studio)");
    assert!(report["note"].as_str().unwrap().contains("C2PA trust list"));
    assert_eq!(report["errors"], json!([]));

    let file = stored(&h, "cred", &take);
    let read = independent(&file);
    assert_eq!(read["state"], "Valid", "{read}");
    assert_eq!(read["codes"], json!(["signingCredential.untrusted"]));
    assert_eq!(read["actions"][0]["digitalSourceType"], TRAINED);
    assert_eq!(read["actions"][0]["agent"], "local/local-1");

    tamper(&file);
    let report = credentials(&h, "cred", &take).await;
    assert_eq!(
        (report["present"].clone(), report["valid"].clone()),
        (json!(true), json!(false))
    );
    assert!(
        report["errors"]
            .to_string()
            .contains("assertion.bmffHash.mismatch"),
        "{report}"
    );
    let read = independent(&file);
    assert_eq!(read["state"], "Invalid", "{read}");
    assert!(read["codes"]
        .to_string()
        .contains("assertion.bmffHash.mismatch"));
}

/// Fails when the media is hashed flat: the crate then reads it in 256 MB chunks, two at a
/// time, so signing a large video holds up to 512 MB. As a Merkle tree of 1 MiB leaves kept in
/// the manifest, each leaf is read on its own and nothing is added after the media.
#[tokio::test]
async fn the_media_is_hashed_in_leaves_of_one_mebibyte() {
    let h = signing();
    let take = saved(&h, "leaves", "a kite over dunes").await;
    let file = stored(&h, "leaves", &take);
    let reader = c2pa::Reader::from_context(c2pa::Context::new())
        .with_stream("video/mp4", std::fs::File::open(&file).unwrap())
        .unwrap();
    let detailed: Value = serde_json::from_str(&reader.detailed_json()).unwrap();
    let text = detailed.to_string();
    assert!(text.contains("c2pa.hash.bmff"), "{text}");
    let merkle = find(&detailed, "merkle").expect("a Merkle map in the BMFF hash");
    assert_eq!(merkle[0]["fixedBlockSize"], 1024 * 1024, "{merkle}");
    let boxes = top_level_boxes(&std::fs::read(&file).unwrap());
    assert_eq!(boxes.last().map(String::as_str), Some("mdat"), "{boxes:?}");
}

/// The first value under `key` anywhere in `value`.
fn find<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map
            .get(key)
            .or_else(|| map.values().find_map(|v| find(v, key))),
        Value::Array(items) => items.iter().find_map(|v| find(v, key)),
        _ => None,
    }
}

fn top_level_boxes(bytes: &[u8]) -> Vec<String> {
    let mut boxes = Vec::new();
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let size = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        boxes.push(String::from_utf8_lossy(&bytes[at + 4..at + 8]).into_owned());
        at += size.max(8);
    }
    boxes
}

/// Fails on an export that does not say it is a composite of its takes.
#[tokio::test]
async fn an_export_is_a_composite_of_its_takes_each_with_its_own_manifest() {
    let h = signing();
    let first = saved(&h, "cut", "a heron lifts off the water").await;
    let second = saved(&h, "cut", "reeds bending in the wind").await;
    let reply = api(
        &h.app,
        "POST",
        "/api/projects/cut/sequences",
        Some(json!({"name": "Marsh", "size": "320x240", "fit": "pad"})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let mut sequence = reply.json();
    let uri = format!(
        "/api/projects/cut/sequences/{}",
        sequence["id"].as_str().unwrap()
    );
    sequence["shots"] = json!([
        {"label": "Wide", "take": first, "in_s": 0, "out_s": 0.5},
        {"label": "Reeds", "take": second, "in_s": 0, "out_s": 0.5},
        {"label": "Wide again", "take": first, "in_s": 0.5, "out_s": 1},
    ]);
    let reply = api(&h.app, "PUT", &uri, Some(sequence)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    let reply = api(
        &h.app,
        "POST",
        &format!("{uri}/exports"),
        Some(json!({"format": "mp4"})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.json());
    let id = reply.json()["sora_job_id"].as_str().unwrap().to_owned();
    wait_for(&h.jobs, &id, Status::Done).await;
    let export = format!("{id}.mp4");

    let report = credentials(&h, "cut", &export).await;
    assert_eq!(report["valid"], true, "{report}");
    assert_eq!(report["digital_source_type"], COMPOSITE);
    assert_eq!(report["made"], "A cut of 2 AI-generated takes");
    assert_eq!(report["actions"][0]["action"], "c2pa.created");
    assert_eq!(
        report["ingredients"],
        json!([
            {"title": first, "relationship": "componentOf", "valid": true},
            {"title": second, "relationship": "componentOf", "valid": true},
        ]),
        "each take once, with its own manifest"
    );
    let read = independent(&stored(&h, "cut", &export));
    assert_eq!(read["state"], "Valid", "{read}");
    assert_eq!(read["actions"][0]["digitalSourceType"], COMPOSITE);
    assert_eq!(read["ingredients"].as_array().unwrap().len(), 2);
    assert!(read["ingredients"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["relationship"] == "componentOf" && i["has_manifest"] == true));
}

/// Fails on an extend that says it was made from nothing.
#[tokio::test]
async fn an_extend_is_an_edit_of_its_source_take() {
    let h = signing();
    let source = saved(&h, "ext", "a kite over the dunes").await;
    let reply = api(
        &h.app,
        "POST",
        "/api/projects/ext/jobs",
        Some(json!({"prompt": "the kite climbs", "seconds": "1",
                    "inputs": [{"video": source, "role": "extend"}]})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.json());
    let id = reply.json()["sora_job_id"].as_str().unwrap().to_owned();
    wait_for(&h.jobs, &id, Status::Done).await;
    let reply = api(
        &h.app,
        "POST",
        &format!("/api/jobs/sora/{}/save", encoded(&id)),
        Some(json!({"project_id": "ext"})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let report = credentials(&h, "ext", &format!("{id}.mp4")).await;
    assert_eq!(report["valid"], true, "{report}");
    assert_eq!(report["actions"][0]["action"], "c2pa.opened");
    assert_eq!(report["actions"][1]["action"], "c2pa.edited");
    assert_eq!(report["actions"][1]["software_agent"], "local/local-1");
    assert_eq!(report["digital_source_type"], TRAINED);
    assert_eq!(
        report["ingredients"],
        json!([{"title": source, "relationship": "parentOf", "valid": true}])
    );
    let read = independent(&stored(&h, "ext", &format!("{id}.mp4")));
    assert_eq!(read["state"], "Valid", "{read}");
    assert_eq!(read["ingredients"][0]["relationship"], "parentOf");
}

/// Fails on a server that signs with `--c2pa off`: nothing is written into its videos.
#[tokio::test]
async fn with_signing_off_a_take_carries_none() {
    let h = start();
    let take = saved(&h, "plain", "a quiet pond").await;
    let report = credentials(&h, "plain", &take).await;
    assert_eq!(report["present"], false);
    assert_eq!(report["valid"], false);
}

/// A review link's page reads its videos' credentials with the link's token alone, and nothing
/// else: not a video it does not share, not after it is revoked.
#[tokio::test]
async fn a_review_link_reads_the_credentials_of_what_it_shares_and_nothing_else() {
    let h = signing();
    let shared = saved(&h, "cred", "a kite over a beach").await;
    let other = saved(&h, "cred", "a barn in fog").await;
    let created = api(
        &h.app,
        "POST",
        "/api/projects/cred/shares",
        Some(json!({"videos": [shared]})),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED);
    let created = created.json();
    let token = created["url"].as_str().unwrap().rsplit('/').next().unwrap();
    let read = |file: &str| {
        let uri = format!("/api/review/{token}/videos/{}/credentials", encoded(file));
        let app = h.app.clone();
        async move {
            let request = request("GET", &uri)
                .body(axum::body::Body::empty())
                .unwrap();
            send(&app, request).await
        }
    };
    let report = read(&shared).await;
    assert_eq!(report.status, StatusCode::OK);
    let report = report.json();
    assert_eq!(
        (report["present"].clone(), report["valid"].clone()),
        (json!(true), json!(true)),
        "{report}"
    );
    assert_eq!(report["digital_source_type"], TRAINED);
    assert_eq!(read(&other).await.status, StatusCode::NOT_FOUND);
    let id = created["id"].as_str().unwrap();
    let revoked = api(
        &h.app,
        "DELETE",
        &format!("/api/projects/cred/shares/{id}"),
        None,
    )
    .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    assert_eq!(read(&shared).await.status, StatusCode::NOT_FOUND);
}
