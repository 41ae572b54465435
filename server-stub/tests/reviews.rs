//! Review links through the real router: what a link's token reaches, revocation and expiry
//! seen by a second server on the same storage, hostile and oversized notes, and the rate limit.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, StatusCode};
use axum::Router;
use serde_json::{json, Value};
use server_stub::http::guard::{Guard, GuardSettings};
use server_stub::http::{router, Shared};
use server_stub::jobs::{JobService, Limits};
use server_stub::providers::Catalog;
use server_stub::storage::LocalStorage;

use crate::harness::*;

/// A request without the bearer token, as a reviewer's browser sends it.
async fn open(app: &Router, method: &str, uri: &str, body: Option<Value>) -> Reply {
    let builder = request(method, uri);
    let request = match body {
        Some(body) => builder
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string())),
        None => builder.body(Body::empty()),
    };
    send(app, request.unwrap()).await
}

/// Shares `videos` of `project`; the link's id and token.
async fn share(h: &Harness, project: &str, body: Value) -> (String, String) {
    let reply = api(
        &h.app,
        "POST",
        &format!("/api/projects/{project}/shares"),
        Some(body),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.json());
    let created = reply.json();
    let url = created["url"].as_str().unwrap();
    assert!(url.starts_with("http://studio.test:8080/review/"), "{url}");
    let token = url.rsplit('/').next().unwrap().to_owned();
    (created["id"].as_str().unwrap().to_owned(), token)
}

/// A second server on the same storage, as a replica is.
fn replica(h: &Harness) -> Router {
    let data = h.dir.path().join("data2");
    let media = h.dir.path().join("data/media");
    let storage = Arc::new(LocalStorage::new(media.clone(), data.join("tmp")).unwrap());
    let jobs = JobService::start(data, storage, Catalog::default(), Limits::default()).unwrap();
    router(
        Shared {
            jobs,
            token: TOKEN.into(),
            public_url: None,
            client_api_base: "/api".into(),
            metrics_token: None,
            guard: Guard::new(GuardSettings {
                bound: "127.0.0.1".parse().unwrap(),
                public_urls: vec![],
                api_base: "/api".into(),
                extra_hosts: vec!["studio.test".into()],
                cors_origins: vec![],
                access_code: ACCESS_CODE.into(),
                trusted_proxies: Default::default(),
            })
            .unwrap(),
        },
        &media,
        &h.dir.path().join("dist"),
    )
}

#[tokio::test]
async fn a_token_reaches_its_own_videos_and_nothing_else() {
    let h = start();
    let shared = saved(&h, "client", "a red kite over the sea").await;
    let private = saved(&h, "client", "a blue kite over the hills").await;
    let (id, token) = share(&h, "client", json!({"videos": [shared]})).await;
    assert_eq!(id.len(), 32);

    let review = open(&h.app, "GET", &format!("/api/review/{token}"), None).await;
    assert_eq!(review.status, StatusCode::OK);
    let body = review.json();
    let videos = body["videos"].as_array().unwrap();
    assert_eq!(videos.len(), 1);
    assert_eq!(videos[0]["file_name"], shared.as_str());
    assert!(videos[0]["public_url"].as_str().unwrap().ends_with(&shared));
    assert!(videos[0]["poster_url"].as_str().unwrap().ends_with(".jpg"));
    assert!(!body.to_string().contains(&private));

    // The token is no bearer: every other route refuses it.
    for uri in [
        "/api/projects/client/assets",
        "/api/projects/client/shares",
        "/api/projects/client/jobs",
        "/api/models",
    ] {
        let reply = send(
            &h.app,
            request("GET", uri)
                .header(header::AUTHORIZATION, format!("Bearer {token}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{uri}");
    }
    // Another video of the project is not in the share.
    let other = open(
        &h.app,
        "POST",
        &format!("/api/review/{token}/comments"),
        Some(json!({"video": private, "at_seconds": 1, "name": "Ana", "text": "hi"})),
    )
    .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
    // Another project neither lists nor revokes it.
    let listed = api(&h.app, "GET", "/api/projects/elsewhere/shares", None).await;
    assert_eq!(listed.json()["shares"], json!([]));
    let revoked = api(
        &h.app,
        "DELETE",
        &format!("/api/projects/elsewhere/shares/{id}"),
        None,
    )
    .await;
    assert_eq!(revoked.status, StatusCode::NOT_FOUND);
    // Its records are not media.
    let record = open(
        &h.app,
        "GET",
        &format!("/media/shares/{id}/share.json"),
        None,
    )
    .await;
    assert_eq!(record.status, StatusCode::NOT_FOUND);
    // Nothing stored holds the token.
    let stored = std::fs::read_to_string(
        h.dir
            .path()
            .join(format!("data/media/shares/{id}/share.json")),
    )
    .unwrap();
    assert!(!stored.contains(&token));
    // A made-up token opens nothing.
    let made_up = open(
        &h.app,
        "GET",
        &format!("/api/review/{}", "A".repeat(43)),
        None,
    )
    .await;
    assert_eq!(made_up.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn notes_are_kept_as_text_shown_to_the_studio_and_checked() {
    let h = start();
    let video = saved(&h, "notes", "a lighthouse at dusk").await;
    let (id, token) = share(
        &h,
        "notes",
        json!({"videos": [video], "expires_in_hours": 1.0}),
    )
    .await;
    let hostile = "<img src=x onerror=alert(1)>\u{7}";
    let comments = format!("/api/review/{token}/comments");
    let posted = open(
        &h.app,
        "POST",
        &comments,
        Some(json!({"video": video, "at_seconds": 1.25, "name": "<b>Ana</b>", "text": hostile})),
    )
    .await;
    assert_eq!(posted.status, StatusCode::CREATED);
    assert_eq!(posted.json()["text"], hostile);
    let decided = open(
        &h.app,
        "POST",
        &format!("/api/review/{token}/decisions"),
        Some(json!({"video": video, "decision": "changes_requested", "name": "Ana"})),
    )
    .await;
    assert_eq!(decided.status, StatusCode::CREATED);

    let listed = api(&h.app, "GET", "/api/projects/notes/shares", None).await;
    let shares = listed.json()["shares"].clone();
    assert_eq!(shares[0]["id"], id.as_str());
    assert_eq!(shares[0]["videos"], json!([video]));
    assert_eq!(shares[0]["comments"][0]["text"], hostile);
    assert_eq!(shares[0]["comments"][0]["name"], "<b>Ana</b>");
    assert_eq!(shares[0]["comments"][0]["at_seconds"], 1.25);
    assert_eq!(shares[0]["decisions"][0]["decision"], "changes_requested");
    assert_eq!(shares[0]["expired"], false);

    for (body, why) in [
        (
            json!({"video": video, "at_seconds": 0, "name": "n".repeat(81), "text": "t"}),
            "long name",
        ),
        (
            json!({"video": video, "at_seconds": 0, "name": "n", "text": "t".repeat(2001)}),
            "long text",
        ),
        (
            json!({"video": video, "at_seconds": 0, "name": "  ", "text": "t"}),
            "blank name",
        ),
        (
            json!({"video": video, "at_seconds": -1, "name": "n", "text": "t"}),
            "negative time",
        ),
        (
            json!({"video": video, "at_seconds": 0, "name": "Ann\nApproved by Client Director", "text": "t"}),
            "a name that forges a second line",
        ),
        (
            json!({"video": video, "at_seconds": 0, "name": "\u{202E}nnA", "text": "t"}),
            "a name that reorders itself",
        ),
        (
            json!({"video": video, "at_seconds": 0, "name": "n", "text": "t", "x": 1}),
            "unknown field",
        ),
    ] {
        let reply = open(&h.app, "POST", &comments, Some(body)).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{why}");
    }
    let most = open(
        &h.app,
        "POST",
        &comments,
        Some(json!({"video": video, "at_seconds": 0, "name": "é".repeat(80), "text": "ü".repeat(2000)})),
    )
    .await;
    assert_eq!(
        most.status,
        StatusCode::CREATED,
        "80 and 2,000 characters fit"
    );

    // 3 notes so far; the link takes 60 a minute, then 429 with Retry-After.
    for _ in 3..60 {
        let reply = open(
            &h.app,
            "POST",
            &comments,
            Some(json!({"video": video, "at_seconds": 0, "name": "n", "text": "t"})),
        )
        .await;
        assert_eq!(reply.status, StatusCode::CREATED);
    }
    let limited = open(
        &h.app,
        "POST",
        &comments,
        Some(json!({"video": video, "at_seconds": 0, "name": "n", "text": "t"})),
    )
    .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.headers.contains_key("retry-after"));
}

#[tokio::test]
async fn a_link_without_comments_still_takes_decisions() {
    let h = start();
    let video = saved(&h, "quiet", "a paper boat").await;
    let (_, token) = share(&h, "quiet", json!({"videos": [video], "comments": false})).await;
    let comment = open(
        &h.app,
        "POST",
        &format!("/api/review/{token}/comments"),
        Some(json!({"video": video, "at_seconds": 0, "name": "n", "text": "t"})),
    )
    .await;
    assert_eq!(comment.status, StatusCode::FORBIDDEN);
    let decision = open(
        &h.app,
        "POST",
        &format!("/api/review/{token}/decisions"),
        Some(json!({"video": video, "decision": "approved", "name": "n"})),
    )
    .await;
    assert_eq!(decision.status, StatusCode::CREATED);
}

/// Fails on a page that titles each video with its file id and the link with nothing: the
/// client sees the link's title, each video's prompt, and an exported cut's sequence name.
#[tokio::test]
async fn a_link_shows_its_title_and_what_each_video_shows() {
    let h = start();
    let take = saved(&h, "titled", "  a heron lifting off the marsh  ").await;
    let (_, token) = share(
        &h,
        "titled",
        json!({"videos": [take], "title": " Heron spot, cut 2 "}),
    )
    .await;
    let review = open(&h.app, "GET", &format!("/api/review/{token}"), None)
        .await
        .json();
    assert_eq!(review["title"], "Heron spot, cut 2");
    assert_eq!(
        review["videos"][0]["title"],
        "a heron lifting off the marsh"
    );
    let listed = api(&h.app, "GET", "/api/projects/titled/shares", None)
        .await
        .json();
    assert_eq!(listed["shares"][0]["title"], "Heron spot, cut 2");
    // A link given no title has none; nor has a video without metadata.
    std::fs::remove_file(
        h.dir
            .path()
            .join("data/media/projects/titled")
            .join(take.replace(".mp4", ".json")),
    )
    .unwrap();
    let (_, plain) = share(&h, "titled", json!({"videos": [take]})).await;
    let review = open(&h.app, "GET", &format!("/api/review/{plain}"), None)
        .await
        .json();
    assert_eq!(review["title"], Value::Null);
    assert_eq!(review["videos"][0]["title"], Value::Null);
}

#[tokio::test]
async fn bad_shares_are_refused() {
    let h = start();
    let video = saved(&h, "bad", "a windmill").await;
    for (body, status) in [
        (json!({"videos": []}), StatusCode::UNPROCESSABLE_ENTITY),
        (
            json!({"videos": [video], "expires_in_hours": 0}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"videos": [video], "expires_in_hours": 721}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"videos": [video], "expires_in_hours": 1.5}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (json!({"videos": ["nope.mp4"]}), StatusCode::NOT_FOUND),
        (json!({"videos": ["../x.mp4"]}), StatusCode::NOT_FOUND),
        (
            json!({"videos": [video], "title": "   "}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"videos": [video], "title": "Cut 3\nApproved by the client"}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"videos": [video], "title": "\u{202E}tuc lanif"}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"videos": [video], "title": "x".repeat(121)}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ] {
        let reply = api(
            &h.app,
            "POST",
            "/api/projects/bad/shares",
            Some(body.clone()),
        )
        .await;
        assert_eq!(reply.status, status, "{body}");
    }
}

#[tokio::test]
async fn revoked_and_expired_links_are_dead_on_every_server() {
    let h = start();
    let other = replica(&h);
    let video = saved(&h, "dead", "a hot air balloon").await;
    let (id, token) = share(&h, "dead", json!({"videos": [video]})).await;
    let review = format!("/api/review/{token}");
    assert_eq!(
        open(&other, "GET", &review, None).await.status,
        StatusCode::OK
    );
    let revoked = api(
        &h.app,
        "DELETE",
        &format!("/api/projects/dead/shares/{id}"),
        None,
    )
    .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    for app in [&h.app, &other] {
        assert_eq!(
            open(app, "GET", &review, None).await.status,
            StatusCode::NOT_FOUND
        );
        let post = open(
            app,
            "POST",
            &format!("{review}/decisions"),
            Some(json!({"video": video, "decision": "approved", "name": "n"})),
        )
        .await;
        assert_eq!(post.status, StatusCode::NOT_FOUND);
    }

    let (id, token) = share(&h, "dead", json!({"videos": [video]})).await;
    let path = h
        .dir
        .path()
        .join(format!("data/media/shares/{id}/share.json"));
    let mut record: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    record["expires_at"] = json!("2020-01-01T00:00:00Z");
    std::fs::write(&path, record.to_string()).unwrap();
    for app in [&h.app, &other] {
        let reply = open(app, "GET", &format!("/api/review/{token}"), None).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND);
    }
    let listed = api(&other, "GET", "/api/projects/dead/shares", None).await;
    assert_eq!(listed.json()["shares"][0]["expired"], true);
}
