//! The ZIP download through the real router: every chosen video and its metadata, byte for
//! byte, with checksums an unzip tool accepts, and the refusals.

use std::io::{Cursor, Read};

use axum::http::{header, StatusCode};

use crate::harness::*;

#[tokio::test]
async fn the_zip_holds_the_chosen_videos_and_their_metadata_byte_for_byte() {
    let h = start();
    let first = saved(&h, "zipped", "a red kite").await;
    let second = saved(&h, "zipped", "a blue boat").await;
    saved(&h, "zipped", "not chosen").await;
    let reply = api(
        &h.app,
        "GET",
        &format!(
            "/api/projects/zipped/assets.zip?names={},{}",
            encoded(&first),
            encoded(&second)
        ),
        None,
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.headers[header::CONTENT_TYPE], "application/zip");
    assert_eq!(
        reply.headers[header::CONTENT_LENGTH],
        reply.body.len().to_string().as_str(),
        "the announced length is the length sent"
    );
    assert!(reply.headers[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .contains("zipped-videos.zip"));
    let mut archive = zip::ZipArchive::new(Cursor::new(reply.body)).unwrap();
    let mut names: Vec<String> = archive.file_names().map(str::to_owned).collect();
    names.sort();
    let mut expected = Vec::new();
    for video in [&first, &second] {
        let stem = video.strip_suffix(".mp4").unwrap();
        expected.push(format!("{stem}.json").replace(':', "_"));
        expected.push(video.replace(':', "_"));
    }
    expected.sort();
    assert_eq!(names, expected);
    let media = h.dir.path().join("data/media/projects/zipped");
    for video in [&first, &second] {
        let stem = video.strip_suffix(".mp4").unwrap();
        for (stored, zipped) in [
            (video.to_string(), video.replace(':', "_")),
            (
                format!("{stem}.json"),
                format!("{stem}.json").replace(':', "_"),
            ),
        ] {
            let mut file = archive.by_name(&zipped).unwrap();
            assert_eq!(file.compression(), zip::CompressionMethod::Stored);
            let mut bytes = Vec::new();
            // Reading to the end checks the CRC-32.
            file.read_to_end(&mut bytes).unwrap();
            assert_eq!(
                bytes,
                std::fs::read(media.join(&stored)).unwrap(),
                "{stored}"
            );
        }
    }
}

#[tokio::test]
async fn a_zip_of_nothing_or_of_strangers_is_refused() {
    let h = start();
    let video = saved(&h, "zipped", "a red kite").await;
    for (query, status) in [
        ("names=", StatusCode::UNPROCESSABLE_ENTITY),
        ("names=,,", StatusCode::UNPROCESSABLE_ENTITY),
        ("names=nope.mp4", StatusCode::NOT_FOUND),
        ("names=..%2Fx.mp4", StatusCode::NOT_FOUND),
        ("", StatusCode::BAD_REQUEST),
    ] {
        let uri = format!("/api/projects/zipped/assets.zip?{query}");
        assert_eq!(
            api(&h.app, "GET", &uri, None).await.status,
            status,
            "{query}"
        );
    }
    let other = api(
        &h.app,
        "GET",
        &format!("/api/projects/other/assets.zip?names={}", encoded(&video)),
        None,
    )
    .await;
    assert_eq!(
        other.status,
        StatusCode::NOT_FOUND,
        "another project's video"
    );
    let anonymous = send(
        &h.app,
        request(
            "GET",
            &format!("/api/projects/zipped/assets.zip?names={}", encoded(&video)),
        )
        .body(axum::body::Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
}

/// Fails on a ZIP only the page could fetch (with the bearer) and had to hold whole before
/// saving: a ticket lets the browser download it itself.
#[tokio::test]
async fn a_ticket_lets_the_browser_download_the_zip_without_the_bearer() {
    let h = start();
    let video = saved(&h, "ticketed", "a paper lantern rising").await;
    let with_bearer = api(
        &h.app,
        "GET",
        &format!(
            "/api/projects/ticketed/assets.zip?names={}",
            encoded(&video)
        ),
        None,
    )
    .await;
    let reply = api(
        &h.app,
        "POST",
        "/api/projects/ticketed/downloads",
        Some(serde_json::json!({"names": [video, video]})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let answer = reply.json();
    assert_eq!(answer["expires_in_s"], 300);
    let ticket = answer["ticket"].as_str().unwrap().to_owned();
    let download = |ticket: String| {
        let app = h.app.clone();
        async move {
            let request = request("GET", &format!("/api/downloads/{ticket}"));
            send(&app, request.body(axum::body::Body::empty()).unwrap()).await
        }
    };
    let reply = download(ticket.clone()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.headers[header::CONTENT_TYPE], "application/zip");
    assert_eq!(reply.body, with_bearer.body, "the same archive");

    let mut forged = ticket.clone();
    forged.insert(1, 'x');
    assert_eq!(download(forged).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        download("nothing".into()).await.status,
        StatusCode::NOT_FOUND
    );
    let unknown = api(
        &h.app,
        "POST",
        "/api/projects/ticketed/downloads",
        Some(serde_json::json!({"names": ["gone.mp4"]})),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let none = api(
        &h.app,
        "POST",
        "/api/projects/ticketed/downloads",
        Some(serde_json::json!({"names": []})),
    )
    .await;
    assert_eq!(none.status, StatusCode::UNPROCESSABLE_ENTITY);
}
