//! The HTTP test harness: a server-stub router over a temporary folder, requests from this
//! machine and from another, and helpers to call the API and wait for jobs.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::Router;
use serde_json::{json, Value};
use server_stub::http::guard::{Guard, GuardSettings, TrustedProxies};
use server_stub::http::{router, Shared};
use server_stub::jobs::record::Status;
use server_stub::jobs::{JobService, Limits};
use server_stub::providers::Catalog;
use server_stub::storage::LocalStorage;
use tower::ServiceExt;

pub const TOKEN: &str = "test-token";

pub const ACCESS_CODE: &str = "invitation-code";
pub const ELSEWHERE: &str = "http://elsewhere.test";
/// The one proxy the harness's server trusts (`--trusted-proxies`).
pub const PROXY: [u8; 4] = [10, 9, 9, 9];

pub struct Harness {
    /// Requests from this machine.
    pub app: Router,
    /// Requests from another machine on the network.
    pub remote: Router,
    /// Requests passed on by the trusted proxy in front (`PROXY`).
    pub proxied: Router,
    pub jobs: JobService,
    pub dir: tempfile::TempDir,
}

pub fn start_in(dir: tempfile::TempDir) -> Harness {
    start_with(dir, Limits::default())
}

pub fn start_with(dir: tempfile::TempDir, limits: Limits) -> Harness {
    start_with_catalog(dir, Catalog::default(), limits)
}

pub fn start_with_catalog(dir: tempfile::TempDir, catalog: Catalog, limits: Limits) -> Harness {
    let data = dir.path().join("data");
    let dist = dir.path().join("dist");
    std::fs::create_dir_all(dist.join("assets")).unwrap();
    std::fs::write(
        dist.join("index.html"),
        "<!doctype html><title>Studio</title>",
    )
    .unwrap();
    std::fs::write(
        dist.join("review.html"),
        "<!doctype html><title>Review · Studio</title>",
    )
    .unwrap();
    std::fs::write(
        dist.join("assets/app-abc123.js"),
        "console.log(1)".repeat(200),
    )
    .unwrap();
    let media = data.join("media");
    let storage = Arc::new(LocalStorage::new(media.clone(), data.join("tmp")).unwrap());
    let jobs = JobService::start(data, storage, catalog, limits).unwrap();
    let state = shared(
        jobs.clone(),
        TrustedProxies::parse(&[std::net::IpAddr::from(PROXY).to_string()]).unwrap(),
    );
    let app = router(state, &media, &dist);
    Harness {
        remote: app
            .clone()
            .layer(MockConnectInfo(SocketAddr::from(([10, 1, 2, 3], 50000)))),
        proxied: app
            .clone()
            .layer(MockConnectInfo(SocketAddr::from((PROXY, 50000)))),
        app: app.layer(MockConnectInfo(SocketAddr::from(([127, 0, 0, 1], 50000)))),
        jobs,
        dir,
    }
}

/// The server's state over `jobs`, its guard trusting `proxies`.
pub fn shared(jobs: JobService, proxies: TrustedProxies) -> Shared {
    Shared {
        jobs,
        token: TOKEN.into(),
        public_url: None,
        client_api_base: "/api".into(),
        metrics_token: Some(METRICS_TOKEN.into()),
        guard: Guard::new(GuardSettings {
            bound: "127.0.0.1".parse().unwrap(),
            public_urls: vec![],
            api_base: "/api".into(),
            extra_hosts: vec!["studio.test".into()],
            cors_origins: vec![ELSEWHERE.into()],
            access_code: ACCESS_CODE.into(),
            trusted_proxies: proxies,
        })
        .unwrap(),
    }
}

/// The harness's server behind a proxy on this machine that `proxies` names: every request
/// arrives from loopback, as a visitor's does through nginx or Caddy on the same machine.
pub fn behind_local_proxy(h: &Harness, proxies: TrustedProxies) -> Router {
    let data = h.dir.path().join("data");
    router(
        shared(h.jobs.clone(), proxies),
        &data.join("media"),
        &h.dir.path().join("dist"),
    )
    .layer(MockConnectInfo(SocketAddr::from(([127, 0, 0, 1], 50000))))
}

pub fn start() -> Harness {
    start_in(tempfile::tempdir().unwrap())
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| panic!("JSON body: {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn error_code(&self) -> String {
        self.json()["error"]["code"].as_str().unwrap().to_owned()
    }

    /// The message of a 422 refusal (fails on any other status).
    pub fn refusal(&self) -> String {
        assert_eq!(
            self.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            self.json()
        );
        self.json()["error"]["message"].as_str().unwrap().to_owned()
    }
}

pub async fn send(app: &Router, request: Request<Body>) -> Reply {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap()
        .to_vec();
    Reply {
        status,
        headers,
        body,
    }
}

pub fn request(method: &str, uri: &str) -> axum::http::request::Builder {
    Request::builder()
        .method(method)
        .uri(uri)
        .header(header::HOST, "studio.test:8080")
}

pub async fn api(app: &Router, method: &str, uri: &str, body: Option<Value>) -> Reply {
    let builder = request(method, uri).header(header::AUTHORIZATION, format!("Bearer {TOKEN}"));
    let request = match body {
        Some(body) => builder
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string())),
        None => builder.body(Body::empty()),
    };
    send(app, request.unwrap()).await
}

pub async fn raw_post(
    app: &Router,
    uri: &str,
    content_type: Option<&str>,
    body: impl Into<Body>,
) -> Reply {
    let mut builder = request("POST", uri).header(header::AUTHORIZATION, format!("Bearer {TOKEN}"));
    if let Some(ct) = content_type {
        builder = builder.header(header::CONTENT_TYPE, ct);
    }
    send(app, builder.body(body.into()).unwrap()).await
}

/// The token that reads /metrics only.
pub const METRICS_TOKEN: &str = "metrics-token";

pub const SMALL: &str = "320x180";

pub async fn create(app: &Router, project: &str, prompt: &str) -> String {
    let reply = api(
        app,
        "POST",
        &format!("/api/projects/{project}/jobs"),
        Some(json!({"prompt": prompt, "seconds": 1, "size": SMALL})),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    reply.json()["sora_job_id"].as_str().unwrap().to_owned()
}

/// Waits until the job reaches `status`, checking every 50 ms, for at most 180 s (a debug
/// build exporting on two busy cores can take a minute).
pub async fn wait_for(jobs: &JobService, id: &str, status: Status) {
    for _ in 0..3600 {
        if jobs.get(id).is_some_and(|r| r.status == status) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{id} never reached {status:?}: {:?}", jobs.get(id));
}

pub fn encoded(id: &str) -> String {
    id.replace(':', "%3A")
}

/// Makes a video in `project` with the engine and saves it to the library; its file name.
pub async fn saved(h: &Harness, project: &str, prompt: &str) -> String {
    let id = create(&h.app, project, prompt).await;
    wait_for(&h.jobs, &id, Status::Done).await;
    let reply = api(
        &h.app,
        "POST",
        &format!("/api/jobs/sora/{}/save", encoded(&id)),
        Some(json!({"project_id": project})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let key = reply.json()["r2_key"].as_str().unwrap().to_owned();
    key.rsplit('/').next().unwrap().to_owned()
}

/// Runs ffmpeg with `args`; `false` when it is not installed (scripts/setup-test.sh installs it).
pub fn ffmpeg(args: &[&str]) -> bool {
    match std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .status()
    {
        Ok(status) => {
            assert!(status.success(), "ffmpeg {args:?}");
            true
        }
        Err(_) => false,
    }
}
