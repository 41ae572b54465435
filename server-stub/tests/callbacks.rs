//! Providers' completion callbacks over real HTTP: with `--public-url`, Kling's, Replicate's,
//! ModelArk's and fal's jobs are made with an address the fakes call when they are done, and the call
//! wakes the job's poller (polling meanwhile is six times slower); a call to an address this
//! server did not make, a body about another job, a bad or stale signature and a replay are
//! refused with 401 and wake nothing; a lost call never loses a job.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use provider_fakes::{Fakes, Settings};
use serde_json::{json, Value};
use server_stub::config::Config;
use server_stub::http::guard::TrustedProxies;
use server_stub::jobs::record::{JobRecord, Status};
use server_stub::jobs::{JobService, NewJob};

use crate::harness::{self, TOKEN};

struct Called {
    fakes: Fakes,
    jobs: JobService,
    /// The fakes' base URL.
    base: String,
    _dir: tempfile::TempDir,
}

/// The fakes, and a server polling at `poll_ms` whose callbacks go to `public_url` (its own
/// address when `None`).
async fn start(settings: Settings, poll_ms: u64, public_url: Option<String>) -> Called {
    let fakes = Fakes::new(settings);
    let base = format!(
        "http://{}",
        provider_fakes::serve(fakes.clone(), 0).await.unwrap()
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let own = format!("http://{}", listener.local_addr().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = Config::parse_from([
        "server-stub".to_owned(),
        format!("--data={}", data.display()),
        format!("--api-token={TOKEN}"),
        format!("--public-url={}", public_url.unwrap_or(own)),
        "--kling-access-key=fake-key".into(),
        "--kling-secret-key=fake-key-secret".into(),
        format!("--kling-base-url={base}/kling"),
        "--fal-api-key=fake-key".into(),
        format!("--fal-base-url={base}/fal"),
        format!("--fal-jwks-url={base}/fal/.well-known/jwks.json"),
        "--fal-models=kling=fal-ai/kling-video/v2/master/text-to-video".into(),
        "--ark-api-key=fake-key".into(),
        format!("--ark-base-url={base}/ark"),
        "--ark-models=seedance=seedance-1-0-pro-250528".into(),
        "--replicate-api-token=fake-key".into(),
        format!("--replicate-base-url={base}/replicate"),
        "--replicate-models=hailuo=minimax/hailuo-2.3".into(),
        format!("--provider-poll-ms={poll_ms}"),
        "--allow-local-provider-downloads".into(),
    ]);
    let jobs = JobService::start(
        data.clone(),
        config.storage().unwrap(),
        config.catalog().unwrap(),
        config.limits().unwrap(),
    )
    .unwrap();
    let dist = dir.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    let app = server_stub::http::router(
        harness::shared(jobs.clone(), TrustedProxies::parse(&[]).unwrap()),
        &data.join("media"),
        &dist,
    );
    tokio::spawn(async move {
        let app = app.into_make_service_with_connect_info::<SocketAddr>();
        axum::serve(listener, app).await.unwrap();
    });
    Called {
        fakes,
        jobs,
        base,
        _dir: dir,
    }
}

async fn create(jobs: &JobService, model: &str, prompt: &str) -> String {
    let created = jobs
        .create(NewJob {
            project_id: "called".into(),
            prompt: prompt.into(),
            model: Some(model.into()),
            ..NewJob::default()
        })
        .await
        .unwrap();
    created.sora_job_id
}

/// Waits for `done` (a guard against a hang, far beyond what the path under test takes).
async fn until<T>(what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let waited = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            if let Some(value) = done() {
                return value;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    waited.await.unwrap_or_else(|_| panic!("{what}"))
}

fn ended(jobs: &JobService, id: &str) -> Option<JobRecord> {
    jobs.get(id)
        .filter(|r| matches!(r.status, Status::Done | Status::Error))
}

async fn post(url: &str, headers: &[(String, String)], body: &[u8]) -> u16 {
    let mut request = reqwest::Client::new().post(url).body(body.to_vec());
    for (name, value) in headers {
        request = request.header(name, value);
    }
    request.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn a_provider_that_calls_back_ends_its_job_long_before_the_next_poll() {
    // Polled every 60 s, so every 6 minutes with a callback: only the call can end these.
    let setup = start(Settings::default(), 60_000, None).await;
    let kling = create(&setup.jobs, "kling-v2-1", "a lighthouse").await;
    let replicate = create(&setup.jobs, "hailuo", "a harbour").await;
    let seedance = create(&setup.jobs, "seedance", "a quay").await;
    let fal = create(&setup.jobs, "kling", "a jetty").await;
    let moderated = create(&setup.jobs, "kling-v2-1", "moderated harbour").await;
    for id in [&kling, &replicate, &seedance, &fal] {
        let record = until("the callback never woke the poller", || {
            ended(&setup.jobs, id)
        })
        .await;
        assert_eq!(record.status, Status::Done, "{:?}", record.error);
    }
    let record = until("no callback for a failure", || {
        ended(&setup.jobs, &moderated)
    })
    .await;
    assert_eq!(record.status, Status::Error);
    let calls = until("five calls made", || {
        let calls = setup.fakes.calls();
        (calls.len() == 5).then_some(calls)
    })
    .await;
    assert!(calls.iter().all(|c| c.status == 204), "{calls:?}");
    for call in &calls {
        assert_eq!(
            post(&call.url, &call.headers, &call.body).await,
            401,
            "a call sent again after its job ended is a replay"
        );
    }
    // Replicate's and fal's calls are signed: the same headers over another body are refused.
    for call in calls.iter().filter(|c| !c.headers.is_empty()) {
        let mut body = call.body.clone();
        body.insert(1, b' ');
        assert_eq!(
            post(&call.url, &call.headers, &body).await,
            401,
            "{}",
            call.url
        );
    }
    for (provider, id) in [
        ("kling", &kling),
        ("replicate", &replicate),
        ("ark", &seedance),
    ] {
        let address = format!("/callbacks/{provider}/{id}/");
        assert!(calls.iter().any(|c| c.url.contains(&address)), "{calls:?}");
    }
    assert_eq!(
        setup.fakes.count("replicate.secret"),
        1,
        "Replicate's signing secret is asked for once"
    );
    assert_eq!(setup.fakes.count("fal.jwks"), 1, "fal's keys are read once");
}

#[tokio::test]
async fn forged_replayed_and_foreign_callbacks_are_refused_and_wake_nothing() {
    let settings = Settings {
        job_time: Duration::from_secs(3600),
        ..Settings::default()
    };
    let setup = start(settings, 60_000, None).await;
    let kling = create(&setup.jobs, "kling-v2-1", "a long take").await;
    let replicate = create(&setup.jobs, "hailuo", "another long take").await;
    let running = |id: &str| {
        let record = setup.jobs.get(id)?;
        (record.status == Status::Running).then_some(record.provider_job_id?)
    };
    let kling_task = until("running at Kling", || running(&kling)).await;
    let prediction = until("running at Replicate", || running(&replicate)).await;
    let polls = |provider: &str| setup.fakes.count(&format!("{provider}.poll"));
    // The addresses the providers were given.
    let given = |prompt: &str| {
        let job = setup.fakes.jobs().into_iter().find(|j| j.prompt == prompt);
        job.and_then(|j| j.callback)
            .expect("a job made with --public-url names its address")
    };
    let kling_url = given("a long take");
    let replicate_url = given("another long take");

    // Kling: the address is the proof; a body names its task and when it changed.
    let task_id = kling_task.split_once('/').unwrap().1.to_owned();
    let body = |task: &str, at: u64| {
        serde_json::to_vec(&json!({"task_id": task, "task_status": "processing", "updated_at": at}))
            .unwrap()
    };
    let (token_at, _) = kling_url.rsplit_once('/').unwrap();
    let forged = format!("{token_at}/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    assert_eq!(
        post(&forged, &[], &body(&task_id, 1)).await,
        401,
        "an address not made here"
    );
    let other_job = kling_url.replace(&kling, &replicate);
    assert_eq!(
        post(&other_job, &[], &body(&task_id, 1)).await,
        401,
        "another job's token"
    );
    assert_eq!(
        post(&kling_url, &[], &body("other-task", 1)).await,
        401,
        "another task"
    );
    assert_eq!(post(&kling_url, &[], b"not json").await, 401);
    let before = polls("kling");
    assert_eq!(post(&kling_url, &[], &body(&task_id, 1)).await, 204);
    until("a taken callback polls at once", || {
        (polls("kling") > before).then_some(())
    })
    .await;
    assert_eq!(
        post(&kling_url, &[], &body(&task_id, 1)).await,
        401,
        "the same delivery again is a replay"
    );
    assert_eq!(
        post(&kling_url, &[], &body(&task_id, 2)).await,
        204,
        "a later change"
    );

    // Replicate: Standard Webhooks under the account's secret.
    let secret: Value = reqwest::Client::new()
        .get(format!(
            "{}/replicate/v1/webhooks/default/secret",
            setup.base
        ))
        .bearer_auth("fake-key")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let secret = secret["key"].as_str().unwrap().to_owned();
    let now = server_stub::clock::unix_now();
    let body = serde_json::to_vec(&json!({"id": prediction, "status": "processing"})).unwrap();
    let signed = |id: &str, at: i64, body: &[u8], secret: &str| {
        let signature =
            server_stub::callbacks::standard_webhooks::sign(secret, id, at, body).unwrap();
        vec![
            ("webhook-id".to_owned(), id.to_owned()),
            ("webhook-timestamp".to_owned(), at.to_string()),
            ("webhook-signature".to_owned(), signature),
        ]
    };
    assert_eq!(post(&replicate_url, &[], &body).await, 401, "unsigned");
    let other_secret = "whsec_b3RoZXItYWNjb3VudHMta2V5";
    assert_eq!(
        post(
            &replicate_url,
            &signed("msg_1", now, &body, other_secret),
            &body
        )
        .await,
        401,
        "signed with another key"
    );
    assert_eq!(
        post(
            &replicate_url,
            &signed("msg_1", now - 600, &body, &secret),
            &body
        )
        .await,
        401,
        "ten minutes old"
    );
    let tampered = signed("msg_1", now, b"{}", &secret);
    assert_eq!(
        post(&replicate_url, &tampered, &body).await,
        401,
        "another body"
    );
    let about_another = serde_json::to_vec(&json!({"id": "abc", "status": "succeeded"})).unwrap();
    assert_eq!(
        post(
            &replicate_url,
            &signed("msg_2", now, &about_another, &secret),
            &about_another
        )
        .await,
        401,
        "another prediction"
    );
    let before = polls("replicate");
    let delivery = signed("msg_3", now, &body, &secret);
    assert_eq!(post(&replicate_url, &delivery, &body).await, 204);
    until("a taken callback polls at once", || {
        (polls("replicate") > before).then_some(())
    })
    .await;
    assert_eq!(
        post(&replicate_url, &delivery, &body).await,
        401,
        "replayed"
    );
    for id in [&kling, &replicate] {
        let record = setup.jobs.get(id).unwrap();
        assert_eq!(
            record.status,
            Status::Running,
            "a call never sets the state"
        );
    }
}

#[tokio::test]
async fn a_lost_callback_never_loses_a_job() {
    // Nothing listens at the public address: every call is lost; polling ends the jobs.
    let nowhere = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let setup = start(Settings::default(), 20, Some(nowhere)).await;
    let kling = create(&setup.jobs, "kling-v2-1", "a lost call").await;
    let replicate = create(&setup.jobs, "hailuo", "another lost call").await;
    let seedance = create(&setup.jobs, "seedance", "a third lost call").await;
    let fal = create(&setup.jobs, "kling", "a fourth lost call").await;
    for id in [&kling, &replicate, &seedance, &fal] {
        let record = until("polling never ended the job", || ended(&setup.jobs, id)).await;
        assert_eq!(record.status, Status::Done, "{:?}", record.error);
    }
    until("the fakes tried their calls", || {
        (setup.fakes.calls().len() == 4).then_some(())
    })
    .await;
    assert!(setup.fakes.calls().iter().all(|c| c.status == 0));
}
