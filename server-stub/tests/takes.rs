//! Takes of one shot through the real router: one job per take, each with its own seed, all
//! admitted or none; local-1 gives the same bytes for the same seed and different pictures for
//! different seeds.

use axum::http::StatusCode;
use serde_json::{json, Value};
use server_stub::frames::{frame_at, At};
use server_stub::jobs::record::Status;
use server_stub::jobs::Limits;

use crate::harness::*;

const PROMPT: &str = "Paper lanterns drifting over a harbour";

fn body(extra: Value) -> Value {
    let mut body = json!({"prompt": PROMPT, "seconds": 1, "size": SMALL});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

async fn takes(h: &Harness, extra: Value) -> Reply {
    api(
        &h.app,
        "POST",
        "/api/projects/takes/takes",
        Some(body(extra)),
    )
    .await
}

/// The finished preview's bytes of job `id`.
async fn preview(h: &Harness, id: &str) -> Vec<u8> {
    wait_for(&h.jobs, id, Status::Done).await;
    let key = h.jobs.get(id).unwrap().preview_key.unwrap();
    std::fs::read(h.dir.path().join("data/media").join(key)).unwrap()
}

/// Mean absolute difference of the two videos' middle frames, per channel (0 to 255).
fn difference(a: &[u8], b: &[u8]) -> f64 {
    let frame = |bytes: &[u8]| {
        frame_at(
            std::io::Cursor::new(bytes),
            bytes.len() as u64,
            At::Seconds(0.5),
        )
        .unwrap()
    };
    let (a, b) = (frame(a), frame(b));
    let total: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    total as f64 / a.as_raw().len() as f64
}

#[tokio::test]
async fn takes_are_jobs_with_their_own_seeds_and_local_1_is_deterministic() {
    let h = start();
    let reply = takes(&h, json!({"count": 3, "seed": 4_294_967_294u32})).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.json());
    let made = reply.json()["takes"].as_array().unwrap().clone();
    let seeds: Vec<u64> = made.iter().map(|t| t["seed"].as_u64().unwrap()).collect();
    assert_eq!(
        seeds,
        [4_294_967_294, 4_294_967_295, 0],
        "counting up, wrapping"
    );
    let ids: Vec<String> = made
        .iter()
        .map(|t| t["sora_job_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(made[0]["prompt"], PROMPT);
    for (index, take) in made.iter().enumerate() {
        assert_eq!(
            take["take"],
            json!({"shot": ids[0], "index": index + 1, "count": 3})
        );
    }
    // Each is a job of the project like any other.
    let listed = api(&h.app, "GET", "/api/projects/takes/jobs", None)
        .await
        .json();
    assert_eq!(listed["jobs"].as_array().unwrap().len(), 3);

    let mut bytes = Vec::new();
    for id in &ids {
        bytes.push(preview(&h, id).await);
    }
    // Seed 0 is the prompt's own scene: a job without a seed is the same video.
    let plain = create(&h.app, "takes", PROMPT).await;
    assert_eq!(h.jobs.get(&plain).unwrap().seed, Some(0));
    assert_eq!(preview(&h, &plain).await, bytes[2]);
    // The same seed again: the same bytes.
    let again = api(
        &h.app,
        "POST",
        "/api/projects/takes/jobs",
        Some(body(json!({"seed": 4_294_967_295u32}))),
    )
    .await;
    assert_eq!(again.status, StatusCode::CREATED);
    let again = again.json()["sora_job_id"].as_str().unwrap().to_owned();
    assert_eq!(preview(&h, &again).await, bytes[1]);
    // Different seeds: visibly different pictures.
    for (a, b) in [(0, 1), (1, 2), (0, 2)] {
        assert_ne!(bytes[a], bytes[b]);
        let apart = difference(&bytes[a], &bytes[b]);
        assert!(
            apart > 4.0,
            "takes {a} and {b} differ by {apart:.2} per channel"
        );
    }
    // The saved metadata keeps the seed.
    let saved = api(
        &h.app,
        "POST",
        &format!("/api/jobs/sora/{}/save", encoded(&ids[1])),
        Some(json!({"project_id": "takes"})),
    )
    .await;
    assert_eq!(saved.status, StatusCode::OK);
    let key = saved.json()["r2_key"]
        .as_str()
        .unwrap()
        .replace(".mp4", ".json");
    let metadata: Value =
        serde_json::from_slice(&std::fs::read(h.dir.path().join("data/media").join(key)).unwrap())
            .unwrap();
    assert_eq!(metadata["seed"], 4_294_967_295u64);
}

#[tokio::test]
async fn takes_without_a_seed_get_consecutive_random_ones() {
    let h = start();
    let reply = takes(&h, json!({"count": 2})).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let made = reply.json()["takes"].as_array().unwrap().clone();
    let first = made[0]["seed"].as_u64().unwrap() as u32;
    assert_eq!(
        made[1]["seed"].as_u64().unwrap() as u32,
        first.wrapping_add(1)
    );
}

#[tokio::test]
async fn bad_counts_and_seeds_are_refused_before_anything_is_made() {
    let h = start();
    for extra in [
        json!({"count": 0}),
        json!({"count": 9}),
        json!({"count": "3"}),
        json!({}),
        json!({"count": 2, "seed": -1}),
        json!({"count": 2, "seed": 4_294_967_296u64}),
        json!({"count": 2, "colour": "red"}),
    ] {
        let reply = takes(&h, extra.clone()).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{extra}");
    }
    let bad_seed = api(
        &h.app,
        "POST",
        "/api/projects/takes/jobs",
        Some(body(json!({"seed": 1.5}))),
    )
    .await;
    assert_eq!(bad_seed.status, StatusCode::UNPROCESSABLE_ENTITY);
    let listed = api(&h.app, "GET", "/api/projects/takes/jobs", None)
        .await
        .json();
    assert_eq!(listed["jobs"], json!([]));
}

#[tokio::test]
async fn every_take_counts_against_the_limits_all_or_none() {
    let h = start_with(
        tempfile::tempdir().unwrap(),
        Limits {
            active_per_project: 4,
            ..Limits::default()
        },
    );
    let reply = takes(&h, json!({"count": 5})).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    let listed = api(&h.app, "GET", "/api/projects/takes/jobs", None)
        .await
        .json();
    assert_eq!(listed["jobs"], json!([]), "none of the five was made");
    let reply = takes(&h, json!({"count": 4})).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    assert_eq!(
        takes(&h, json!({"count": 1})).await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
}
