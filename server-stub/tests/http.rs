//! Every route and every error at the HTTP level, through the real router.

use std::path::Path;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use serde_json::{json, Value};
use server_stub::jobs::record::Status;
use server_stub::jobs::Limits;
use tower::ServiceExt;

use crate::harness::*;

#[tokio::test]
async fn every_api_call_needs_the_bearer_token() {
    let h = start();
    let bare = send(
        &h.app,
        request("GET", "/api/projects/p1/assets")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(bare.status, StatusCode::UNAUTHORIZED);
    assert_eq!(bare.error_code(), "unauthorized");
    assert_eq!(bare.headers[header::WWW_AUTHENTICATE], "Bearer");
    for value in [
        "Bearer wrong",
        "Bearer ",
        "test-token",
        "Basic dGVzdC10b2tlbg==",
        "Bearer test-token2",
    ] {
        let reply = send(
            &h.app,
            request("GET", "/api/projects/p1/assets")
                .header(header::AUTHORIZATION, value)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{value}");
    }
    // Every operation, even with a body that would be refused, answers 401 first.
    let id = "local-1%3Atask_01aaaaaaaaaaaaaaaaaaaaaaaa";
    for (method, uri) in [
        ("GET", "/api/projects/p1/jobs".to_owned()),
        ("POST", "/api/projects/p1/jobs".to_owned()),
        ("GET", format!("/api/jobs/sora/{id}")),
        ("POST", format!("/api/jobs/sora/{id}/save")),
        ("GET", "/api/openapi.json".to_owned()),
        ("GET", "/api/projects/BAD/assets".to_owned()),
    ] {
        let reply = send(
            &h.app,
            request(method, &uri)
                .header(header::AUTHORIZATION, "Bearer wrong")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from("{bad"))
                .unwrap(),
        )
        .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{method} {uri}");
    }
    let ok = api(&h.app, "GET", "/api/projects/p1/assets", None).await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(ok.json(), json!({"videos": [], "total": 0}));
}

#[tokio::test]
async fn bad_input_gets_a_clear_json_error() {
    let h = start();
    let jobs = "/api/projects/p1/jobs";
    let cases: Vec<(Reply, StatusCode)> = vec![
        (
            raw_post(&h.app, jobs, Some("application/json"), "{bad").await,
            StatusCode::BAD_REQUEST,
        ),
        (
            raw_post(&h.app, jobs, None, r#"{"prompt":"x"}"#).await,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            raw_post(
                &h.app,
                jobs,
                Some("application/json"),
                vec![b' '; 70 * 1024],
            )
            .await,
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        (
            api(&h.app, "POST", jobs, Some(json!({"prompt": "   "}))).await,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            api(
                &h.app,
                "POST",
                jobs,
                Some(json!({"prompt": "x".repeat(4001)})),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            api(&h.app, "POST", jobs, Some(json!({"prompt": 5}))).await,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            api(
                &h.app,
                "POST",
                jobs,
                Some(json!({"prompt": "x", "seconds": 0})),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            api(
                &h.app,
                "POST",
                jobs,
                Some(json!({"prompt": "x", "seconds": "abc"})),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            api(
                &h.app,
                "POST",
                jobs,
                Some(json!({"prompt": "x", "size": "99x99"})),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            api(
                &h.app,
                "POST",
                jobs,
                Some(json!({"prompt": "x", "model": "sora-2"})),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            api(
                &h.app,
                "POST",
                jobs,
                Some(json!({"prompt": "x", "surprise": 1})),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            api(
                &h.app,
                "POST",
                "/api/projects/%20%20/jobs",
                Some(json!({"prompt": "x"})),
            )
            .await,
            StatusCode::BAD_REQUEST,
        ),
        (
            api(
                &h.app,
                "GET",
                &format!("/api/projects/{}/assets", "a".repeat(101)),
                None,
            )
            .await,
            StatusCode::BAD_REQUEST,
        ),
        (
            api(&h.app, "GET", "/api/projects/a%0Ab/assets", None).await,
            StatusCode::BAD_REQUEST,
        ),
        (
            api(
                &h.app,
                "GET",
                "/api/jobs/sora/local-1%3Atask_01aaaaaaaaaaaaaaaaaaaaaaaa",
                None,
            )
            .await,
            StatusCode::NOT_FOUND,
        ),
        (
            api(&h.app, "GET", "/api/jobs/sora/..%2F..%2Fapi-token", None).await,
            StatusCode::NOT_FOUND,
        ),
        (
            api(
                &h.app,
                "POST",
                "/api/jobs/sora/local-1%3Atask_01aa/save",
                Some(json!({"project_id": "p1"})),
            )
            .await,
            StatusCode::NOT_FOUND,
        ),
        (
            api(&h.app, "GET", "/api/no/such/route", None).await,
            StatusCode::NOT_FOUND,
        ),
        (
            api(&h.app, "GET", "/api", None).await,
            StatusCode::NOT_FOUND,
        ),
        (
            api(&h.app, "GET", "/api/", None).await,
            StatusCode::NOT_FOUND,
        ),
    ];
    for (i, (reply, expected)) in cases.into_iter().enumerate() {
        assert_eq!(
            reply.status,
            expected,
            "case {i}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        let body = reply.json();
        assert!(
            body["error"]["code"].is_string() && body["error"]["message"].is_string(),
            "case {i}: {body}"
        );
    }
}

/// Fails when a route under `/projects/{project_id}` takes its project id without the check:
/// every one of them, whatever its method, answers 400 naming the rule for a blank id and
/// one with a control character, before it reads anything else.
#[tokio::test]
async fn every_project_route_checks_the_project_id() {
    let h = start();
    let document = api(&h.app, "GET", "/api/openapi.json", None).await.json();
    let mut checked = 0;
    for (path, operations) in document["paths"].as_object().unwrap() {
        if !path.starts_with("/projects/{project_id}") {
            continue;
        }
        for method in operations.as_object().unwrap().keys() {
            for bad in ["%20%20", "a%0Ab"] {
                let uri = format!("/api{}", path.replace("{project_id}", bad))
                    .replace('{', "x")
                    .replace('}', "");
                let reply = api(&h.app, &method.to_uppercase(), &uri, Some(json!({}))).await;
                assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{method} {uri}");
                assert_eq!(
                    reply.json()["error"]["message"],
                    "project id must be 1 to 100 characters, not blank, with no control characters",
                    "{method} {uri}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked}");
}

#[tokio::test]
async fn a_job_renders_saves_once_and_is_served_with_ranges() {
    let h = start();
    let id = create(&h.app, "p1", "a blue ball bouncing over a green field").await;
    assert!(
        id.starts_with("local-1:task_") && id.len() == "local-1:task_".len() + 26,
        "{id}"
    );
    let early = api(
        &h.app,
        "POST",
        &format!("/api/jobs/sora/{}/save", encoded(&id)),
        Some(json!({"project_id": "p1", "prompt": "x"})),
    )
    .await;
    assert!(
        matches!(early.status, StatusCode::CONFLICT | StatusCode::OK),
        "{}",
        early.status
    );
    wait_for(&h.jobs, &id, Status::Done).await;

    let job = api(
        &h.app,
        "GET",
        &format!("/api/jobs/sora/{}", encoded(&id)),
        None,
    )
    .await
    .json();
    assert_eq!(job["status"], "done");
    assert_eq!(job["progress"], 100);
    assert_eq!(
        job["preview_url"],
        format!("http://studio.test:8080/media/previews/{id}.mp4")
    );
    assert_eq!(
        (job["seconds"].clone(), job["size"].clone()),
        (json!(1), json!(SMALL))
    );

    let save = api(
        &h.app,
        "POST",
        &format!("/api/jobs/sora/{}/save", encoded(&id)),
        Some(json!({"project_id": "p1", "prompt": "a blue ball"})),
    )
    .await;
    assert_eq!(save.status, StatusCode::OK);
    let key = format!("projects/p1/{id}.mp4");
    assert_eq!(
        save.json(),
        json!({"r2_key": key, "public_url": format!("http://studio.test:8080/media/{key}")})
    );
    let meta_path = h
        .dir
        .path()
        .join(format!("data/media/projects/p1/{id}.json"));
    let written = std::fs::metadata(&meta_path).unwrap().modified().unwrap();
    let again = api(
        &h.app,
        "POST",
        &format!("/api/jobs/sora/{}/save", encoded(&id)),
        Some(json!({"project_id": "p1", "prompt": "changed"})),
    )
    .await;
    assert_eq!(again.json()["r2_key"], key);
    assert_eq!(
        std::fs::metadata(&meta_path).unwrap().modified().unwrap(),
        written,
        "nothing written twice"
    );

    let assets = api(&h.app, "GET", "/api/projects/p1/assets", None)
        .await
        .json();
    let videos = assets["videos"].as_array().unwrap();
    assert_eq!(videos.len(), 1);
    assert_eq!(videos[0]["key"], key);
    let poster = format!("projects/p1/{id}.jpg");
    assert_eq!(
        videos[0]["poster_url"],
        format!("http://studio.test:8080/media/{poster}")
    );
    let media = h.dir.path().join("data/media");
    assert!(
        media.join(&poster).exists() && media.join(format!("previews/{id}.jpg")).exists(),
        "the preview's poster is made when the job finishes and copied on save"
    );
    assert!(videos[0]["size_bytes"].as_u64().unwrap() > 1000);
    assert!(videos[0]["last_modified"].as_str().unwrap().ends_with('Z'));

    let gzip = |uri: &str| {
        request("GET", uri)
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header(header::ACCEPT_ENCODING, "gzip")
            .body(Body::empty())
            .unwrap()
    };
    let list = send(&h.app, gzip("/api/projects/p1/assets")).await;
    assert_eq!(
        list.headers[header::CONTENT_ENCODING],
        "gzip",
        "the asset list can be large"
    );
    let one = send(&h.app, gzip(&format!("/api/jobs/sora/{}", encoded(&id)))).await;
    assert!(
        !one.headers.contains_key(header::CONTENT_ENCODING),
        "a job answer is small"
    );
    let listed = api(&h.app, "GET", "/api/projects/p1/jobs", None)
        .await
        .json();
    assert_eq!(listed["jobs"][0]["sora_job_id"], id);
    assert_eq!(
        api(&h.app, "GET", "/api/projects/other/jobs", None)
            .await
            .json(),
        json!({"jobs": []})
    );

    let range = send(
        &h.app,
        request("GET", &format!("/media/{key}"))
            .header(header::RANGE, "bytes=0-99")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(range.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(range.body.len(), 100);
    assert_eq!(&range.body[4..8], b"ftyp");
    assert_eq!(range.headers[header::CONTENT_TYPE], "video/mp4");
    assert!(
        range.headers.contains_key(header::ETAG)
            && range.headers.contains_key(header::LAST_MODIFIED)
    );
    let full = send(
        &h.app,
        request("GET", &format!("/media/{key}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(
        full.headers[header::ETAG],
        range.headers[header::ETAG],
        "one ETag for the file"
    );
    assert!(
        !full.headers.contains_key(header::CONTENT_ENCODING),
        "video is not compressed"
    );
    check_mp4(&h.dir.path().join(format!("data/media/{key}")), 24, 1.0);

    let meta = send(
        &h.app,
        request("GET", &format!("/media/projects/p1/{id}.json"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(meta.headers[header::CONTENT_TYPE], "application/json");
    let meta = meta.json();
    assert_eq!(
        (
            meta["prompt"].clone(),
            meta["codec"].clone(),
            meta["sora_job_id"].clone()
        ),
        (json!("a blue ball"), json!("h264"), json!(id))
    );
}

/// The file is H.264 with the expected frames and duration, and moov comes before mdat.
fn check_mp4(path: &Path, frames: u32, seconds: f64) {
    let bytes = std::fs::read(path).unwrap();
    let find = |tag: &[u8]| bytes.windows(4).position(|w| w == tag).unwrap();
    assert!(find(b"moov") < find(b"mdat"), "fast start");
    let Ok(out) = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-count_frames",
            "-show_entries",
            "stream=codec_name,nb_read_frames,duration",
            "-of",
            "json",
        ])
        .arg(path)
        .output()
    else {
        eprintln!("ffprobe is not installed (scripts/setup-test.sh installs it); checked the box order only");
        return;
    };
    let probe: Value = serde_json::from_slice(&out.stdout).unwrap();
    let stream = &probe["streams"][0];
    assert_eq!(stream["codec_name"], "h264");
    assert_eq!(stream["nb_read_frames"], frames.to_string());
    let duration: f64 = stream["duration"].as_str().unwrap().parse().unwrap();
    assert!((duration - seconds).abs() < 0.05, "duration {duration}");
}

#[tokio::test]
async fn media_paths_cannot_leave_the_media_folder() {
    let h = start();
    std::fs::write(h.dir.path().join("data/secret.txt"), "secret").unwrap();
    for uri in [
        "/media/../secret.txt",
        "/media/%2e%2e/secret.txt",
        "/media/..%2fsecret.txt",
        "/media/previews/../../secret.txt",
    ] {
        let reply = send(&h.app, request("GET", uri).body(Body::empty()).unwrap()).await;
        assert_ne!(reply.status, StatusCode::OK, "{uri}");
        assert!(
            !String::from_utf8_lossy(&reply.body).contains("secret"),
            "{uri}"
        );
    }
    let save = api(
        &h.app,
        "POST",
        "/api/jobs/sora/local-1%3Atask_01aa/save",
        Some(json!({"project_id": "\u{7}x"})),
    )
    .await;
    assert_eq!(save.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_app_config_and_caching() {
    let h = start();
    let config = send(
        &h.app,
        request("GET", "/config.json").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(
        config.json(),
        json!({"apiBase": "/api", "token": TOKEN, "models": ["local-1"]})
    );
    let models = api(&h.app, "GET", "/api/models", None).await.json();
    assert_eq!(
        models,
        json!({"models": [{
            "id": "local-1", "provider": "local", "default": true, "progress_estimated": false,
            "inputs": {"first_frame": true, "last_frame": true, "references": 4, "extend": true, "remix": true, "cast_elements": null},
            "price": {"usd_per_second": 0.0, "by_resolution": {}, "blocks": [], "tokens": null,
                      "seen": "", "source": "the embedded engine"},
            "seconds": 10, "size": "1280x720", "lengths": (1..=20).collect::<Vec<u32>>(), "shots": null
        }]})
    );
    assert_eq!(config.headers[header::CACHE_CONTROL], "no-store");
    let page = send(
        &h.app,
        request("GET", "/some-project").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&page.body).contains("<title>Studio</title>"));
    assert_eq!(page.headers[header::CACHE_CONTROL], "no-store");
    let asset = send(
        &h.app,
        request("GET", "/assets/app-abc123.js")
            .header(header::ACCEPT_ENCODING, "gzip")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(
        asset.headers[header::CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(asset.headers[header::CONTENT_ENCODING], "gzip");
    let preflight = send(
        &h.app,
        request("OPTIONS", "/api/projects/p1/assets")
            .header(header::ORIGIN, "http://elsewhere.test")
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "GET")
            .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "authorization")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(preflight.status, StatusCode::OK);
    assert_eq!(
        preflight.headers[header::ACCESS_CONTROL_ALLOW_ORIGIN],
        ELSEWHERE
    );
}

/// A GET of `uri` from `app` with extra headers.
async fn get_with(app: &Router, uri: &str, headers: &[(&str, &str)]) -> Reply {
    let host = headers.iter().any(|(name, _)| *name == "host");
    let mut builder = if host {
        Request::get(uri)
    } else {
        request("GET", uri)
    };
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    send(app, builder.body(Body::empty()).unwrap()).await
}

#[tokio::test]
async fn a_foreign_host_name_gets_nothing() {
    let h = start();
    for uri in [
        "/",
        "/config.json",
        "/api/models",
        "/media/x.mp4",
        "/join?code=x",
    ] {
        for host in ["rebind.example", "rebind.example:8080", "10.9.8.7:8080"] {
            let reply = send(
                &h.app,
                Request::get(uri)
                    .header(header::HOST, host)
                    .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
            assert_eq!(reply.status, StatusCode::MISDIRECTED_REQUEST, "{host}{uri}");
            assert_eq!(reply.error_code(), "misdirected");
            assert!(!String::from_utf8_lossy(&reply.body).contains(TOKEN));
        }
    }
    let no_host = send(
        &h.app,
        Request::get("/config.json").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(no_host.status, StatusCode::MISDIRECTED_REQUEST);
    for host in [
        "localhost:8080",
        "127.0.0.1:8080",
        "[::1]:8080",
        "studio.test",
    ] {
        let reply = get_with(&h.app, "/config.json", &[("host", host)]).await;
        assert_eq!(reply.status, StatusCode::OK, "{host}");
    }
}

#[tokio::test]
async fn the_token_goes_to_the_servers_own_page_only() {
    let h = start();
    let own = get_with(&h.app, "/config.json", &[("sec-fetch-site", "same-origin")]).await;
    assert_eq!(own.json()["token"], TOKEN);
    let typed = get_with(&h.app, "/config.json", &[("sec-fetch-site", "none")]).await;
    assert_eq!(typed.json()["token"], TOKEN);
    for headers in [
        vec![
            ("sec-fetch-site", "cross-site"),
            ("origin", "http://evil.test"),
        ],
        vec![
            ("sec-fetch-site", "same-site"),
            ("origin", "http://app.studio.test"),
        ],
        vec![("sec-fetch-site", "cross-site"), ("origin", ELSEWHERE)],
        vec![("origin", "http://evil.test")],
        vec![("origin", "null")],
    ] {
        let reply = get_with(&h.app, "/config.json", &headers).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{headers:?}");
        assert!(!String::from_utf8_lossy(&reply.body).contains(TOKEN));
        assert!(
            !reply
                .headers
                .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN),
            "never CORS on config.json"
        );
    }
    let page = get_with(&h.app, "/", &[("sec-fetch-site", "cross-site")]).await;
    assert_eq!(
        page.status,
        StatusCode::FORBIDDEN,
        "no app inside a foreign page"
    );
    let same_origin_post = get_with(
        &h.app,
        "/config.json",
        &[
            ("origin", "http://studio.test:8080"),
            ("sec-fetch-site", "same-origin"),
        ],
    )
    .await;
    assert_eq!(same_origin_post.json()["token"], TOKEN);
}

/// Fails on trusting every loopback peer: behind Caddy or nginx on the same machine, every
/// visitor's request arrives from loopback, and read /config.json with the token.
#[tokio::test]
async fn a_forwarded_request_is_judged_by_the_client_its_trusted_proxy_names() {
    let h = start();
    for forwarded in [
        ("x-forwarded-for", "203.0.113.9"),
        ("x-forwarded-for", "127.0.0.1"),
        ("forwarded", "for=203.0.113.9;proto=https"),
        ("x-real-ip", "203.0.113.9"),
    ] {
        // From loopback, but passed on by a proxy nobody named: not this machine.
        let reply = get_with(&h.app, "/config.json", &[forwarded]).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{forwarded:?}");
        assert!(!String::from_utf8_lossy(&reply.body).contains(TOKEN));
        // From the trusted proxy, for a client elsewhere: the invitation is needed.
        if !forwarded.1.contains("127.0.0.1") {
            let reply = get_with(&h.proxied, "/config.json", &[forwarded]).await;
            assert_eq!(reply.status, StatusCode::FORBIDDEN, "{forwarded:?}");
        }
    }
    // The trusted proxy, for a browser on its own machine, and for an invited one.
    let local = get_with(
        &h.proxied,
        "/config.json",
        &[("x-forwarded-for", "127.0.0.1")],
    )
    .await;
    assert_eq!(local.json()["token"], TOKEN);
    let cookie = format!("studio_access={ACCESS_CODE}");
    let invited = get_with(
        &h.proxied,
        "/config.json",
        &[("x-forwarded-for", "203.0.113.9"), ("cookie", &cookie)],
    )
    .await;
    assert_eq!(invited.json()["token"], TOKEN);
    // The scheme the trusted proxy was reached by builds the media addresses; anyone else's
    // word for it is not taken.
    saved(&h, "p1", "behind tls").await;
    for (app, scheme) in [(&h.proxied, "https://"), (&h.app, "http://")] {
        let listed = send(
            app,
            request("GET", "/api/projects/p1/assets")
                .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
                .header("x-forwarded-proto", "https")
                .header("x-forwarded-for", "127.0.0.1")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        let url = listed.json()["videos"][0]["public_url"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(url.starts_with(scheme), "{url}");
    }
}

/// Fails on reading every forwarding header, `Forwarded` first: behind nginx on this machine
/// (`--trusted-proxies 127.0.0.1`, `X-Forwarded-For $proxy_add_x_forwarded_for`), a visitor who
/// wrote `Forwarded: for=127.0.0.1` or `X-Real-IP: 127.0.0.1` read the token.
#[tokio::test]
async fn a_forwarding_header_the_proxy_does_not_write_hands_out_nothing() {
    use server_stub::http::guard::{ForwardedHeader, TrustedProxies};
    let h = start();
    let loopback = || TrustedProxies::parse(&["127.0.0.1".into()]).unwrap();
    for (header, written, spoofs) in [
        (
            ForwardedHeader::XForwardedFor,
            ("x-forwarded-for", "203.0.113.9"),
            vec![
                ("forwarded", "for=127.0.0.1"),
                ("x-real-ip", "127.0.0.1"),
                ("x-forwarded-for", "127.0.0.1"),
            ],
        ),
        (
            ForwardedHeader::Forwarded,
            ("forwarded", "for=203.0.113.9"),
            vec![
                ("x-forwarded-for", "127.0.0.1"),
                ("x-real-ip", "127.0.0.1"),
                ("forwarded", "for=127.0.0.1"),
            ],
        ),
        (
            ForwardedHeader::XRealIp,
            ("x-real-ip", "203.0.113.9"),
            vec![
                ("x-forwarded-for", "127.0.0.1"),
                ("forwarded", "for=127.0.0.1"),
            ],
        ),
    ] {
        let app = behind_local_proxy(&h, loopback().reading(header));
        for spoof in spoofs {
            // What the visitor wrote comes first; what the proxy writes comes last.
            let reply = get_with(&app, "/config.json", &[spoof, written]).await;
            assert_eq!(reply.status, StatusCode::FORBIDDEN, "{header:?} {spoof:?}");
            assert!(!String::from_utf8_lossy(&reply.body).contains(TOKEN));
        }
        // A browser on the proxy's own machine still gets the app.
        let local = match header {
            ForwardedHeader::XForwardedFor => ("x-forwarded-for", "127.0.0.1"),
            ForwardedHeader::Forwarded => ("forwarded", "for=127.0.0.1"),
            ForwardedHeader::XRealIp => ("x-real-ip", "127.0.0.1"),
        };
        let reply = get_with(&app, "/config.json", &[local]).await;
        assert_eq!(reply.json()["token"], TOKEN, "{header:?}");
    }
}

#[tokio::test]
async fn other_machines_need_the_invitation_link() {
    let h = start();
    for uri in ["/", "/config.json", "/some-project"] {
        let reply = get_with(&h.remote, uri, &[]).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{uri}");
        let body = String::from_utf8_lossy(&reply.body).into_owned();
        assert!(body.contains("/join?code="), "{body}");
        assert!(!body.contains(TOKEN));
    }
    let review = get_with(
        &h.remote,
        "/review/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        &[("sec-fetch-site", "cross-site")],
    )
    .await;
    assert_eq!(
        review.status,
        StatusCode::OK,
        "a review link opens anywhere"
    );
    let page = String::from_utf8_lossy(&review.body).into_owned();
    assert!(!page.contains(TOKEN));
    assert!(
        page.contains("<title>Review"),
        "the review page of its own, not the studio: {page}"
    );
    assert!(review.headers.contains_key(header::CONTENT_SECURITY_POLICY));
    let wrong = get_with(&h.remote, "/join?code=guess", &[]).await;
    assert_eq!(wrong.status, StatusCode::FORBIDDEN);
    assert!(!wrong.headers.contains_key(header::SET_COOKIE));
    let joined = get_with(&h.remote, &format!("/join?code={ACCESS_CODE}"), &[]).await;
    assert_eq!(joined.status, StatusCode::SEE_OTHER);
    assert_eq!(joined.headers[header::LOCATION], "/");
    let cookie = joined.headers[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .to_owned();
    for part in ["studio_access=", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let pair = cookie.split(';').next().unwrap().to_owned();
    let config = get_with(
        &h.remote,
        "/config.json",
        &[
            ("cookie", &format!("theme=dark; {pair}")),
            ("sec-fetch-site", "same-origin"),
        ],
    )
    .await;
    assert_eq!(config.json()["token"], TOKEN);
    let forged = get_with(
        &h.remote,
        "/config.json",
        &[("cookie", "studio_access=guess")],
    )
    .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let foreign_with_cookie = get_with(
        &h.remote,
        "/config.json",
        &[("cookie", &pair), ("sec-fetch-site", "cross-site")],
    )
    .await;
    assert_eq!(foreign_with_cookie.status, StatusCode::FORBIDDEN);
    let api = send(
        &h.remote,
        request("GET", "/api/models")
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(
        api.status,
        StatusCode::OK,
        "the API itself still needs only the token"
    );
}

#[tokio::test]
async fn pages_carry_security_headers_and_cors_is_for_listed_origins() {
    let h = start();
    for uri in ["/", "/p1"] {
        let reply = get_with(&h.app, uri, &[]).await;
        let csp = reply.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(
            csp.contains("script-src 'self' 'wasm-unsafe-eval'"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(reply.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        assert_eq!(reply.headers[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(reply.headers[header::REFERRER_POLICY], "no-referrer");
    }
    // A script or JSON is never shown as a document: nosniff only, not the page's headers.
    for uri in ["/config.json", "/assets/app-abc123.js"] {
        let reply = get_with(&h.app, uri, &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{uri}");
        assert_eq!(reply.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        for page_only in [
            header::CONTENT_SECURITY_POLICY,
            header::X_FRAME_OPTIONS,
            header::REFERRER_POLICY,
        ] {
            assert!(
                !reply.headers.contains_key(&page_only),
                "{uri}: {page_only}"
            );
        }
    }
    let api = api(&h.app, "GET", "/api/models", None).await;
    assert_eq!(api.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    let stranger = send(
        &h.app,
        request("OPTIONS", "/api/projects/p1/jobs")
            .header(header::ORIGIN, "http://evil.test")
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .header(
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                "authorization,content-type",
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(!stranger
        .headers
        .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
    let listed = get_with(&h.app, "/config.json", &[("origin", ELSEWHERE)]).await;
    assert!(!listed
        .headers
        .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
}

fn record(id: &str, status: &str, attempts: u32) -> Value {
    json!({
        "sora_job_id": id, "project_id": "p1", "prompt": "resumed after a crash", "model": "local-1",
        "provider": "local", "spec": {"width": 320, "height": 180, "fps": 12, "seconds": 1},
        "status": status, "progress": 40, "preview_key": null, "error": null, "attempts": attempts,
        "created_at": "2026-11-21T10:00:00Z", "updated_at": "2026-11-21T10:00:00Z"
    })
}

#[tokio::test]
async fn a_restart_resumes_cut_off_jobs_and_never_leaves_one_running() {
    let dir = tempfile::tempdir().unwrap();
    let jobs_dir = dir.path().join("data/jobs");
    std::fs::create_dir_all(&jobs_dir).unwrap();
    let cut_off = "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaa1";
    let queued = "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaa2";
    let hopeless = "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaa3";
    std::fs::write(
        jobs_dir.join(format!("{cut_off}.json")),
        record(cut_off, "running", 1).to_string(),
    )
    .unwrap();
    std::fs::write(
        jobs_dir.join(format!("{queued}.json")),
        record(queued, "queued", 0).to_string(),
    )
    .unwrap();
    std::fs::write(
        jobs_dir.join(format!("{hopeless}.json")),
        record(hopeless, "running", 3).to_string(),
    )
    .unwrap();
    std::fs::write(jobs_dir.join("local-1:task_broken.json"), "{not json").unwrap();
    std::fs::write(jobs_dir.join(".local-1:task_half.tmp"), "{\"half").unwrap();
    let h = start_in(dir);
    let failed = h.jobs.get(hopeless).unwrap();
    assert_eq!(failed.status, Status::Error);
    assert!(failed.error.unwrap().contains("Interrupted"));
    wait_for(&h.jobs, cut_off, Status::Done).await;
    wait_for(&h.jobs, queued, Status::Done).await;
    assert!(
        h.dir
            .path()
            .join("data/jobs/local-1:task_broken.json.corrupt")
            .exists(),
        "kept aside, not lost"
    );
    assert!(
        !h.dir
            .path()
            .join("data/jobs/.local-1:task_half.tmp")
            .exists(),
        "a half-written temporary file is gone"
    );
    let on_disk: Value = serde_json::from_slice(
        &std::fs::read(h.dir.path().join(format!("data/jobs/{cut_off}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(on_disk["status"], "done");
}

#[tokio::test]
async fn a_graceful_stop_keeps_the_running_job_queued_for_the_next_start() {
    let h = start();
    let reply = api(
        &h.app,
        "POST",
        "/api/projects/p1/jobs",
        Some(json!({"prompt": "long", "seconds": 20, "size": "1920x1080"})),
    )
    .await;
    let id = reply.json()["sora_job_id"].as_str().unwrap().to_owned();
    wait_for(&h.jobs, &id, Status::Running).await;
    h.jobs.shutdown().await;
    assert_eq!(h.jobs.get(&id).unwrap().status, Status::Queued);
    let on_disk: Value = serde_json::from_slice(
        &std::fs::read(h.dir.path().join(format!("data/jobs/{id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(on_disk["status"], "queued");
}

#[tokio::test]
async fn the_openapi_document_describes_every_route_it_serves() {
    let h = start();
    let unauthorised = send(
        &h.app,
        request("GET", "/api/openapi.json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(unauthorised.status, StatusCode::UNAUTHORIZED);
    let doc = api(&h.app, "GET", "/api/openapi.json", None).await.json();
    assert_eq!(doc["servers"][0]["url"], "/api");
    let mut operations: Vec<String> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .map(move |method| format!("{} {path}", method.to_uppercase()))
        })
        .collect();
    operations.sort();
    assert_eq!(
        operations,
        [
            "DELETE /jobs/sora/{job_id}",
            "DELETE /projects/{project_id}/assets/{file_name}",
            "DELETE /projects/{project_id}/budget",
            "DELETE /projects/{project_id}/cast/{cast_id}",
            "DELETE /projects/{project_id}/references/{reference_id}",
            "DELETE /projects/{project_id}/sequences/{sequence_id}",
            "DELETE /projects/{project_id}/shares/{share_id}",
            "DELETE /projects/{project_id}/sounds/{sound_id}",
            "GET /downloads/{ticket}",
            "GET /jobs/sora/{job_id}",
            "GET /models",
            "GET /projects/{project_id}/assets",
            "GET /projects/{project_id}/assets.zip",
            "GET /projects/{project_id}/assets/{file_name}",
            "GET /projects/{project_id}/assets/{file_name}/credentials",
            "GET /projects/{project_id}/budget",
            "GET /projects/{project_id}/cast",
            "GET /projects/{project_id}/cast/{cast_id}",
            "GET /projects/{project_id}/events",
            "GET /projects/{project_id}/jobs",
            "GET /projects/{project_id}/references",
            "GET /projects/{project_id}/sequences",
            "GET /projects/{project_id}/sequences/{sequence_id}",
            "GET /projects/{project_id}/sequences/{sequence_id}/captions.srt",
            "GET /projects/{project_id}/sequences/{sequence_id}/captions.vtt",
            "GET /projects/{project_id}/sequences/{sequence_id}/package.zip",
            "GET /projects/{project_id}/sequences/{sequence_id}/timeline.edl",
            "GET /projects/{project_id}/sequences/{sequence_id}/timeline.otio",
            "GET /projects/{project_id}/sequences/{sequence_id}/timeline.xml",
            "GET /projects/{project_id}/shares",
            "GET /projects/{project_id}/sounds",
            "GET /projects/{project_id}/spend",
            "GET /review/{token}",
            "GET /review/{token}/videos/{file_name}/credentials",
            "GET /spend",
            "PATCH /projects/{project_id}/assets/{file_name}",
            "POST /jobs/sora/{job_id}/cancel",
            "POST /jobs/sora/{job_id}/copy",
            "POST /jobs/sora/{job_id}/save",
            "POST /projects/{project_id}/cast",
            "POST /projects/{project_id}/downloads",
            "POST /projects/{project_id}/jobs",
            "POST /projects/{project_id}/references",
            "POST /projects/{project_id}/sequences",
            "POST /projects/{project_id}/sequences/import",
            "POST /projects/{project_id}/sequences/{sequence_id}/exports",
            "POST /projects/{project_id}/sequences/{sequence_id}/generate",
            "POST /projects/{project_id}/shares",
            "POST /projects/{project_id}/sounds",
            "POST /projects/{project_id}/takes",
            "POST /review/{token}/comments",
            "POST /review/{token}/decisions",
            "PUT /projects/{project_id}/budget",
            "PUT /projects/{project_id}/cast/{cast_id}",
            "PUT /projects/{project_id}/sequences/{sequence_id}",
        ]
    );
    // Every documented operation is served: none answers "no such route".
    for operation in &operations {
        let (method, path) = operation.split_once(' ').unwrap();
        let uri = format!(
            "/api{}",
            path.replace("{project_id}", "p1")
                .replace("{job_id}", "local-1%3Atask_01aa")
                .replace("{file_name}", "x.mp4")
                .replace("{reference_id}", "ref_01aa")
                .replace("{share_id}", &"0".repeat(32))
                .replace("{sequence_id}", "seq_0")
                .replace("{cast_id}", "cast_0")
                .replace("{token}", &"A".repeat(43))
        );
        if path.ends_with("/events") {
            // A stream that stays open: its status says it is served.
            let response = h
                .app
                .clone()
                .oneshot(
                    request(method, &uri)
                        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
                        .body(Body::empty())
                        .unwrap(),
                )
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{operation}");
            continue;
        }
        let reply = api(&h.app, method, &uri, (method == "POST").then(|| json!({}))).await;
        if reply.status != StatusCode::NO_CONTENT {
            assert_ne!(
                reply.json()["error"]["message"],
                "No such API route",
                "{operation}"
            );
        }
        assert_ne!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{operation}");
    }
    // The documented job fields are the ones a job answer carries.
    let id = create(&h.app, "p1", "schema check").await;
    let job = api(
        &h.app,
        "GET",
        &format!("/api/jobs/sora/{}", encoded(&id)),
        None,
    )
    .await
    .json();
    let mut answered: Vec<&String> = job.as_object().unwrap().keys().collect();
    let mut documented: Vec<&String> = doc["components"]["schemas"]["JobView"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    answered.sort();
    documented.sort();
    assert_eq!(answered, documented);
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    // Every answer an operation can give is documented, and so is every constraint.
    for operation in &operations {
        let (method, path) = operation.split_once(' ').unwrap();
        let op = &doc["paths"][path][method.to_lowercase()];
        for status in ["400", "401", "421"] {
            assert!(op["responses"][status].is_object(), "{operation} {status}");
        }
        if op["requestBody"].is_object() {
            for status in ["413", "415", "422"] {
                assert!(op["responses"][status].is_object(), "{operation} {status}");
            }
        }
    }
    let create = &doc["paths"]["/projects/{project_id}/jobs"]["post"];
    assert!(create["responses"]["429"].is_object());
    let project = &create["parameters"][0]["schema"];
    assert_eq!(
        (&project["minLength"], &project["maxLength"]),
        (&json!(1), &json!(100))
    );
    assert!(project["pattern"].as_str().unwrap().contains("\\s"));
    let fields = &doc["components"]["schemas"]["CreateJob"]["properties"];
    assert_eq!(fields["prompt"]["maxLength"], 4000);
    assert_eq!(fields["model"]["enum"], json!(["local-1", null]));
    assert_eq!(
        doc["components"]["schemas"]["Seconds"]["oneOf"][0]["maximum"],
        20
    );
}

#[tokio::test]
async fn active_jobs_are_capped_per_project_and_in_all() {
    let h = start_with(
        tempfile::tempdir().unwrap(),
        Limits {
            active_per_project: 1,
            active: 2,
            ..Limits::default()
        },
    );
    // Long renders, so the first jobs are still active when the next creates come.
    let long = json!({"prompt": "a long take", "seconds": 20, "size": "1920x1080"});
    let first = api(&h.app, "POST", "/api/projects/p1/jobs", Some(long.clone())).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let again = api(&h.app, "POST", "/api/projects/p1/jobs", Some(long.clone())).await;
    assert_eq!(again.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(again.error_code(), "too_many_requests");
    assert_eq!(again.headers[header::RETRY_AFTER], "20");
    assert_eq!(
        again.json()["error"]["retry_after_s"],
        20,
        "and in the body, for the page"
    );
    assert!(again.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("This project already has 1 jobs"));
    let other = api(&h.app, "POST", "/api/projects/p2/jobs", Some(long.clone())).await;
    assert_eq!(
        other.status,
        StatusCode::CREATED,
        "another project has room"
    );
    let third = api(&h.app, "POST", "/api/projects/p3/jobs", Some(long)).await;
    assert_eq!(
        third.status,
        StatusCode::TOO_MANY_REQUESTS,
        "the server is full"
    );
    assert_eq!(
        h.jobs.list("p1").len() + h.jobs.list("p3").len(),
        1,
        "refused jobs are not kept"
    );
    h.jobs.shutdown().await;
}

#[tokio::test]
async fn old_finished_jobs_and_their_previews_expire_but_saved_and_paid_for_videos_stay() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (old, recent, this_month) = (
        "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaa7",
        "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaa8",
        "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaa9",
    );
    // As old, but made at a price and never saved; and the same once saved.
    let (paid, paid_saved) = (
        "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaab",
        "local-1:task_01aaaaaaaaaaaaaaaaaaaaaaac",
    );
    // Made at the start of this month: past a short retention, but its cost still counts
    // against this month's budgets, so it is kept until the month is over.
    let month_start = {
        let today = time::OffsetDateTime::now_utc().date();
        format!(
            "{}-{:02}-01T00:00:00Z",
            today.year(),
            u8::from(today.month())
        )
    };
    std::fs::create_dir_all(data.join("jobs")).unwrap();
    std::fs::create_dir_all(data.join("media/previews")).unwrap();
    std::fs::create_dir_all(data.join("media/projects/p1")).unwrap();
    for (id, at) in [
        (old, "2020-01-01T00:00:00Z"),
        (recent, "2999-01-01T00:00:00Z"),
        (this_month, month_start.as_str()),
        (paid, "2020-01-01T00:00:00Z"),
        (paid_saved, "2020-01-01T00:00:00Z"),
    ] {
        let mut record = record(id, "done", 1);
        if id == paid || id == paid_saved {
            record["estimate"] = json!({"usd": 0.4, "seen": "2020-01-01"});
        }
        record["preview_key"] = json!(format!("previews/{id}.mp4"));
        record["created_at"] = json!(at);
        record["updated_at"] = json!(at);
        std::fs::write(data.join(format!("jobs/{id}.json")), record.to_string()).unwrap();
        std::fs::write(data.join(format!("media/previews/{id}.mp4")), b"video").unwrap();
    }
    let saved = data.join(format!("media/projects/p1/{old}.mp4"));
    std::fs::write(&saved, b"video").unwrap();
    std::fs::write(
        data.join(format!("media/projects/p1/{paid_saved}.mp4")),
        b"video",
    )
    .unwrap();
    let h = start_with(
        dir,
        Limits {
            retention: Some(Duration::from_secs(1)),
            ..Limits::default()
        },
    );
    // A job's record goes first, then its preview: wait for both.
    let old_preview = data.join(format!("media/previews/{old}.mp4"));
    for _ in 0..200 {
        if h.jobs.get(old).is_none() && h.jobs.get(paid_saved).is_none() && !old_preview.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(h.jobs.get(old).is_none(), "the old record is gone");
    assert!(!data.join(format!("jobs/{old}.json")).exists());
    assert!(!data.join(format!("media/previews/{old}.mp4")).exists());
    assert!(saved.exists(), "a saved video is never expired");
    assert!(h.jobs.get(recent).is_some());
    assert!(data.join(format!("media/previews/{recent}.mp4")).exists());
    assert!(h.jobs.get(this_month).is_some(), "this month's job is kept");
    // One sweep judges every job before it removes any: by now it has passed over this one.
    assert!(
        h.jobs.get(paid).is_some(),
        "a paid-for video never saved is kept"
    );
    assert!(data.join(format!("media/previews/{paid}.mp4")).exists());
    assert!(
        h.jobs.get(paid_saved).is_none(),
        "once saved, a paid-for job's preview expires like any other"
    );
}

#[tokio::test]
async fn a_job_tells_the_library_key_it_was_saved_as_until_the_video_is_deleted() {
    let h = start();
    let id = create(&h.app, "p1", "a kite over the dunes").await;
    wait_for(&h.jobs, &id, Status::Done).await;
    let job_uri = format!("/api/jobs/sora/{}", encoded(&id));
    let listed = || async {
        let list = api(&h.app, "GET", "/api/projects/p1/jobs", None)
            .await
            .json();
        list["jobs"][0]["final_r2_key"].clone()
    };
    assert_eq!(
        api(&h.app, "GET", &job_uri, None).await.json()["final_r2_key"],
        Value::Null
    );
    let body = json!({"project_id": "p1", "prompt": "a kite over the dunes"});
    let saved = api(&h.app, "POST", &format!("{job_uri}/save"), Some(body)).await;
    assert_eq!(saved.status, StatusCode::OK);
    let key = format!("projects/p1/{id}.mp4");
    assert_eq!(
        api(&h.app, "GET", &job_uri, None).await.json()["final_r2_key"],
        key
    );
    assert_eq!(
        listed().await,
        key,
        "every client learns it, not only the one that saved"
    );
    let deleted = api(
        &h.app,
        "DELETE",
        &format!("/api/projects/p1/assets/{}.mp4", encoded(&id)),
        None,
    )
    .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(
        listed().await,
        Value::Null,
        "deleted from the library, no longer saved"
    );
}

#[tokio::test]
async fn saving_again_repairs_a_damaged_library_copy() {
    let h = start();
    let id = create(&h.app, "p1", "a red kite").await;
    wait_for(&h.jobs, &id, Status::Done).await;
    let body = json!({"project_id": "p1", "prompt": "a red kite"});
    let uri = format!("/api/jobs/sora/{}/save", encoded(&id));
    let saved = api(&h.app, "POST", &uri, Some(body.clone())).await;
    assert_eq!(saved.status, StatusCode::OK);
    let media = h.dir.path().join("data/media");
    let library = media.join(format!("projects/p1/{id}.mp4"));
    let preview = std::fs::read(media.join(format!("previews/{id}.mp4"))).unwrap();
    std::fs::write(&library, &preview[..preview.len() / 2]).unwrap();
    let again = api(&h.app, "POST", &uri, Some(body)).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(
        std::fs::read(&library).unwrap(),
        preview,
        "repaired from the preview"
    );
}

#[tokio::test]
async fn cancel_stops_the_engine_and_remove_keeps_saved_videos() {
    let h = start();
    let long = json!({"prompt": "a long take", "seconds": 20, "size": "1920x1080"});
    let mut ids = Vec::new();
    for _ in 0..2 {
        let reply = api(&h.app, "POST", "/api/projects/p1/jobs", Some(long.clone())).await;
        assert_eq!(reply.status, StatusCode::CREATED);
        ids.push(reply.json()["sora_job_id"].as_str().unwrap().to_owned());
    }
    let (running, queued) = (&ids[0], &ids[1]);
    wait_for(&h.jobs, running, Status::Running).await;
    let cancel = |id: &str| format!("/api/jobs/sora/{}/cancel", encoded(id));
    for id in [queued, running] {
        let reply = api(&h.app, "POST", &cancel(id), None).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.json()["status"], "error");
        assert_eq!(reply.json()["error"], "Cancelled");
    }
    // The one worker is free at once: a 20 s 1080p render would keep it for minutes.
    let next = create(&h.app, "p1", "after the cancels").await;
    wait_for(&h.jobs, &next, Status::Done).await;
    for id in [queued, running] {
        let job = h.jobs.get(id).unwrap();
        assert_eq!(
            (job.status, job.error.as_deref()),
            (Status::Error, Some("Cancelled"))
        );
        assert_eq!(job.preview_key, None);
    }
    let again = api(&h.app, "POST", &cancel(running), None).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    let done = api(&h.app, "POST", &cancel(&next), None).await;
    assert_eq!(done.status, StatusCode::CONFLICT);

    let save = format!("/api/jobs/sora/{}/save", encoded(&next));
    let body = json!({"project_id": "p1", "prompt": "after the cancels"});
    assert_eq!(
        api(&h.app, "POST", &save, Some(body)).await.status,
        StatusCode::OK
    );
    let media = h.dir.path().join("data/media");
    let job_uri = format!("/api/jobs/sora/{}", encoded(&next));
    let removed = api(&h.app, "DELETE", &job_uri, None).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    assert_eq!(
        api(&h.app, "GET", &job_uri, None).await.status,
        StatusCode::NOT_FOUND
    );
    assert!(!media.join(format!("previews/{next}.mp4")).exists());
    assert!(
        media.join(format!("projects/p1/{next}.mp4")).exists(),
        "the saved video stays"
    );
    assert!(!h.dir.path().join(format!("data/jobs/{next}.json")).exists());
    let gone = api(&h.app, "DELETE", &job_uri, None).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
}

/// Reads a Server-Sent Events body until `done(text so far)`, for at most 60 s.
async fn read_events(
    body: &mut (impl futures_util::Stream<Item = Result<bytes::Bytes, axum::Error>> + Unpin),
    done: impl Fn(&str) -> bool,
) -> String {
    use futures_util::StreamExt;
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !done(&text) {
        let chunk = tokio::time::timeout_at(deadline, body.next())
            .await
            .unwrap_or_else(|_| panic!("no such event within 60 s: {text}"))
            .expect("the stream stays open")
            .unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    text
}

fn event_ids(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix("id: ").or_else(|| l.strip_prefix("id:")))
        .map(|v| v.trim().parse().unwrap())
        .collect()
}

#[tokio::test]
async fn job_changes_stream_as_server_sent_events_and_resume_after_the_last_id() {
    let h = start();
    let events = "/api/projects/p1/events";
    let bare = send(&h.app, request("GET", events).body(Body::empty()).unwrap()).await;
    assert_eq!(bare.status, StatusCode::UNAUTHORIZED);
    let id = create(&h.app, "p1", "streamed").await;
    let _elsewhere = create(&h.app, "p2", "another project").await;
    let subscribe = |last: Option<u64>| {
        let mut builder =
            request("GET", events).header(header::AUTHORIZATION, format!("Bearer {TOKEN}"));
        if let Some(last) = last {
            builder = builder.header("last-event-id", last.to_string());
        }
        h.app.clone().oneshot(builder.body(Body::empty()).unwrap())
    };
    let response = subscribe(None).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()[header::CONTENT_TYPE],
        "text/event-stream"
    );
    let mut body = response.into_body().into_data_stream();
    let text = read_events(&mut body, |t| t.contains("\"status\":\"done\"")).await;
    assert!(text.contains("event: job"), "{text}");
    assert!(text.contains(&id), "{text}");
    assert!(
        text.contains("\"status\":\"running\""),
        "progress is streamed: {text}"
    );
    assert!(
        !text.contains("another project"),
        "only this project's jobs"
    );
    let ids = event_ids(&text);
    assert!(ids.windows(2).all(|w| w[0] <= w[1]), "{ids:?}");
    // Reconnecting after an id gets only what came after it.
    let resume_after = ids[ids.len() / 2];
    let mut resumed = subscribe(Some(resume_after))
        .await
        .unwrap()
        .into_body()
        .into_data_stream();
    let replay = read_events(&mut resumed, |t| t.contains("\"status\":\"done\"")).await;
    let replayed = event_ids(&replay);
    assert!(
        !replayed.is_empty() && replayed.iter().all(|&i| i > resume_after),
        "{replayed:?} after {resume_after}"
    );
    // An id older than anything kept, or nonsense, gets every job as it is now.
    let mut fresh = subscribe(Some(u64::MAX))
        .await
        .unwrap()
        .into_body()
        .into_data_stream();
    let snapshot = read_events(&mut fresh, |t| t.contains("\"status\":\"done\"")).await;
    assert!(snapshot.contains(&id));
    // Removing the job is an event too.
    let removed = api(
        &h.app,
        "DELETE",
        &format!("/api/jobs/sora/{}", encoded(&id)),
        None,
    )
    .await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    read_events(&mut body, |t| t.contains("event: removed")).await;
}

#[tokio::test]
async fn the_library_pages_newest_first_and_deletes_a_video_with_its_metadata() {
    let h = start();
    let folder = h.dir.path().join("data/media/projects/lib");
    std::fs::create_dir_all(&folder).unwrap();
    // 25 videos dropped in by hand, some sharing a modification time.
    for i in 0..25u64 {
        let file = folder.join(format!("v{i:02}.mp4"));
        std::fs::write(&file, vec![0u8; 100 + i as usize]).unwrap();
        let at = std::time::UNIX_EPOCH + Duration::from_secs(1_790_000_000 + (i / 2) * 60);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }
    std::fs::write(folder.join("v24.json"), r#"{"prompt":"the newest"}"#).unwrap();
    std::fs::write(folder.join("v24.jpg"), b"a poster").unwrap();
    let whole = api(&h.app, "GET", "/api/projects/lib/assets", None)
        .await
        .json();
    let all: Vec<String> = whole["videos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(all.len(), 25);
    assert_eq!(all[0], "projects/lib/v24.mp4", "newest first");
    assert_eq!(
        whole["videos"][0]["prompt"], "the newest",
        "read from its metadata"
    );
    assert!(
        whole["videos"][1].get("prompt").is_none(),
        "no metadata, no prompt"
    );
    assert!(whole["next_cursor"].is_null());
    let mut paged = Vec::new();
    let mut uri = "/api/projects/lib/assets?limit=10".to_owned();
    let mut pages = 0;
    loop {
        let page = api(&h.app, "GET", &uri, None).await.json();
        assert_eq!(page["total"], 25, "every page tells the whole count");
        pages += 1;
        paged.extend(
            page["videos"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["key"].as_str().unwrap().to_owned()),
        );
        match page["next_cursor"].as_str() {
            Some(cursor) => uri = format!("/api/projects/lib/assets?limit=10&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(
        (pages, &paged),
        (3, &all),
        "the pages together are the whole list"
    );
    for bad in [
        "limit=0",
        "limit=1001",
        "limit=x",
        "cursor=nonsense",
        "cursor=1~a/b",
    ] {
        let reply = api(
            &h.app,
            "GET",
            &format!("/api/projects/lib/assets?{bad}"),
            None,
        )
        .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}");
    }

    let remove = "/api/projects/lib/assets/v24.mp4";
    let bare = send(
        &h.app,
        request("DELETE", remove).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(bare.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        api(&h.app, "DELETE", remove, None).await.status,
        StatusCode::NO_CONTENT
    );
    assert!(!folder.join("v24.mp4").exists() && !folder.join("v24.json").exists());
    assert!(!folder.join("v24.jpg").exists(), "the poster goes too");
    assert!(folder.join("v23.mp4").exists(), "only that video");
    assert_eq!(
        api(&h.app, "DELETE", remove, None).await.status,
        StatusCode::NOT_FOUND
    );
    for bad in ["v23.json", "..%2Fx.mp4", "v23"] {
        let reply = api(
            &h.app,
            "DELETE",
            &format!("/api/projects/lib/assets/{bad}"),
            None,
        )
        .await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{bad}");
    }
    let left = api(&h.app, "GET", "/api/projects/lib/assets", None)
        .await
        .json();
    assert_eq!(left["videos"].as_array().unwrap().len(), 24);
}

#[tokio::test]
async fn a_video_dropped_in_by_hand_gets_its_poster_on_first_request() {
    let h = start();
    let folder = h.dir.path().join("data/media/projects/drop");
    std::fs::create_dir_all(&folder).unwrap();
    let spec = server_stub::engine::VideoSpec {
        seconds: 1,
        width: 640,
        height: 360,
        fps: 2,
    };
    server_stub::engine::render_clip("a dropped-in harbour", &spec, &folder.join("made.mp4"))
        .unwrap();
    std::fs::write(folder.join("junk.mp4"), b"not a video").unwrap();
    let listed = api(&h.app, "GET", "/api/projects/drop/assets", None)
        .await
        .json();
    let poster_of = |name: &str| {
        listed["videos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["key"] == format!("projects/drop/{name}.mp4"))
            .map(|v| v["poster_url"].as_str().unwrap().to_owned())
            .unwrap()
    };
    let url = poster_of("made");
    assert_eq!(url, "http://studio.test:8080/media/projects/drop/made.jpg");
    let path = url.trim_start_matches("http://studio.test:8080");
    for round in ["made now", "served from the folder"] {
        let got = send(&h.app, request("GET", path).body(Body::empty()).unwrap()).await;
        assert_eq!(got.status, StatusCode::OK, "{round}");
        assert_eq!(&got.body[..2], &[0xff, 0xd8], "{round}: a JPEG");
        assert_eq!(
            got.headers[header::CACHE_CONTROL],
            "public, max-age=31536000, immutable",
            "{round}"
        );
    }
    assert!(folder.join("made.jpg").exists(), "kept beside the video");
    let junk = poster_of("junk").replace("http://studio.test:8080", "");
    for _ in 0..2 {
        let got = send(&h.app, request("GET", &junk).body(Body::empty()).unwrap()).await;
        assert_eq!(got.status, StatusCode::NOT_FOUND, "no poster for junk");
    }
    let none = send(
        &h.app,
        request("GET", "/media/projects/drop/absent.jpg")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_project_id_that_was_never_cleaned_keeps_its_videos_in_a_safe_folder() {
    let h = start();
    // "../My Project" percent-encoded: a recent project is opened as it is stored.
    let path = "..%2FMy%20Project";
    let id = create(&h.app, path, "a red kite in the wind").await;
    let listed = api(&h.app, "GET", &format!("/api/projects/{path}/jobs"), None)
        .await
        .json();
    assert_eq!(listed["jobs"][0]["project_id"], "../My Project");
    wait_for(&h.jobs, &id, Status::Done).await;
    let save = api(
        &h.app,
        "POST",
        &format!("/api/jobs/sora/{}/save", encoded(&id)),
        Some(json!({"project_id": "../My Project", "prompt": "a red kite"})),
    )
    .await;
    assert_eq!(save.status, StatusCode::OK);
    let key = save.json()["r2_key"].as_str().unwrap().to_owned();
    let folder = key.split('/').nth(1).unwrap().to_owned();
    assert!(
        folder.starts_with('_') && folder.len() == 33,
        "a digest folder, not the id: {key}"
    );
    let videos = api(&h.app, "GET", &format!("/api/projects/{path}/assets"), None)
        .await
        .json();
    assert_eq!(videos["videos"][0]["key"], key);
    let other = api(&h.app, "GET", "/api/projects/My%20Project/assets", None)
        .await
        .json();
    assert_eq!(other["videos"], json!([]), "another id, another folder");
}

#[tokio::test]
async fn metrics_are_for_the_api_token_or_the_metrics_token_only() {
    let h = start();
    let id = create(&h.app, "metrics", "a lamp post in fog").await;
    wait_for(&h.jobs, &id, Status::Done).await;
    let scrape = |token: Option<&str>| {
        let mut builder = Request::builder()
            .uri("/metrics")
            .header("host", "127.0.0.1");
        if let Some(token) = token {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        send(&h.app, builder.body(Body::empty()).unwrap())
    };
    assert_eq!(scrape(None).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(scrape(Some("wrong")).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(scrape(Some(TOKEN)).await.status, StatusCode::OK);
    let reply = scrape(Some(METRICS_TOKEN)).await;
    assert_eq!(reply.status, StatusCode::OK);
    let text = String::from_utf8(reply.body.to_vec()).unwrap();
    for line in [
        "studio_jobs{status=\"done\",provider=\"local\"} 1",
        "studio_queue_depth 0",
        "# TYPE studio_job_duration_seconds histogram",
        "# TYPE studio_event_streams_open gauge",
        "# TYPE studio_provider_bytes_copied counter",
        "# TYPE studio_storage_errors counter",
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
    assert!(text.contains("studio_job_duration_seconds_count{provider=\"local\",status=\"done\"}"));
}
