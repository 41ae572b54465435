//! Serving on every core the way nginx does: one thread per core, each with its own
//! single-threaded runtime, all accepting from the one listening socket. A connection is then
//! read, answered and woken on one core. On one work-stealing runtime, tasks and wake-ups moved
//! between the cores: the status poll ran at 0.8x nginx with a worse p99.
//!
//! The job service keeps the runtime it was started on (`JobService::background`), so the work
//! a request starts does not live on these threads.

use std::io;
use std::net::SocketAddr;
use std::num::NonZeroUsize;

use axum::Router;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// One serving thread per core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// Serves `app` from `listener` on `threads` threads until `stop` is cancelled and their
/// connections have finished. The first thread to fail stops the others; its error is returned.
pub async fn serve(
    listener: std::net::TcpListener,
    threads: usize,
    app: Router,
    stop: CancellationToken,
) -> io::Result<()> {
    listener.set_nonblocking(true)?;
    let mut served = Vec::new();
    for n in 0..threads.max(1) {
        // Each thread polls its own handle on the one socket; the kernel gives each new
        // connection to one of them.
        let listener = listener.try_clone()?;
        let (app, stop) = (app.clone(), stop.clone());
        let (done, finished) = oneshot::channel();
        std::thread::Builder::new()
            .name(format!("http-{n}"))
            .spawn(move || run(listener, app, stop, done))?;
        served.push(finished);
    }
    let mut first_error = Ok(());
    for finished in served {
        let result = finished
            .await
            .unwrap_or_else(|_| Err(io::Error::other("a serving thread ended early")));
        if first_error.is_ok() {
            first_error = result;
        }
    }
    first_error
}

fn run(
    listener: std::net::TcpListener,
    app: Router,
    stop: CancellationToken,
    done: oneshot::Sender<io::Result<()>>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            stop.cancel();
            let _ = done.send(Err(e));
            return;
        }
    };
    runtime.block_on(async move {
        let result = async {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(stop.clone().cancelled_owned())
            .await
        }
        .await;
        if result.is_err() {
            stop.cancel();
        }
        let _ = done.send(result);
        // What requests opened here (pooled connections, say) may still be in use while the
        // job service stops: the runtime goes on until the process ends.
        std::future::pending::<()>().await;
    });
}
