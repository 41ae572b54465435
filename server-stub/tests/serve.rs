//! Serving on a thread per core: the port is held against a second server, every connection is
//! answered on a serving thread, and a stop lets the request in flight finish before `serve`
//! returns.

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
