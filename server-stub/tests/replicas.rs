//! Several server-stub replicas on one PostgreSQL database (`--database-url`): each a real
//! server process on its own port, on a throwaway cluster the test starts (and moto's S3 where
//! the videos must be shared): any replica answers for any job, a replica killed with SIGKILL
//! has its work taken over once its lease runs out, a hosted job is never submitted twice, and
//! every queued job is rendered exactly once however many workers there are.

use std::future::Future;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::moto::Moto;
use crate::postgres::Postgres;
use clap::Parser;
use futures_util::StreamExt;
use provider_fakes::{Fakes, Settings};
use serde_json::{json, Value};
use server_stub::config::Config;
use sqlx::postgres::PgPool;

const TOKEN: &str = "replica-test-token";
/// Leases in these tests: a dead replica's jobs are taken over this long after.
const LEASE: &str = "--lease-seconds=2";

/// One server-stub process, killed (SIGKILL) when dropped.
struct Replica {
    child: Child,
    url: String,
    http: reqwest::Client,
}

/// A change stream's bytes as they arrive.
type Events = std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<bytes::Bytes>>>>;

/// Reads a change stream until it tells a job done: everything it said until then.
async fn until_done(events: Events) -> String {
    until_said(events, "\"status\":\"done\"").await
}

/// Reads a change stream until it says `wanted`: everything it said until then.
async fn until_said(mut events: Events, wanted: &str) -> String {
    let mut seen = String::new();
    tokio::time::timeout(Duration::from_secs(120), async {
        while !seen.contains(wanted) {
            let chunk = events.next().await.expect("the stream ended").unwrap();
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the stream never said {wanted}: {seen}"));
    seen
}

/// A replica's output (its logs and its address), read line by line.
type Output = std::io::Lines<BufReader<std::process::ChildStdout>>;

/// Starts a replica on the database at `url` with the data folder `data` and `extra` flags
/// (leases of `LEASE` unless they name another).
fn spawn(url: &str, data: &Path, extra: &[String]) -> (Child, Output) {
    let lease = if extra.iter().any(|flag| flag.starts_with("--lease-seconds")) {
        None
    } else {
        Some(LEASE)
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_server-stub"))
        .args(["--port", "0", "--api-token", TOKEN])
        .args(lease)
        .arg(format!("--data={}", data.display()))
        .arg(format!("--app-dir={}", data.display()))
        .arg(format!("--database-url={url}"))
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let output = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, output)
}

/// Reads `output` up to the first line `wanted` gives a value for.
fn read_until<T>(output: &mut Output, mut wanted: impl FnMut(&str) -> Option<T>) -> Option<T> {
    output.map_while(Result::ok).find_map(|line| wanted(&line))
}

impl Replica {
    /// Starts a replica on `pg` and returns once it listens.
    fn start(pg: &Postgres, data: &Path, extra: &[String]) -> Replica {
        let (child, output) = spawn(&pg.url(), data, extra);
        Replica::listening(child, output)
    }

    /// The replica, once its output says where it listens.
    fn listening(child: Child, mut output: Output) -> Replica {
        let url = read_until(&mut output, |line| {
            let address = line.strip_prefix("Studio is running at ")?;
            Some(address.trim_end_matches('/').to_owned())
        })
        .expect("the replica stopped before it listened");
        // The rest of its output is read (and dropped), so that it never blocks on a full pipe.
        std::thread::spawn(move || output.for_each(drop));
        server_stub::tls::use_ring();
        Replica {
            child,
            url,
            http: reqwest::Client::new(),
        }
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self
            .http
            .request(method, format!("{}/api{path}", self.url))
            .bearer_auth(TOKEN);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert!(status.is_success(), "{path}: {status} {body}");
        body
    }

    async fn create(&self, project: &str, body: Value) -> String {
        let job = self
            .call(
                reqwest::Method::POST,
                &format!("/projects/{project}/jobs"),
                Some(body),
            )
            .await;
        job["sora_job_id"].as_str().unwrap().to_owned()
    }

    /// The status a call answers, whatever it is (`call` wants a success with a JSON body).
    async fn status(&self, method: reqwest::Method, path: &str, body: Option<&Value>) -> u16 {
        let mut request = self
            .http
            .request(method, format!("{}/api{path}", self.url))
            .bearer_auth(TOKEN);
        if let Some(body) = body {
            request = request.json(body);
        }
        request.send().await.unwrap().status().as_u16()
    }

    /// Saves finished job `id` to `project`'s library: the saved video's file name.
    async fn save(&self, id: &str, project: &str) -> String {
        let saved = self
            .call(
                reqwest::Method::POST,
                &format!("{}/save", job_path(id)),
                Some(json!({ "project_id": project })),
            )
            .await;
        let key = saved["r2_key"].as_str().unwrap();
        key.rsplit('/').next().unwrap().to_owned()
    }

    async fn job(&self, id: &str) -> Value {
        self.call(reqwest::Method::GET, &job_path(id), None).await
    }

    /// The project's change stream, opened now (resumed after `last`, when given).
    async fn events(&self, project: &str, last: Option<&str>) -> Events {
        let mut request = self
            .http
            .get(format!("{}/api/projects/{project}/events", self.url))
            .bearer_auth(TOKEN);
        if let Some(last) = last {
            request = request.header("last-event-id", last);
        }
        let response = request.send().await.unwrap();
        assert!(response.status().is_success());
        Box::pin(response.bytes_stream())
    }

    /// The job once it has finished (done or failed), as this replica tells it.
    async fn finished(&self, id: &str) -> Value {
        until("the job to finish", || async {
            let job = self.job(id).await;
            (job["status"] != "running" && job["status"] != "queued").then_some(job)
        })
        .await
    }

    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The project `shared`'s library as a replica lists it.
async fn library(replica: &Replica) -> Vec<Value> {
    let assets = replica
        .call(reqwest::Method::GET, "/projects/shared/assets", None)
        .await;
    assets["videos"].as_array().cloned().unwrap_or_default()
}

/// `/jobs/sora/{id}`, the id percent-encoded.
fn job_path(id: &str) -> String {
    let id: String = url::form_urlencoded::byte_serialize(id.as_bytes()).collect();
    format!("/jobs/sora/{id}")
}

/// Waits until `check` gives a value (two minutes at most).
async fn until<T, F: Future<Output = Option<T>>>(what: &str, mut check: impl FnMut() -> F) -> T {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The job's record and its claim count, as the database holds them.
async fn row(db: &PgPool, id: &str) -> (Value, i32) {
    let row: (sqlx::types::Json<Value>, i32) =
        sqlx::query_as("SELECT record, attempt FROM jobs WHERE id = $1")
            .bind(id)
            .fetch_one(db)
            .await
            .unwrap();
    (row.0 .0, row.1)
}

/// Starts a replica and has it render a long job (10 s at 640x360) in `project`: the replica
/// and the job's id, once the job is rendering.
async fn rendering(
    pg: &Postgres,
    data: &Path,
    flags: &[String],
    project: &str,
) -> (Replica, String) {
    let replica = Replica::start(pg, data, flags);
    let id = replica
        .create(
            project,
            json!({"prompt": "a long pan over hills", "seconds": 10, "size": "640x360"}),
        )
        .await;
    until("the replica rendering", || async {
        let job = replica.job(&id).await;
        (job["status"] == "running" && job["progress"].as_u64()? > 0).then_some(())
    })
    .await;
    (replica, id)
}

fn s3_flags(moto: &Moto) -> Vec<String> {
    let s3 = moto.settings();
    vec![
        "--storage=s3".into(),
        format!("--s3-bucket={}", s3.bucket),
        format!("--s3-endpoint={}", moto.url),
        "--s3-access-key-id=test".into(),
        "--s3-secret-access-key=test".into(),
        format!("--s3-public-url={}", s3.public_base_url),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_made_through_one_replica_is_read_streamed_and_saved_through_another() {
    let pg = Postgres::start().await;
    let moto = Moto::start().await;
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Replica::start(&pg, dir_a.path(), &s3_flags(&moto));
    let b = Replica::start(&pg, dir_b.path(), &s3_flags(&moto));

    // B's change stream is open before the job exists.
    let stream = b.events("shared", None).await;

    let id = a
        .create(
            "shared",
            json!({"prompt": "a lighthouse at dusk", "seconds": 1, "size": "320x180"}),
        )
        .await;
    // Read through B at once, whichever replica renders it.
    assert_eq!(b.job(&id).await["sora_job_id"], id.as_str());

    // B's stream tells the whole life of the job.
    let seen = until_done(stream).await;
    assert!(
        seen.contains(&id) && seen.contains("\"status\":\"queued\""),
        "{seen}"
    );

    // A replica started after all this replays what a browser missed from the database's
    // events (a snapshot would tell only the job as it is now, done).
    let dir_c = tempfile::tempdir().unwrap();
    let c = Replica::start(&pg, dir_c.path(), &s3_flags(&moto));
    let replayed = until_done(c.events("shared", Some("1")).await).await;
    let running = replayed.find("\"status\":\"running\"");
    assert!(
        running.is_some_and(|at| at < replayed.find("\"status\":\"done\"").unwrap()),
        "{replayed}"
    );
    assert!(
        !replayed.contains("\"status\":\"queued\""),
        "event 1 was seen: {replayed}"
    );

    // A has listed the project's library before the save, and keeps that listing.
    assert!(library(&a).await.is_empty());
    let told_save = a.events("shared", None).await;
    let saved = b
        .call(
            reqwest::Method::POST,
            &format!("{}/save", job_path(&id)),
            Some(json!({"project_id": "shared"})),
        )
        .await;
    let key = saved["r2_key"].as_str().unwrap().to_owned();
    // A's stream tells the save made through B, so a browser on A shows the video at once.
    let seen = until_said(told_save, "event: library").await;
    assert!(
        seen.contains(&format!("{{\"file_name\":\"{id}.mp4\",\"saved\":true}}")),
        "{seen}"
    );
    // Told of it, A lists the library anew: a browser reloading on that event finds the video.
    assert!(
        library(&a).await.iter().any(|v| v["key"] == key.as_str()),
        "A's kept listing was not refreshed"
    );
    // Both replicas list it from the shared bucket.
    for replica in [&a, &b] {
        let listed = until("the saved video in the listing", || async {
            let assets = replica
                .call(reqwest::Method::GET, "/projects/shared/assets", None)
                .await;
            let videos = assets["videos"].as_array().cloned().unwrap_or_default();
            videos.into_iter().find(|v| v["key"] == key.as_str())
        })
        .await;
        assert!(listed["size_bytes"].as_u64().unwrap() > 0);
    }

    // A pick made through B, and a reviewer's note left through A, reach the other's stream.
    let name = key.rsplit('/').next().unwrap().to_owned();
    let on_a = a.events("shared", None).await;
    let on_b = b.events("shared", None).await;
    b.call(
        reqwest::Method::PATCH,
        &format!("/projects/shared/assets/{}", name.replace(':', "%3A")),
        Some(json!({"favourite": true})),
    )
    .await;
    let seen = until_said(on_a, "event: pick").await;
    assert!(
        seen.contains(&format!("\"file_name\":\"{name}\"")),
        "{seen}"
    );
    let link = b
        .call(
            reqwest::Method::POST,
            "/projects/shared/shares",
            Some(json!({"videos": [name]})),
        )
        .await;
    let token = link["url"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let posted = a
        .http
        .post(format!("{}/api/review/{token}/comments", a.url))
        .json(&json!({"video": name, "at_seconds": 1.0, "name": "Ana", "text": "warmer"}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), reqwest::StatusCode::CREATED);
    let seen = until_said(on_b, "event: review").await;
    assert!(seen.contains("\"text\":\"warmer\""), "{seen}");

    // A video deleted through A leaves B's library, and its job no longer tells the key.
    let told_delete = b.events("shared", None).await;
    let deleted = a
        .http
        .delete(format!(
            "{}/api/projects/shared/assets/{}",
            a.url,
            name.replace(':', "%3A")
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), reqwest::StatusCode::NO_CONTENT);
    let seen = until_said(told_delete, "\"saved\":false").await;
    assert!(seen.contains("event: library"), "{seen}");
    let job = until("B to know the video is gone", || async {
        let job = b.job(&id).await;
        job["final_r2_key"].is_null().then_some(job)
    })
    .await;
    assert_eq!(job["status"], "done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_render_cut_off_by_a_kill_is_finished_by_another_replica() {
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let media = tempfile::tempdir().unwrap();
    let shared = ["--shared-media".to_owned()];
    let (a, id) = rendering(&pg, media.path(), &shared, "kill").await;
    a.kill();
    // B takes the job over once A's lease runs out.
    let b = Replica::start(&pg, media.path(), &shared);
    let done = b.finished(&id).await;
    assert_eq!(done["status"], "done", "{done}");
    let (record, claims) = row(&db, &id).await;
    assert_eq!(claims, 2, "claimed by A, then by B");
    assert_eq!(record["attempts"], 2);
    let preview = media
        .path()
        .join("media")
        .join(record["preview_key"].as_str().unwrap());
    assert!(std::fs::metadata(preview).unwrap().len() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosted_job_cut_off_by_a_kill_is_followed_by_another_replica_and_sent_once() {
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let (fakes, flags) = followed_fake(Duration::from_secs(4), Some(256 * 1024)).await;
    let media = tempfile::tempdir().unwrap();
    let a = Replica::start(&pg, media.path(), &flags);
    let id = a
        .create(
            "hosted",
            json!({"prompt": "a heron lifting off", "model": "sora-2"}),
        )
        .await;
    until("A to submit the job", || async {
        (a.job(&id).await["status"] == "running").then_some(())
    })
    .await;
    assert_eq!(fakes.jobs().len(), 1);
    a.kill();
    let b = Replica::start(&pg, media.path(), &flags);
    let done = b.finished(&id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(fakes.jobs().len(), 1, "submitted once, whoever followed it");
    let (_, claims) = row(&db, &id).await;
    assert_eq!(claims, 2, "followed by A, then by B");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_of_two_workers_render_forty_jobs_each_once() {
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let media = tempfile::tempdir().unwrap();
    let flags = [
        "--shared-media".to_owned(),
        "--workers=2".into(),
        "--max-active-per-project=40".into(),
        "--max-active-jobs=40".into(),
    ];
    let replicas = [
        Replica::start(&pg, media.path(), &flags),
        Replica::start(&pg, media.path(), &flags),
    ];
    let mut ids = Vec::new();
    for i in 0..40 {
        let body = json!({"prompt": format!("tile {i}"), "seconds": 1, "size": "128x128"});
        ids.push(replicas[i % 2].create("drain", body).await);
    }
    until("every job to finish", || async {
        let finished: i64 =
            sqlx::query_scalar("SELECT count(*) FROM jobs WHERE status IN ('done', 'error')")
                .fetch_one(&db)
                .await
                .unwrap();
        (finished == 40).then_some(())
    })
    .await;
    let held: i64 = sqlx::query_scalar("SELECT count(*) FROM jobs WHERE lease_owner IS NOT NULL")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(held, 0, "a finished job's lease ends with it");
    for id in &ids {
        let (record, claims) = row(&db, id).await;
        assert_eq!(record["status"], "done", "{record}");
        assert_eq!(
            (claims, record["attempts"].as_u64()),
            (1, Some(1)),
            "{id} rendered once"
        );
    }
}

/// An OpenAI fake with these settings, and the flags of replicas on shared media that use it.
async fn openai_fake(settings: Settings) -> (Fakes, Vec<String>) {
    let fakes = Fakes::new(settings);
    let address = provider_fakes::serve(fakes.clone(), 0).await.unwrap();
    let flags = vec![
        "--shared-media".to_owned(),
        "--openai-api-key=fake-key".into(),
        format!("--openai-base-url=http://{address}/openai/v1"),
    ];
    (fakes, flags)
}

/// An OpenAI fake whose jobs take `job_time`, and the flags of replicas that follow them
/// closely (polling every 50 ms) and copy their videos from it.
async fn followed_fake(job_time: Duration, content_bytes: Option<u64>) -> (Fakes, Vec<String>) {
    let mut settings = Settings {
        job_time,
        ..Settings::default()
    };
    if let Some(bytes) = content_bytes {
        settings.content_bytes = bytes;
    }
    let (fakes, mut flags) = openai_fake(settings).await;
    flags.extend([
        "--provider-poll-ms=50".into(),
        "--allow-local-provider-downloads".into(),
    ]);
    (fakes, flags)
}

/// Sends 50 creates of `body` to `project` at once, split over the replicas; returns how many
/// were made. Every other answer must be `refused`.
async fn fifty_at_once(replicas: &[Replica], project: &str, body: &Value, refused: u16) -> usize {
    let calls = (0..50).map(|i| {
        let replica = &replicas[i % replicas.len()];
        replica
            .http
            .post(format!("{}/api/projects/{project}/jobs", replica.url))
            .bearer_auth(TOKEN)
            .json(body)
            .send()
    });
    let mut admitted = 0;
    for reply in futures_util::future::join_all(calls).await {
        match reply.unwrap().status().as_u16() {
            201 => admitted += 1,
            status if status == refused => {}
            other => panic!("{other}"),
        }
    }
    admitted
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_creates_at_two_replicas_at_once_never_overshoot_a_budget() {
    let pg = Postgres::start().await;
    let media = tempfile::tempdir().unwrap();
    // local-1 at $0.10 a second: each 2 s job is estimated at $0.20.
    let prices = media.path().join("prices.toml");
    std::fs::write(&prices, "[models.\"local-1\"]\nusd_per_second = 0.10\n").unwrap();
    let flags = [
        "--shared-media".to_owned(),
        format!("--prices={}", prices.display()),
        "--max-active-per-project=100".into(),
        "--max-active-jobs=100".into(),
    ];
    let replicas = [
        Replica::start(&pg, media.path(), &flags),
        Replica::start(&pg, media.path(), &flags),
    ];
    replicas[0]
        .call(
            reqwest::Method::PUT,
            "/projects/capped/budget",
            Some(json!({"monthly_usd": 2.0})),
        )
        .await;
    let body = json!({"prompt": "a kite", "seconds": 2, "size": "128x128"});
    let admitted = fifty_at_once(&replicas, "capped", &body, 402).await;
    assert_eq!(admitted, 10, "$2.00 holds ten jobs of $0.20, and no more");

    // Rows written before `spend_usd` existed (or by an older replica) are read whole instead:
    // once the ten are done and written for the last time, half of them lose theirs.
    let db = PgPool::connect(&pg.url()).await.unwrap();
    until("the ten jobs done", || async {
        let done: i64 = sqlx::query_scalar("SELECT count(*) FROM jobs WHERE status = 'done'")
            .fetch_one(&db)
            .await
            .unwrap();
        (done == 10).then_some(())
    })
    .await;
    let cleared = sqlx::query(
        "UPDATE jobs SET spend_usd = NULL WHERE id IN (SELECT id FROM jobs ORDER BY id LIMIT 5)",
    )
    .execute(&db)
    .await
    .unwrap();
    assert_eq!(cleared.rows_affected(), 5);
    replicas[1]
        .call(
            reqwest::Method::PUT,
            "/projects/capped/budget",
            Some(json!({"monthly_usd": 2.2})),
        )
        .await;
    let admitted = fifty_at_once(&replicas, "capped", &body, 402).await;
    assert_eq!(
        admitted, 1,
        "$2.20 holds one more, whether a job's spend is summed or read from its record"
    );
    let seen = replicas[0]
        .call(reqwest::Method::GET, "/projects/capped/budget", None)
        .await;
    assert_eq!(
        seen["monthly_usd"],
        json!(2.2),
        "the cap set at one replica is the cap at every replica"
    );

    // A replica that starts fills in the spend the five rows lack, from their records.
    let cleared = || async {
        sqlx::query_scalar::<_, Option<f64>>(
            "SELECT spend_usd FROM jobs WHERE id IN (SELECT id FROM jobs ORDER BY id LIMIT 5)",
        )
        .fetch_all(&db)
        .await
        .unwrap()
    };
    assert_eq!(
        cleared().await,
        vec![None; 5],
        "nothing fills them before a start"
    );
    let _third = Replica::start(&pg, media.path(), &flags);
    let filled = until("the five rows filled in", || async {
        let spends = cleared().await;
        spends.iter().all(Option::is_some).then_some(spends)
    })
    .await;
    assert_eq!(filled, vec![Some(0.2); 5], "each at its record's cost");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_creates_at_two_replicas_at_once_never_pass_a_daily_budget() {
    let pg = Postgres::start().await;
    let media = tempfile::tempdir().unwrap();
    let flags = [
        "--shared-media".to_owned(),
        "--daily-video-seconds=local=10".into(),
        "--max-active-per-project=100".into(),
        "--max-active-jobs=100".into(),
    ];
    let replicas = [
        Replica::start(&pg, media.path(), &flags),
        Replica::start(&pg, media.path(), &flags),
    ];
    let body = json!({"prompt": "a swift", "seconds": 2, "size": "128x128"});
    let admitted = fifty_at_once(&replicas, "daily", &body, 429).await;
    assert_eq!(admitted, 5, "10 s a day hold five jobs of 2 s, and no more");
    let admitted = fifty_at_once(&replicas, "another", &body, 429).await;
    assert_eq!(
        admitted, 0,
        "the budget is the provider's, whatever the project"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_creates_at_two_replicas_at_once_never_pass_the_active_job_limits() {
    let pg = Postgres::start().await;
    // Every job stays active for the whole test: the provider takes ten minutes.
    let (_fakes, mut flags) = openai_fake(Settings {
        job_time: Duration::from_secs(600),
        ..Settings::default()
    })
    .await;
    let media = tempfile::tempdir().unwrap();
    flags.push("--max-active-per-project=5".into());
    flags.push("--max-active-jobs=8".into());
    let replicas = [
        Replica::start(&pg, media.path(), &flags),
        Replica::start(&pg, media.path(), &flags),
    ];
    let body = json!({"prompt": "a heron lifting off", "model": "sora-2"});
    let admitted = fifty_at_once(&replicas, "limited", &body, 429).await;
    assert_eq!(
        admitted, 5,
        "five jobs queued or running in the project, whichever replica was asked"
    );
    let admitted = fifty_at_once(&replicas, "another", &body, 429).await;
    assert_eq!(
        admitted, 3,
        "another project has room of its own, up to eight jobs on the server"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_restarted_while_the_database_is_down_loses_no_job() {
    let mut pg = Postgres::start().await;
    let media = tempfile::tempdir().unwrap();
    let shared = ["--shared-media".to_owned()];
    let a = Replica::start(&pg, media.path(), &shared);
    let mut ids = Vec::new();
    for i in 0..3 {
        let body =
            json!({"prompt": format!("a quiet street {i}"), "seconds": 2, "size": "320x180"});
        ids.push(a.create("down", body).await);
    }
    a.kill();
    pg.down();
    // The replica starts while the database is down: it waits for it, then resumes the jobs.
    let (child, mut output) = spawn(&pg.url(), media.path(), &shared);
    let waited = read_until(&mut output, |line| {
        line.contains("not reachable yet").then_some(())
    });
    assert!(
        waited.is_some(),
        "the replica did not wait for the database"
    );
    pg.up().await;
    let b = Replica::listening(child, output);
    for id in &ids {
        let done = b.finished(id).await;
        assert_eq!(done["status"], "done", "{done}");
    }
}

#[tokio::test]
async fn a_database_without_shared_storage_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::parse_from([
        "server-stub".to_owned(),
        format!("--data={}", dir.path().display()),
        "--database-url=postgres://studio@127.0.0.1:1/postgres".into(),
    ]);
    let refused = config
        .start_jobs()
        .await
        .err()
        .expect("started")
        .to_string();
    assert!(
        refused.contains("--storage s3") && refused.contains("--shared-media"),
        "{refused}"
    );
}

/// Fails on spend read from job rows alone: a job removed through one replica (its row's Remove
/// button) no longer counted against the cap, the daily seconds or the spend anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_removed_at_one_replica_still_counts_at_every_replica() {
    let pg = Postgres::start().await;
    let media = tempfile::tempdir().unwrap();
    // local-1 at $0.10 a second: a 2 s job is estimated at $0.20.
    let prices = media.path().join("prices.toml");
    std::fs::write(&prices, "[models.\"local-1\"]\nusd_per_second = 0.10\n").unwrap();
    let flags = [
        "--shared-media".to_owned(),
        format!("--prices={}", prices.display()),
        "--daily-video-seconds=local=3".into(),
    ];
    let (a, b) = (
        Replica::start(&pg, media.path(), &flags),
        Replica::start(&pg, media.path(), &flags),
    );
    a.call(
        reqwest::Method::PUT,
        "/projects/capped/budget",
        Some(json!({"monthly_usd": 0.2})),
    )
    .await;
    let body = json!({"prompt": "a kite", "seconds": 2, "size": "128x128"});
    let id = a.create("capped", body.clone()).await;
    assert_eq!(a.finished(&id).await["status"], "done");
    let removed = b
        .status(reqwest::Method::DELETE, &job_path(&id), None)
        .await;
    assert_eq!(removed, 204);
    // A hears of the removal, then counts it all the same.
    until("A to drop the removed job", || async {
        let status = a.status(reqwest::Method::GET, &job_path(&id), None).await;
        (status == 404).then_some(())
    })
    .await;
    let third = Replica::start(&pg, media.path(), &flags);
    for replica in [&a, &b, &third] {
        let seen = replica
            .call(reqwest::Method::GET, "/projects/capped/budget", None)
            .await;
        assert_eq!(seen["committed_usd"], json!(0.2), "{seen}");
        let spend = replica
            .call(reqwest::Method::GET, "/projects/capped/spend", None)
            .await;
        assert_eq!(spend["total_usd"], json!(0.2), "{spend}");
    }
    for (project, refused) in [("capped", 402), ("uncapped", 429)] {
        let path = format!("/projects/{project}/jobs");
        let status = b.status(reqwest::Method::POST, &path, Some(&body)).await;
        assert_eq!(status, refused, "{project}");
    }
}

/// Fails on counting a link's notes from each replica's own listing under a lock of its own:
/// 120 comments sent through two replicas at once were all accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_links_sixty_notes_a_minute_hold_across_replicas() {
    let pg = Postgres::start().await;
    let media = tempfile::tempdir().unwrap();
    let shared = ["--shared-media".to_owned()];
    let replicas = [
        Replica::start(&pg, media.path(), &shared),
        Replica::start(&pg, media.path(), &shared),
    ];
    let id = replicas[0]
        .create(
            "notes",
            json!({"prompt": "a heron", "seconds": 1, "size": "128x128"}),
        )
        .await;
    assert_eq!(replicas[0].finished(&id).await["status"], "done");
    let video = replicas[0].save(&id, "notes").await;
    let link = replicas[0]
        .call(
            reqwest::Method::POST,
            "/projects/notes/shares",
            Some(json!({"videos": [video], "expires_in_hours": 1.0})),
        )
        .await;
    let token = link["url"].as_str().unwrap().rsplit('/').next().unwrap();
    let posts = (0..120).map(|i| {
        let replica = &replicas[i % 2];
        replica
            .http
            .post(format!("{}/api/review/{token}/comments", replica.url))
            .json(&json!({"video": video, "at_seconds": 0.5, "name": "Ana", "text": "warmer"}))
            .send()
    });
    let mut kept = 0;
    for reply in futures_util::future::join_all(posts).await {
        let reply = reply.unwrap();
        match reply.status().as_u16() {
            201 => kept += 1,
            429 => {}
            other => panic!("{other}: {}", reply.text().await.unwrap()),
        }
    }
    assert_eq!(
        kept, 60,
        "sixty a minute on the link, whichever replica took them"
    );
}

/// Fails on storage work done inside a database transaction: a sequence change whose storage
/// took longer than the lease had its idle transaction ended by PostgreSQL, the sequence's lock
/// dropped midway, and the client got 500 for a change that was stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sequence_change_slower_than_the_lease_keeps_its_lock_and_is_answered() {
    let pg = Postgres::start().await;
    let moto = Moto::start().await;
    let media = tempfile::tempdir().unwrap();
    let replica = Replica::start(&pg, media.path(), &s3_flags(&moto));
    let made = replica
        .call(
            reqwest::Method::POST,
            "/projects/slow/sequences",
            Some(json!({"name": "Slow"})),
        )
        .await;
    let path = format!("/projects/slow/sequences/{}", made["id"].as_str().unwrap());
    let mut change = made.clone();
    change["name"] = json!("Slower");
    // The bucket stops answering mid-change, for longer than the lease (2 s).
    let stop = |signal: &str| {
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(moto.pid().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
    };
    stop("STOP");
    let put = {
        let request = replica
            .http
            .put(format!("{}/api{path}", replica.url))
            .bearer_auth(TOKEN)
            .json(&change);
        tokio::spawn(request.send())
    };
    let db = PgPool::connect(&pg.url()).await.unwrap();
    until("the change's lock to be held past the lease", || async {
        let held: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) \
             WHERE l.locktype = 'advisory' AND l.granted \
             AND now() - a.state_change > interval '3 seconds'",
        )
        .fetch_one(&db)
        .await
        .unwrap();
        (held > 0).then_some(())
    })
    .await;
    stop("CONT");
    let answer = put.await.unwrap().unwrap();
    assert_eq!(
        answer.status().as_u16(),
        200,
        "{}",
        answer.text().await.unwrap()
    );
    let stored = replica.call(reqwest::Method::GET, &path, None).await;
    assert_eq!(
        (stored["name"].as_str(), stored["version"].as_u64()),
        (Some("Slower"), Some(2))
    );
}

/// How many sequences `path` lists at `replica`.
async fn listed(replica: &Replica, path: &str) -> usize {
    let list = replica.call(reqwest::Method::GET, path, None).await;
    list["sequences"].as_array().unwrap().len()
}

/// Fails on a first sequence read from a server's kept listing: two browsers on two servers
/// over one bucket, opening an empty project, made two "first" sequences, and a sequence made
/// at one server was missing from the other's list for as long as its listing was kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_sequence_is_made_once_across_servers_and_listed_at_each() {
    let pg = Postgres::start().await;
    let moto = Moto::start().await;
    let media = tempfile::tempdir().unwrap();
    let flags = s3_flags(&moto);
    let a = Replica::start(&pg, media.path(), &flags);
    let b = Replica::start(&pg, media.path(), &flags);
    let path = "/projects/opening/sequences";
    // B lists the empty project (and keeps that listing); A makes its first sequence.
    assert_eq!(listed(&b, path).await, 0);
    let first = json!({"name": "Sequence 1", "first": true});
    let made = a
        .http
        .post(format!("{}/api{path}", a.url))
        .bearer_auth(TOKEN)
        .json(&first)
        .send()
        .await
        .unwrap();
    assert_eq!(made.status().as_u16(), 201);
    let made: Value = made.json().await.unwrap();
    // B, asked for the project's first sequence, answers with A's.
    let answered = b
        .http
        .post(format!("{}/api{path}", b.url))
        .bearer_auth(TOKEN)
        .json(&first)
        .send()
        .await
        .unwrap();
    assert_eq!(
        answered.status().as_u16(),
        200,
        "one first sequence across servers"
    );
    let answered: Value = answered.json().await.unwrap();
    assert_eq!(answered["id"], made["id"]);
    // A second sequence made at A reaches B's list once A's event has.
    let events = b.events("opening", None).await;
    let second = a
        .call(
            reqwest::Method::POST,
            path,
            Some(json!({"name": "Sequence 2"})),
        )
        .await;
    let id = second["id"].as_str().unwrap();
    until_said(events, &format!("\"id\":\"{id}\"")).await;
    assert_eq!(listed(&b, path).await, 2);
}

/// Sends `signal` (`STOP`, `CONT`) to a replica's process.
fn signal(replica: &Replica, signal: &str) {
    let sent = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(replica.child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success());
}

/// How many of a replica's job writes were discarded for a lost lease (its /metrics).
async fn fenced_writes(replica: &Replica) -> u64 {
    let text = replica
        .http
        .get(format!("{}/metrics", replica.url))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("studio_fenced_writes_total "))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// Fails on a worker whose switch was disarmed before its last write: A, frozen (SIGSTOP)
/// past its lease while rendering, wakes after B has taken the job over, and wrote its end of
/// the render (`error`, its render cut off) over B's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_frozen_past_its_lease_writes_nothing_over_the_new_owner() {
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let media = tempfile::tempdir().unwrap();
    let shared = ["--shared-media".to_owned()];
    let (a, id) = rendering(&pg, media.path(), &shared, "frozen").await;
    // Frozen mid-render (before B starts, so that the render cannot end meanwhile).
    signal(&a, "STOP");
    let b = Replica::start(&pg, media.path(), &shared);
    until("B to take the job over", || async {
        (row(&db, &id).await.1 == 2).then_some(())
    })
    .await;
    signal(&a, "CONT");
    // A finds its lease gone and stops; what it writes of the render's end is discarded.
    until("A's last write discarded", || async {
        (fenced_writes(&a).await > 0).then_some(())
    })
    .await;
    let (record, claims) = row(&db, &id).await;
    assert!(
        record["status"] == "running" || record["status"] == "done",
        "{record}"
    );
    let done = b.finished(&id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(
        row(&db, &id).await.1,
        claims,
        "claimed by A, then by B only"
    );
}

/// A one-worker replica rendering a job (`rendering`) with another waiting behind it in the
/// queue (`id`), so that nothing else writes the queued one meanwhile, and a trigger before
/// each UPDATE of the jobs table that runs `on_cancel` (plpgsql) when a row is made `error`
/// with the message "Cancelled", as a Cancel makes it (a render the engine stops fails with
/// "cancelled"); `setup` runs first. The fields drop in order: the replica before its database.
struct CancelTrap {
    replica: Replica,
    db: PgPool,
    id: String,
    rendering: String,
    _media: tempfile::TempDir,
    _pg: Postgres,
}

async fn cancel_trap(setup: &[&str], on_cancel: &str) -> CancelTrap {
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let media = tempfile::tempdir().unwrap();
    let flags = ["--shared-media".to_owned(), "--workers=1".into()];
    let (replica, rendering) = rendering(&pg, media.path(), &flags, "busy").await;
    let id = replica
        .create(
            "busy",
            json!({"prompt": "a second pan", "seconds": 10, "size": "640x360"}),
        )
        .await;
    assert_eq!(replica.job(&id).await["status"], "queued");
    let trigger = [
        format!(
            "CREATE FUNCTION on_cancel() RETURNS trigger AS $$ BEGIN \
               IF NEW.status = 'error' AND NEW.record->>'error' = 'Cancelled' THEN {on_cancel} END IF; \
               RETURN NEW; \
             END $$ LANGUAGE plpgsql"
        ),
        "CREATE TRIGGER on_cancel BEFORE UPDATE ON jobs FOR EACH ROW \
           EXECUTE FUNCTION on_cancel()"
            .to_owned(),
    ];
    for statement in setup.iter().map(|s| s.to_string()).chain(trigger) {
        sqlx::query(&statement).execute(&db).await.unwrap();
    }
    CancelTrap {
        replica,
        db,
        id,
        rendering,
        _media: media,
        _pg: pg,
    }
}

impl CancelTrap {
    /// The status a Cancel of job `id` answers with.
    async fn cancel(&self, id: &str) -> u16 {
        let cancel = format!("{}/cancel", job_path(id));
        self.replica
            .status(reqwest::Method::POST, &cancel, None)
            .await
    }
}

/// Fails on a user's change that lost every optimistic write to busier writers: five misses in
/// a row made a Cancel answer 404 as if the job did not exist (the soak below saw it once
/// under load). Here the database makes the Cancel's first five writes miss, as a render's
/// progress written by another replica between each read and write would: the trigger skips
/// them (counted by a sequence, which a rolled-back transaction does not undo).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_lands_after_every_optimistic_write_missed() {
    const MISSED: i64 = 5;
    let miss = format!("IF nextval('missed_cancels') <= {MISSED} THEN RETURN NULL; END IF;");
    let trap = cancel_trap(&["CREATE SEQUENCE missed_cancels"], &miss).await;
    let status = trap.cancel(&trap.id).await;
    let tries: i64 = sqlx::query_scalar("SELECT last_value FROM missed_cancels")
        .fetch_one(&trap.db)
        .await
        .unwrap();
    assert_eq!(status, 200, "the Cancel, after {tries} tries");
    assert_eq!(tries, MISSED + 1, "five writes missed, then one landed");
    let (record, _) = row(&trap.db, &trap.id).await;
    assert_eq!(
        (&record["status"], &record["error"]),
        (&json!("error"), &json!("Cancelled"))
    );
}

/// Fails on a database that refuses a user's change: the Cancel answered 404, as if the job
/// did not exist, where the server failed (500) and the job is still there, unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_the_database_refuses_is_a_server_error_not_a_missing_job() {
    let trap = cancel_trap(&[], "RAISE EXCEPTION 'the disk is full';").await;
    let status = trap.cancel(&trap.id).await;
    assert_eq!(status, 500, "the database refused the Cancel");
    let job = trap.replica.job(&trap.id).await;
    assert_eq!(job["status"], "queued", "the job is kept");
    let (record, _) = row(&trap.db, &trap.id).await;
    assert_eq!(record["status"], "queued");
}

/// Fails on a Cancel of a running job that the database refuses: the render was stopped before
/// the Cancel was written, so the job the user still has (the Cancel answered 500) ended as
/// failed ("cancelled") instead of finishing. The render goes on and the job ends done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_cancel_leaves_the_render_running() {
    let trap = cancel_trap(&[], "RAISE EXCEPTION 'the disk is full';").await;
    let status = trap.cancel(&trap.rendering).await;
    assert_eq!(status, 500, "the database refused the Cancel");
    let ended = until("the render ending", || async {
        let job = trap.replica.job(&trap.rendering).await;
        (job["status"] != "running").then_some(job)
    })
    .await;
    assert_eq!(
        (&ended["status"], &ended["error"]),
        (&json!("done"), &Value::Null),
        "the job the Cancel did not reach"
    );
}

/// Fails on renewing leases from the pool creates use: with every connection of it waiting on
/// the admission lock (held here from the test's own connection), a rendering replica could
/// not renew its lease, and would hand its job over with nobody frozen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_are_renewed_while_creates_hold_every_connection() {
    const ADMISSION_LOCK: i64 = 0x5354_5544_4255;
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let media = tempfile::tempdir().unwrap();
    let a = Replica::start(&pg, media.path(), &["--shared-media".to_owned()]);
    let id = a
        .create(
            "busy",
            json!({"prompt": "a long pan over hills", "seconds": 10, "size": "640x360"}),
        )
        .await;
    until("A rendering", || async {
        let job = a.job(&id).await;
        (job["status"] == "running" && job["progress"].as_u64()? > 0).then_some(())
    })
    .await;
    let mut held = db.begin().await.unwrap();
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(ADMISSION_LOCK)
        .execute(&mut *held)
        .await
        .unwrap();
    let body = json!({"prompt": "a kite", "seconds": 1, "size": "128x128"});
    let creates = futures_util::future::join_all((0..12).map(|_| {
        a.http
            .post(format!("{}/api/projects/other/jobs", a.url))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
    }));
    let creates = tokio::spawn(creates);
    until(
        "every work connection waiting on the admission lock",
        || async {
            let waiting: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
            )
            .fetch_one(&db)
            .await
            .unwrap();
            (waiting >= 8).then_some(())
        },
    )
    .await;
    let lease_until = || async {
        sqlx::query_scalar::<_, f64>(
            "SELECT extract(epoch FROM lease_until)::float8 FROM jobs WHERE id = $1",
        )
        .bind(&id)
        .fetch_one(&db)
        .await
        .unwrap()
    };
    let before = lease_until().await;
    until("A to renew its lease", || async {
        (lease_until().await > before).then_some(())
    })
    .await;
    held.commit().await.unwrap();
    for reply in creates.await.unwrap() {
        // Admitted, or over the project's ten active jobs; none timed out.
        let status = reply.unwrap().status().as_u16();
        assert!(status == 201 || status == 429, "{status}");
    }
    assert_eq!(row(&db, &id).await.1, 1, "claimed once: never handed over");
}

/// Fails on a cancel sent with the worker's fence: once the job's lease had passed to another
/// replica (its claim count raised here, as another replica's claim raises it), A still held
/// the job's switch until its next renewal, and refused the user's cancel as 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_wins_at_a_replica_whose_lease_has_passed() {
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let media = tempfile::tempdir().unwrap();
    // Renewed every 10 s: between two renewals A does not know it has lost the job.
    let flags = ["--shared-media".to_owned(), "--lease-seconds=30".into()];
    let (a, id) = rendering(&pg, media.path(), &flags, "cancel").await;
    let taken = sqlx::query(
        "UPDATE jobs SET attempt = attempt + 1, lease_owner = 'another-replica' WHERE id = $1",
    )
    .bind(&id)
    .execute(&db)
    .await
    .unwrap();
    assert_eq!(taken.rows_affected(), 1);
    let cancel = format!("{}/cancel", job_path(&id));
    assert_eq!(a.status(reqwest::Method::POST, &cancel, None).await, 200);
    let (record, _) = row(&db, &id).await;
    assert_eq!(
        (&record["status"], &record["error"]),
        (&json!("error"), &json!("Cancelled")),
        "{record}"
    );
}

/// Fails on claiming hosted jobs without a cap: a hosted job whose following keeps taking
/// replicas down (each claim of it ending in a lease that ran out) was claimed again forever.
/// Here two such lapses are written as a dead replica would leave them; the third gives up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosted_job_cut_off_again_and_again_is_given_up_on() {
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let (fakes, flags) = followed_fake(Duration::from_secs(600), None).await;
    let media = tempfile::tempdir().unwrap();
    let a = Replica::start(&pg, media.path(), &flags);
    let id = a
        .create("hosted", json!({"prompt": "a heron", "model": "sora-2"}))
        .await;
    until("A to submit the job", || async {
        (a.job(&id).await["status"] == "running").then_some(())
    })
    .await;
    let lapsed = sqlx::query(
        "UPDATE jobs SET lapses = 2, lease_owner = 'a-dead-replica', \
         lease_until = now() - interval '1 second' WHERE id = $1",
    )
    .bind(&id)
    .execute(&db)
    .await
    .unwrap();
    assert_eq!(lapsed.rows_affected(), 1);
    let given_up = a.finished(&id).await;
    assert_eq!(given_up["status"], "error", "{given_up}");
    let message = given_up["error"].as_str().unwrap();
    assert!(message.contains("3 times"), "{message}");
    assert!(message.contains("no longer followed"), "{message}");
    assert_eq!(fakes.jobs().len(), 1, "never sent again");
}

/// Fails on claiming hosted jobs as fast as a replica wakes: a dead replica's hosted jobs,
/// lapsing at once, all went to whichever living replica looked first, one of the two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_replicas_hosted_jobs_are_shared_among_the_living() {
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let (_fakes, mut flags) = followed_fake(Duration::from_secs(600), None).await;
    let media = tempfile::tempdir().unwrap();
    flags.extend([
        "--max-active-per-project=8".into(),
        "--max-active-jobs=8".into(),
    ]);
    let held_by = || async {
        let owners: Vec<(String, i64)> = sqlx::query_as(
            "SELECT lease_owner, count(*) FROM jobs WHERE lease_until > now() \
             GROUP BY lease_owner ORDER BY lease_owner",
        )
        .fetch_all(&db)
        .await
        .unwrap();
        owners
    };
    let a = Replica::start(&pg, media.path(), &flags);
    for i in 0..8 {
        let body = json!({"prompt": format!("heron {i}"), "model": "sora-2"});
        a.create("hosted", body).await;
    }
    let dead = until("A to follow all eight", || async {
        match held_by().await.as_slice() {
            [(owner, 8)] => Some(owner.clone()),
            _ => None,
        }
    })
    .await;
    let _living = [
        Replica::start(&pg, media.path(), &flags),
        Replica::start(&pg, media.path(), &flags),
    ];
    a.kill();
    sqlx::query("UPDATE jobs SET lease_until = now() - interval '1 second'")
        .execute(&db)
        .await
        .unwrap();
    let shares = until("the living to follow all eight", || async {
        let owners = held_by().await;
        let counts: Vec<i64> = owners.iter().map(|(_, held)| *held).collect();
        let taken = owners.iter().all(|(owner, _)| *owner != dead);
        (taken && counts.iter().sum::<i64>() == 8).then_some(counts)
    })
    .await;
    assert_eq!(
        shares.len(),
        2,
        "both living replicas follow some: {shares:?}"
    );
    assert!(shares.iter().all(|&held| held >= 3), "{shares:?}");
}

/// Two editors' changes of one sequence from the same version, through two replicas at once:
/// one is kept, every other gets 409, whichever replica each went through (the sequence's lock
/// is the database's, not a replica's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sequence_changed_through_two_replicas_at_once_keeps_one_change() {
    let pg = Postgres::start().await;
    let media = tempfile::tempdir().unwrap();
    let flags = ["--shared-media".to_owned()];
    let replicas = [
        Replica::start(&pg, media.path(), &flags),
        Replica::start(&pg, media.path(), &flags),
    ];
    let sequence = replicas[0]
        .call(
            reqwest::Method::POST,
            "/projects/cut/sequences",
            Some(json!({"name": "Race"})),
        )
        .await;
    let path = format!(
        "/projects/cut/sequences/{}",
        sequence["id"].as_str().unwrap()
    );
    let changes: Vec<Value> = (0..12)
        .map(|i| {
            let mut change = sequence.clone();
            change["shots"] = json!([{"label": format!("Editor {i}"), "in_s": 0, "out_s": 1}]);
            change
        })
        .collect();
    let puts = changes
        .iter()
        .enumerate()
        .map(|(i, change)| replicas[i % 2].status(reqwest::Method::PUT, &path, Some(change)));
    let statuses = futures_util::future::join_all(puts).await;
    assert_eq!(
        statuses.iter().filter(|&&s| s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|&s| s == 200 || s == 409),
        "{statuses:?}"
    );
    let read = replicas[1].call(reqwest::Method::GET, &path, None).await;
    assert_eq!(read["version"], 2);
}

/// A bounded soak: eight clients, each making jobs through either replica and, by turns,
/// cancelling one at once, removing one, or saving one and starring and approving it through
/// both replicas at the same moment. Every request answers within 30 s (none hangs), every
/// job ends once (its events never go from finished back to active, nor finish twice), both
/// replicas and the database agree on how each ended, and no pick loses a field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soak_of_creates_cancels_removals_and_picks_at_two_replicas() {
    // Eight jobs at most are active at once: within the project's ten.
    const CLIENTS: usize = 8;
    const ROUNDS: usize = 6;
    let pg = Postgres::start().await;
    let db = PgPool::connect(&pg.url()).await.unwrap();
    let media = tempfile::tempdir().unwrap();
    let flags = ["--shared-media".to_owned(), "--workers=2".into()];
    let mut replicas = [
        Replica::start(&pg, media.path(), &flags),
        Replica::start(&pg, media.path(), &flags),
    ];
    for replica in &mut replicas {
        replica.http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
    }
    let replicas = &replicas;
    let body = json!({"prompt": "a heron over reeds", "seconds": 1, "size": "128x128"});
    let client = |client: usize| {
        let body = body.clone();
        async move {
            let mut kept = Vec::new();
            for round in 0..ROUNDS {
                let (here, there) = (
                    &replicas[(client + round) % 2],
                    &replicas[(client + round + 1) % 2],
                );
                let id = here.create("soak", body.clone()).await;
                match (client + round) % 3 {
                    0 => {
                        let cancel = format!("{}/cancel", job_path(&id));
                        let status = there.status(reqwest::Method::POST, &cancel, None).await;
                        // Cancelled, or finished first.
                        assert!(matches!(status, 200 | 409), "{status}");
                        kept.push(id);
                    }
                    1 => {
                        there.finished(&id).await;
                        let removed = there
                            .status(reqwest::Method::DELETE, &job_path(&id), None)
                            .await;
                        assert_eq!(removed, 204);
                    }
                    _ => {
                        assert_eq!(here.finished(&id).await["status"], "done");
                        let name = there.save(&id, "soak").await;
                        let path = format!(
                            "/projects/soak/assets/{}",
                            url::form_urlencoded::byte_serialize(name.as_bytes())
                                .collect::<String>()
                        );
                        let patch = reqwest::Method::PATCH;
                        futures_util::join!(
                            here.call(patch.clone(), &path, Some(json!({"favourite": true}))),
                            there.call(patch, &path, Some(json!({"decision": "approved"}))),
                        );
                        kept.push(id);
                    }
                }
            }
            kept
        }
    };
    let kept: Vec<String> = futures_util::future::join_all((0..CLIENTS).map(client))
        .await
        .into_iter()
        .flatten()
        .collect();

    for id in &kept {
        let ended = replicas[0].finished(id).await;
        let (record, _) = row(&db, id).await;
        assert_eq!(record["status"], ended["status"], "{id}");
        until("the other replica to agree", || async {
            (replicas[1].job(id).await["status"] == ended["status"]).then_some(())
        })
        .await;
    }
    // Every job, removed ones too, ends once in the order its events were committed.
    let events: Vec<(String, String)> = sqlx::query_as(
        "SELECT job_id, record->>'status' FROM job_events WHERE NOT removed ORDER BY seq",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    let mut ended: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for (id, status) in &events {
        let finished = status == "done" || status == "error";
        match ended.get(id.as_str()) {
            Some(first) => assert!(
                finished && first == status,
                "{id} ended {first}, then was {status}"
            ),
            None if finished => {
                ended.insert(id, status);
            }
            None => {}
        }
    }
    assert_eq!(ended.len(), CLIENTS * ROUNDS, "every job made ended");
    let library = replicas[1]
        .call(reqwest::Method::GET, "/projects/soak/assets", None)
        .await;
    let saved = (0..CLIENTS)
        .flat_map(|client| (0..ROUNDS).map(move |round| (client + round) % 3))
        .filter(|&turn| turn == 2)
        .count();
    assert_eq!(library["videos"].as_array().unwrap().len(), saved);
    for video in library["videos"].as_array().unwrap() {
        assert_eq!(
            (&video["favourite"], &video["decision"]),
            (&json!(true), &json!("approved")),
            "{video}"
        );
    }
}

/// Fails on a local signer made by each replica: two replicas with no certificate configured
/// each made a signing key of their own, and one studio's videos named two signers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_without_a_certificate_sign_with_one_local_signer() {
    let pg = Postgres::start().await;
    let moto = Moto::start().await;
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Replica::start(&pg, dir_a.path(), &s3_flags(&moto));
    let b = Replica::start(&pg, dir_b.path(), &s3_flags(&moto));
    let kept = |dir: &Path, file: &str| std::fs::read(dir.join("credentials").join(file)).unwrap();
    for file in ["local-signer.crt.pem", "local-signer.key.pem"] {
        assert_eq!(kept(dir_a.path(), file), kept(dir_b.path(), file), "{file}");
    }
    // A video made through either is signed by it and reads valid through the other.
    for (maker, reader) in [(&a, &b), (&b, &a)] {
        let id = maker
            .create(
                "shared",
                json!({"prompt": "a harbour crane", "seconds": 1, "size": "320x180"}),
            )
            .await;
        assert_eq!(maker.finished(&id).await["status"], "done");
        let name = maker.save(&id, "shared").await;
        let report = reader
            .call(
                reqwest::Method::GET,
                &format!("/projects/shared/assets/{name}/credentials"),
                None,
            )
            .await;
        assert_eq!(report["present"], true, "{report}");
        assert_eq!(report["valid"], true, "{report}");
    }
}
