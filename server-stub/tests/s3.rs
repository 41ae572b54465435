//! The S3 backend against a real S3-compatible server, moto's server mode (installed by
//! scripts/setup-py.sh), which each test starts itself: multipart uploads, listings across
//! pages, copies, public URLs, and a whole hosted job kept in a bucket.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::http::{header, Request, StatusCode};
use bytes::Bytes;
use clap::Parser;
use futures_util::{stream, StreamExt};
use provider_fakes::{byte_at, Fakes, Settings};
use server_stub::config::Config;
use server_stub::engine::VideoSpec;
use server_stub::http::guard::{Guard, GuardSettings};
use server_stub::http::{router, Shared};
use server_stub::jobs::record::Status;
use server_stub::jobs::{JobService, NewJob};
use server_stub::project::ProjectFolder;
use server_stub::storage::{S3Storage, Storage, StorageError};
use tower::ServiceExt;

use crate::moto::{Moto, BUCKET};

fn pattern(len: usize) -> Vec<u8> {
    (0..len as u64).map(byte_at).collect()
}

#[tokio::test]
async fn the_bucket_keeps_streams_copies_and_long_listings() {
    let moto = Moto::start().await;
    let store = S3Storage::new(&moto.settings()).unwrap();
    // 12 MiB in 1 MiB chunks: three parts of a multipart upload.
    let video = pattern(12 * 1024 * 1024);
    let chunks: Vec<std::io::Result<Bytes>> = video
        .chunks(1024 * 1024)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    let put = store
        .put_stream("previews/m:task_1.mp4", stream::iter(chunks).boxed())
        .await
        .unwrap();
    assert_eq!(put.size_bytes, video.len() as u64);
    let copied = store
        .copy("previews/m:task_1.mp4", "projects/p/m:task_1.mp4")
        .await
        .unwrap();
    assert_eq!(copied.size_bytes, video.len() as u64);
    store
        .put_bytes("projects/p/m:task_1.json", b"{\"prompt\":\"x\"}".to_vec())
        .await
        .unwrap();
    store
        .put_bytes("projects/p/deeper/ignored.json", b"{}".to_vec())
        .await
        .unwrap();

    let url = store.public_url("projects/p/m:task_1.mp4").unwrap();
    assert_eq!(
        url,
        format!("{}/{BUCKET}/studio/projects/p/m:task_1.mp4", moto.url)
    );
    let served = reqwest::get(&url).await.unwrap();
    assert_eq!(served.headers()["content-type"], "video/mp4");
    assert!(
        served.bytes().await.unwrap() == video,
        "the public URL serves the video"
    );

    let mut keys: Vec<String> = store
        .list("projects/p/")
        .await
        .unwrap()
        .iter()
        .map(|o| o.key.clone())
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        ["projects/p/m:task_1.json", "projects/p/m:task_1.mp4"]
    );

    // More keys than one page of a listing holds (1,000 at S3 and moto).
    let store = Arc::new(store);
    stream::iter(0..1010)
        .map(|i| {
            let store = store.clone();
            async move {
                store
                    .put_bytes(&format!("projects/many/{i:04}.json"), b"{}".to_vec())
                    .await
                    .unwrap()
            }
        })
        .buffer_unordered(32)
        .collect::<Vec<_>>()
        .await;
    assert_eq!(store.list("projects/many/").await.unwrap().len(), 1010);

    assert!(store.head("projects/p/none.mp4").await.unwrap().is_none());
    assert!(matches!(
        store.copy("previews/none.mp4", "projects/p/x.mp4").await,
        Err(StorageError::NotFound(_))
    ));
    assert!(matches!(
        store.put_bytes("../escape", vec![]).await,
        Err(StorageError::InvalidKey(_))
    ));
}

#[tokio::test]
async fn a_hosted_job_is_kept_in_the_bucket_and_listed_with_public_urls() {
    let moto = Moto::start().await;
    let fakes = Fakes::new(Settings {
        content_bytes: 7 * 1024 * 1024,
        ..Settings::default()
    });
    let address = provider_fakes::serve(fakes.clone(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let s3 = moto.settings();
    let config = Config::parse_from([
        "server-stub".to_owned(),
        format!("--data={}", dir.path().display()),
        "--openai-api-key=fake-key".into(),
        format!("--openai-base-url=http://{address}/openai/v1"),
        "--provider-poll-ms=20".into(),
        "--storage=s3".into(),
        format!("--s3-bucket={}", s3.bucket),
        format!("--s3-endpoint={}", moto.url),
        "--s3-access-key-id=test".into(),
        "--s3-secret-access-key=test".into(),
        "--s3-prefix=studio".into(),
        format!("--s3-public-url={}", s3.public_base_url),
    ]);
    let storage = config.storage().unwrap();
    let jobs = JobService::start(
        config.data.clone(),
        storage.clone(),
        config.catalog().unwrap(),
        config.limits().unwrap(),
    )
    .unwrap();
    let id = jobs
        .create(NewJob {
            project_id: "bucket".into(),
            prompt: "A heron in the reeds".into(),
            model: Some("sora-2".into()),
            spec: VideoSpec::default(),
            ..NewJob::default()
        })
        .await
        .unwrap()
        .sora_job_id;
    let record = loop {
        let record = jobs.get(&id).unwrap();
        if matches!(record.status, Status::Done | Status::Error) {
            break record;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(record.status, Status::Done, "{:?}", record.error);
    let preview = storage
        .head(record.preview_key.as_deref().unwrap())
        .await
        .unwrap();
    assert_eq!(preview.unwrap().size_bytes, 7 * 1024 * 1024);
    let key = jobs.save(&id, "bucket", "").await.unwrap();
    assert!(storage
        .head(&key.replace(".mp4", ".json"))
        .await
        .unwrap()
        .is_some());

    let state = Shared {
        jobs,
        token: "t".into(),
        public_url: None,
        client_api_base: "/api".into(),
        metrics_token: None,
        guard: Guard::new(GuardSettings {
            bound: "127.0.0.1".parse().unwrap(),
            public_urls: vec![],
            api_base: "/api".into(),
            extra_hosts: vec![],
            cors_origins: vec![],
            access_code: "c".into(),
            trusted_proxies: Default::default(),
        })
        .unwrap(),
    };
    let app = router(state, dir.path(), dir.path());
    let response = app
        .clone()
        .oneshot(
            Request::get("/api/projects/bucket/assets")
                .header(header::HOST, "localhost")
                .header(header::AUTHORIZATION, "Bearer t")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: serde_json::Value =
        serde_json::from_slice(&to_bytes(response.into_body(), usize::MAX).await.unwrap()).unwrap();
    let video = &body["videos"][0];
    assert_eq!(video["key"], key);
    let url = video["public_url"].as_str().unwrap();
    assert_eq!(url, format!("{}/studio/{key}", s3.public_base_url));
    let served = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    assert_eq!(served.len(), 7 * 1024 * 1024);
    assert!(served
        .iter()
        .enumerate()
        .all(|(i, &b)| b == byte_at(i as u64)));

    // A real video put in the bucket by another tool gets its poster made into the bucket.
    let made = dir.path().join("made.mp4");
    let spec = server_stub::engine::VideoSpec {
        seconds: 1,
        width: 640,
        height: 360,
        fps: 2,
    };
    server_stub::engine::render_clip("a bucket of light", &spec, &made).unwrap();
    storage
        .put_file("projects/bucket/made.mp4", &made)
        .await
        .unwrap();
    let get = |uri: &str| {
        app.clone().oneshot(
            Request::get(uri)
                .header(header::HOST, "localhost")
                .header(header::AUTHORIZATION, "Bearer t")
                .body(Body::empty())
                .unwrap(),
        )
    };
    let poster = get("/media/projects/bucket/made.jpg").await.unwrap();
    assert_eq!(poster.status(), StatusCode::OK);
    assert!(storage
        .head("projects/bucket/made.jpg")
        .await
        .unwrap()
        .is_some());
    let listed = get("/api/projects/bucket/assets").await.unwrap();
    let body: serde_json::Value =
        serde_json::from_slice(&to_bytes(listed.into_body(), usize::MAX).await.unwrap()).unwrap();
    let made = body["videos"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["key"] == "projects/bucket/made.mp4")
        .unwrap();
    assert_eq!(
        made["poster_url"],
        format!("{}/studio/projects/bucket/made.jpg", s3.public_base_url),
        "a stored poster is served by the bucket"
    );
}

/// A replica over `bucket` that answers listings from its kept copy for 300 s.
fn kept_listings(bucket: &Arc<dyn Storage>) -> server_stub::storage::ListingCache {
    server_stub::storage::ListingCache::new(
        bucket.clone(),
        server_stub::storage::Freshness {
            fresh: Duration::from_secs(300),
            stale_at_most: Duration::from_secs(300),
        },
    )
}

/// Fails on picks read, changed and written whole from a listing: two replicas over one bucket,
/// each answering listings from its kept copy (up to 300 s old), kept only their own pick.
#[tokio::test]
async fn picks_made_on_two_replicas_over_one_bucket_both_hold() {
    use server_stub::picks::{self, Change, Decision, Pick};
    let moto = Moto::start().await;
    let bucket: Arc<dyn Storage> = Arc::new(S3Storage::new(&moto.settings()).unwrap());
    let (a, b) = (kept_listings(&bucket), kept_listings(&bucket));
    // Both have listed the project's picks: each now answers from its own copy.
    for replica in [&a, &b] {
        assert!(picks::all(replica, &ProjectFolder::of("p"))
            .await
            .unwrap()
            .is_empty());
    }
    let starred = picks::change(
        &a,
        &ProjectFolder::of("p"),
        "v.mp4",
        Change {
            favourite: Some(true),
            ..Change::default()
        },
    )
    .await
    .unwrap();
    assert!(starred.favourite);
    let approved = picks::change(
        &b,
        &ProjectFolder::of("p"),
        "v.mp4",
        Change {
            decision: Some(Some(Decision::Approved)),
            ..Change::default()
        },
    )
    .await
    .unwrap();
    let both = Pick {
        favourite: true,
        decision: Some(Decision::Approved),
    };
    assert_eq!(
        approved, both,
        "the answer reads the other field from the bucket"
    );
    assert_eq!(
        picks::all(bucket.as_ref(), &ProjectFolder::of("p"))
            .await
            .unwrap()["v.mp4"],
        both
    );
}

/// Fails on a pick changed from a listing: each replica kept a listing that still held a pick
/// written whole before per-field keys (`v.mp4.fav-approved`); after B rejected the video
/// (writing per-field keys, removing the whole one), A's unstar read the old whole pick from
/// its listing, wrote it back as per-field keys and undid B's rejection.
#[tokio::test]
async fn a_pick_changed_from_a_listing_older_than_the_change_undoes_nothing() {
    use server_stub::picks::{self, Change, Decision, Pick};
    let moto = Moto::start().await;
    let bucket: Arc<dyn Storage> = Arc::new(S3Storage::new(&moto.settings()).unwrap());
    let (a, b) = (kept_listings(&bucket), kept_listings(&bucket));
    const ROUNDS: usize = 30;
    for round in 0..ROUNDS {
        bucket
            .put_bytes(
                &format!("projects/p/picks/v{round}.mp4.fav-approved"),
                Vec::new(),
            )
            .await
            .unwrap();
    }
    // Both have listed the project's picks with the old keys in them, and keep that listing.
    for replica in [&a, &b] {
        assert_eq!(
            picks::all(replica, &ProjectFolder::of("p"))
                .await
                .unwrap()
                .len(),
            ROUNDS
        );
    }
    for round in 0..ROUNDS {
        let name = format!("v{round}.mp4");
        let rejected = picks::change(
            &b,
            &ProjectFolder::of("p"),
            &name,
            Change {
                decision: Some(Some(Decision::Rejected)),
                ..Change::default()
            },
        )
        .await
        .unwrap();
        assert_eq!(
            rejected,
            Pick {
                favourite: true,
                decision: Some(Decision::Rejected)
            }
        );
        let unstarred = picks::change(
            &a,
            &ProjectFolder::of("p"),
            &name,
            Change {
                favourite: Some(false),
                ..Change::default()
            },
        )
        .await
        .unwrap();
        let both = Pick {
            favourite: false,
            decision: Some(Decision::Rejected),
        };
        assert_eq!(unstarred, both, "round {round}: A's answer");
        assert_eq!(
            picks::of(&a, &ProjectFolder::of("p"), &name).await.unwrap(),
            both,
            "round {round}: A reads the video's own keys"
        );
        assert_eq!(
            picks::all(bucket.as_ref(), &ProjectFolder::of("p"))
                .await
                .unwrap()[&name],
            both,
            "round {round}: the bucket"
        );
    }
}
