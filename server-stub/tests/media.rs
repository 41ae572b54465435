//! The media folder answered as a static file server: whole files and single ranges, long
//! answers streamed, HEAD, and the conditional requests a player and a cache send.

use axum::body::Body;
use axum::http::{header, StatusCode};

use crate::harness::*;

/// A file of `len` bytes, each byte its offset modulo 251 (so that any misplaced read shows),
/// dropped into the media folder; answers its URL path.
fn drop_file(h: &Harness, name: &str, len: usize) -> (String, Vec<u8>) {
    let folder = h.dir.path().join("data/media/projects/m");
    std::fs::create_dir_all(&folder).unwrap();
    let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    std::fs::write(folder.join(name), &bytes).unwrap();
    (format!("/media/projects/m/{name}"), bytes)
}

async fn get(h: &Harness, uri: &str, headers: &[(header::HeaderName, &str)]) -> Reply {
    let mut builder = request("GET", uri);
    for (name, value) in headers {
        builder = builder.header(name, *value);
    }
    send(&h.app, builder.body(Body::empty()).unwrap()).await
}

#[tokio::test]
async fn whole_files_and_ranges_carry_the_right_bytes_even_when_streamed() {
    let h = start();
    // Past the size read in one go (4 MiB): the whole file and a long range are streamed.
    let (uri, bytes) = drop_file(&h, "long.mp4", 9 * 1024 * 1024 + 7);
    let whole = get(&h, &uri, &[]).await;
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(
        whole.headers[header::CONTENT_LENGTH],
        bytes.len().to_string()
    );
    assert_eq!(whole.headers[header::ACCEPT_RANGES], "bytes");
    assert_eq!(whole.headers[header::CONTENT_TYPE], "video/mp4");
    assert!(whole.body == bytes, "the whole file, byte for byte");

    for (range, from, to) in [
        ("bytes=0-99", 0, 99),
        ("bytes=1048570-6291460", 1_048_570, 6_291_460),
        ("bytes=9437180-", 9_437_180, bytes.len() - 1),
        ("bytes=-5", bytes.len() - 5, bytes.len() - 1),
    ] {
        let part = get(&h, &uri, &[(header::RANGE, range)]).await;
        assert_eq!(part.status, StatusCode::PARTIAL_CONTENT, "{range}");
        assert_eq!(
            part.headers[header::CONTENT_RANGE],
            format!("bytes {from}-{to}/{}", bytes.len()),
            "{range}"
        );
        assert!(part.body == bytes[from..=to], "{range}: the asked bytes");
    }
}

#[tokio::test]
async fn ranges_that_cannot_be_met_get_416_with_the_length() {
    let h = start();
    let (uri, _) = drop_file(&h, "short.mp4", 1000);
    for range in ["bytes=1000-", "bytes=0-1,5-9", "bytes=9-2"] {
        let reply = get(&h, &uri, &[(header::RANGE, range)]).await;
        assert_eq!(reply.status, StatusCode::RANGE_NOT_SATISFIABLE, "{range}");
        assert_eq!(reply.headers[header::CONTENT_RANGE], "bytes */1000");
    }
    let (empty, _) = drop_file(&h, "empty.mp4", 0);
    let whole = get(&h, &empty, &[]).await;
    assert_eq!((whole.status, whole.body.len()), (StatusCode::OK, 0));
}

#[tokio::test]
async fn head_answers_the_headers_without_the_body() {
    let h = start();
    let (uri, _) = drop_file(&h, "head.mp4", 5000);
    let reply = send(&h.app, request("HEAD", &uri).body(Body::empty()).unwrap()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.headers[header::CONTENT_LENGTH], "5000");
    assert!(reply.body.is_empty());
    let post = send(&h.app, request("POST", &uri).body(Body::empty()).unwrap()).await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn a_cache_revalidates_by_etag_or_date() {
    let h = start();
    let (uri, bytes) = drop_file(&h, "cached.json", 300);
    let first = get(&h, &uri, &[]).await;
    assert_eq!(first.headers[header::CONTENT_TYPE], "application/json");
    let etag = first.headers[header::ETAG].to_str().unwrap().to_owned();
    let date = first.headers[header::LAST_MODIFIED]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(etag.starts_with("W/\"300-"), "{etag}");

    let by_tag = get(&h, &uri, &[(header::IF_NONE_MATCH, &etag)]).await;
    assert_eq!(by_tag.status, StatusCode::NOT_MODIFIED);
    assert!(by_tag.body.is_empty());
    let by_date = get(&h, &uri, &[(header::IF_MODIFIED_SINCE, &date)]).await;
    assert_eq!(by_date.status, StatusCode::NOT_MODIFIED);
    let other_tag = get(&h, &uri, &[(header::IF_NONE_MATCH, "W/\"1-1\"")]).await;
    assert_eq!(other_tag.status, StatusCode::OK);
    assert!(other_tag.body == bytes);

    let old = "Mon, 01 Jan 2001 00:00:00 GMT";
    let changed = get(&h, &uri, &[(header::IF_UNMODIFIED_SINCE, old)]).await;
    assert_eq!(changed.status, StatusCode::PRECONDITION_FAILED);

    // If-Range with the current date: the range; with another validator: the whole file.
    let same = get(
        &h,
        &uri,
        &[(header::RANGE, "bytes=0-9"), (header::IF_RANGE, &date)],
    )
    .await;
    assert_eq!(
        (same.status, same.body.len()),
        (StatusCode::PARTIAL_CONTENT, 10)
    );
    let stale = get(
        &h,
        &uri,
        &[(header::RANGE, "bytes=0-9"), (header::IF_RANGE, old)],
    )
    .await;
    assert_eq!((stale.status, stale.body.len()), (StatusCode::OK, 300));
}

#[tokio::test]
async fn names_outside_the_keys_are_404_and_percent_escapes_are_decoded() {
    let h = start();
    let (_, bytes) = drop_file(&h, "a:b.mp4", 10);
    let escaped = get(&h, "/media/projects/m/a%3Ab.mp4", &[]).await;
    assert_eq!(escaped.status, StatusCode::OK);
    assert!(escaped.body == bytes);
    for uri in [
        "/media/projects/m",
        "/media/projects/m/",
        "/media/projects/m/a%20b.mp4",
    ] {
        assert_eq!(
            get(&h, uri, &[]).await.status,
            StatusCode::NOT_FOUND,
            "{uri}"
        );
    }
}
