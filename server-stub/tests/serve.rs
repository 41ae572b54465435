//! Serving on a thread per core: the port is held against a second server, every connection is
//! answered on a serving thread, and a stop lets the request in flight finish before `serve`
//! returns; with `STUDIO_LOG_FORMAT=json` the log lines are JSON and name each job's project.

use std::sync::Arc;

use axum::routing::get;
use axum::Router;
use server_stub::serve;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;

async fn get_once(port: u16, path: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_connection_is_answered_and_a_stop_lets_the_last_request_finish() {
    let entered = Arc::new(Notify::new());
    let release = Arc::new(Semaphore::new(0));
    let app = Router::new()
        .route(
            "/thread",
            get(|| async { std::thread::current().name().unwrap_or("").to_owned() }),
        )
        .route(
            "/slow",
            get({
                let (entered, release) = (entered.clone(), release.clone());
                move || async move {
                    entered.notify_one();
                    let _ = release.acquire().await;
                    "finished"
                }
            }),
        );
    let listeners = serve::Listeners::bind("127.0.0.1:0".parse().unwrap(), 2).unwrap();
    let port = listeners.address().port();
    assert!(
        serve::Listeners::bind(listeners.address(), 2).is_err(),
        "a second server could share the port"
    );
    let stop = CancellationToken::new();
    let served = tokio::spawn(listeners.serve(app, stop.clone()));

    let answers = futures_util::future::join_all((0..32).map(|_| get_once(port, "/thread"))).await;
    for answer in &answers {
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        let thread = answer.rsplit("\r\n\r\n").next().unwrap();
        assert!(thread.starts_with("http-"), "answered on {thread:?}");
    }

    let slow = tokio::spawn(get_once(port, "/slow"));
    entered.notified().await;
    stop.cancel();
    release.add_permits(1);
    let answer = slow.await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("finished"), "{answer}");
    served.await.unwrap().unwrap();
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "still accepting after the stop"
    );
}

/// With `STUDIO_LOG_FORMAT=json` the server writes one JSON object a line, and every line of a
/// job's work names the job and its project.
#[tokio::test]
async fn json_log_lines_name_the_job_and_its_project() {
    use std::io::BufRead;
    let data = tempfile::tempdir().unwrap();
    struct Stopped(std::process::Child);
    impl Drop for Stopped {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_server-stub"))
        .args(["--port", "0", "--api-token", "log-token"])
        .arg(format!("--data={}", data.path().display()))
        .arg(format!("--app-dir={}", data.path().display()))
        .env("STUDIO_LOG_FORMAT", "json")
        .env("RUST_LOG", "info")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, seen) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let _server = Stopped(child);
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.send(line);
        }
    });
    let next = || {
        seen.recv_timeout(std::time::Duration::from_secs(60))
            .unwrap()
    };
    let url = loop {
        let line = next();
        if let Some(url) = line.strip_prefix("Studio is running at ") {
            break url.trim_end_matches('/').to_owned();
        }
    };
    server_stub::tls::use_ring();
    let job: serde_json::Value = reqwest::Client::new()
        .post(format!("{url}/api/projects/logged/jobs"))
        .bearer_auth("log-token")
        .json(&serde_json::json!({"prompt": "a lit window", "seconds": 1, "size": "128x128"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = job["sora_job_id"].as_str().unwrap();
    // Log lines are JSON; the address and the token are printed for people, as they are.
    let done = loop {
        let line = next();
        if line.starts_with("API token:") {
            continue;
        }
        let line: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        if line["span"]["job"] == id && line["fields"]["message"] == "done" {
            break line;
        }
    };
    assert_eq!(done["span"]["project"], "logged", "{done}");
    assert_eq!(done["level"], "INFO");
}
