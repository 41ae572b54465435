//! Picks through the real router: a saved video is starred, approved or rejected with PATCH,
//! the list carries both fields and filters by them, and removing the video removes its pick.

use axum::body::Body;
use axum::http::StatusCode;
use serde_json::{json, Value};

use crate::harness::*;

async fn pick(h: &Harness, name: &str, body: Value) -> Reply {
    let uri = format!("/api/projects/picks/assets/{}", encoded(name));
    api(&h.app, "PATCH", &uri, Some(body)).await
}

/// The file names the list answers for `query`, and their picks.
async fn listed(h: &Harness, query: &str) -> Vec<(String, bool, Value)> {
    let reply = api(
        &h.app,
        "GET",
        &format!("/api/projects/picks/assets{query}"),
        None,
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{query}");
    reply.json()["videos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let key = v["key"].as_str().unwrap();
            (
                key.rsplit('/').next().unwrap().to_owned(),
                v["favourite"].as_bool().unwrap(),
                v["decision"].clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_video_is_starred_approved_filtered_and_cleared() {
    let h = start();
    let a = saved(&h, "picks", "a kite over dunes").await;
    let b = saved(&h, "picks", "a tram in the snow").await;
    assert!(listed(&h, "")
        .await
        .iter()
        .all(|(_, f, d)| !f && d.is_null()));

    let reply = pick(&h, &a, json!({"favourite": true})).await;
    assert_eq!(reply.status, StatusCode::OK);
    let asset = reply.json();
    assert_eq!(
        (asset["favourite"].clone(), asset["decision"].clone()),
        (json!(true), Value::Null)
    );
    assert_eq!(asset["prompt"], "a kite over dunes");
    assert!(asset["key"].as_str().unwrap().ends_with(&a));
    // A field left out stays as it was.
    let reply = pick(&h, &a, json!({"decision": "approved"})).await;
    assert_eq!(reply.json()["favourite"], true);
    assert_eq!(reply.json()["decision"], "approved");
    assert_eq!(
        pick(&h, &b, json!({"decision": "rejected"})).await.status,
        StatusCode::OK
    );

    assert_eq!(
        listed(&h, "?favourite=true").await,
        [(a.clone(), true, json!("approved"))]
    );
    assert_eq!(
        listed(&h, "?favourite=false").await,
        [(b.clone(), false, json!("rejected"))]
    );
    assert_eq!(listed(&h, "?decision=approved").await.len(), 1);
    assert_eq!(listed(&h, "?decision=rejected&favourite=true").await, []);
    let all = api(
        &h.app,
        "GET",
        "/api/projects/picks/assets?favourite=true",
        None,
    )
    .await;
    assert_eq!(all.json()["total"], 1, "total counts what the filter keeps");

    // null clears the decision; false un-stars.
    let reply = pick(&h, &a, json!({"decision": null, "favourite": false})).await;
    assert_eq!(
        (
            reply.json()["favourite"].clone(),
            reply.json()["decision"].clone()
        ),
        (json!(false), Value::Null)
    );
    assert_eq!(listed(&h, "?decision=approved").await, []);
    let stored = std::fs::read_dir(h.dir.path().join("data/media/projects/picks/picks"))
        .unwrap()
        .count();
    assert_eq!(
        stored, 1,
        "one key per picked video, none for a cleared one"
    );

    // Removing the video removes its pick.
    let uri = format!("/api/projects/picks/assets/{}", encoded(&b));
    assert_eq!(
        api(&h.app, "DELETE", &uri, None).await.status,
        StatusCode::NO_CONTENT
    );
    let stored = std::fs::read_dir(h.dir.path().join("data/media/projects/picks/picks"))
        .unwrap()
        .count();
    assert_eq!(stored, 0);
}

#[tokio::test]
async fn bad_picks_are_refused_and_change_nothing() {
    let h = start();
    let a = saved(&h, "picks", "a lighthouse").await;
    for body in [
        json!({}),
        json!({"favourite": "yes"}),
        json!({"decision": "maybe"}),
        json!({"favourite": true, "colour": "red"}),
    ] {
        assert_eq!(
            pick(&h, &a, body.clone()).await.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}"
        );
    }
    for name in ["nope.mp4", "../x.mp4", "x.json"] {
        assert_eq!(
            pick(&h, name, json!({"favourite": true})).await.status,
            StatusCode::NOT_FOUND,
            "{name}"
        );
    }
    let bad_filter = api(
        &h.app,
        "GET",
        "/api/projects/picks/assets?decision=maybe",
        None,
    )
    .await;
    assert_eq!(bad_filter.status, StatusCode::BAD_REQUEST);
    assert!(listed(&h, "")
        .await
        .iter()
        .all(|(_, f, d)| !f && d.is_null()));
}

/// Fails on picks a client could not order: each answer says when its pick was read back, a
/// later change a later time, so a client keeps the newest of what it hears.
#[tokio::test]
async fn each_pick_answer_says_when_it_was_read_back() {
    let h = start();
    let a = saved(&h, "picks", "a lantern on a pier").await;
    let mut times = Vec::new();
    for body in [
        json!({"favourite": true}),
        json!({"decision": "approved"}),
        json!({"favourite": false}),
    ] {
        let reply = pick(&h, &a, body).await;
        assert_eq!(reply.status, StatusCode::OK);
        times.push(reply.json()["picked_at"].as_i64().expect("picked_at"));
    }
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    let listed = api(&h.app, "GET", "/api/projects/picks/assets", None)
        .await
        .json();
    assert!(
        listed["videos"][0].get("picked_at").is_none(),
        "only answers to a change carry it"
    );
}

#[tokio::test]
async fn one_video_is_read_by_its_file_name_as_the_list_shows_it() {
    let h = start();
    let a = saved(&h, "picks", "a heron at dawn").await;
    assert_eq!(
        pick(&h, &a, json!({"favourite": true})).await.status,
        StatusCode::OK
    );
    let uri = format!("/api/projects/picks/assets/{}", encoded(&a));
    let reply = api(&h.app, "GET", &uri, None).await;
    assert_eq!(reply.status, StatusCode::OK);
    let one = reply.json();
    let list = api(&h.app, "GET", "/api/projects/picks/assets", None).await;
    assert_eq!(
        one,
        list.json()["videos"][0],
        "the list's entry, pick and all"
    );
    assert_eq!(one["favourite"], true);
    assert!(one["public_url"].as_str().unwrap().ends_with(&a));

    for missing in ["nothing-here.mp4", "a.json", "..%2Fsecret.mp4"] {
        let uri = format!("/api/projects/picks/assets/{missing}");
        let reply = api(&h.app, "GET", &uri, None).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{missing}");
        assert_eq!(reply.json()["error"]["message"], "No such video");
    }
    let uri = format!("/api/projects/picks/assets/{}", encoded(&a));
    let reply = send(&h.app, request("GET", &uri).body(Body::empty()).unwrap()).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
}
