//! Serving on every core the way nginx does: one thread per core, each with its own
//! single-threaded runtime and its own listening socket on the shared port (`SO_REUSEPORT`),
//! so the kernel spreads new connections evenly and a connection is read, answered and woken on
//! one core. On one work-stealing runtime, tasks and wake-ups moved between the cores: the
//! status poll ran at 0.8x nginx with a worse p99. With one socket shared by the threads, the
//! connections split unevenly and the p99 came out 20 % above that of these sockets.
//!
//! The job service keeps the runtime it was started on (`JobService::background`), so the work
//! a request starts does not live on these threads.

use std::io;
use std::net::SocketAddr;

use axum::serve::ListenerExt;
use axum::Router;
use tokio::net::TcpSocket;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// One serving thread per core where the kernel spreads a port's connections between sockets
/// (Linux); elsewhere one.
pub fn threads() -> usize {
    if cfg!(target_os = "linux") {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    } else {
        1
    }
}

/// The listening sockets of the serving threads, on one address.
pub struct Listeners {
    sockets: Vec<std::net::TcpListener>,
    address: SocketAddr,
}

impl Listeners {
    /// Listens on `address` with `count` sockets (port 0: one free port for all of them), so
    /// connections are taken from the moment this returns. Call it inside a Tokio runtime.
    pub fn bind(address: SocketAddr, count: usize) -> io::Result<Listeners> {
        // A given port gets a plain bind first: it fails, as a single socket's always did, when
        // anything holds the port, so a second server cannot quietly join this one's sockets.
        // Port 0 skips it: the first socket takes the free port the kernel picks and holds it
        // from then on (a plain bind dropped before the others bound left the port open to
        // anyone for that moment, and a test once lost it so).
        if address.port() != 0 {
            drop(std::net::TcpListener::bind(address)?);
        }
        let first = listening(address)?;
        let address = first.local_addr()?;
        let mut sockets = vec![first];
        for _ in 1..count.max(1) {
            sockets.push(listening(address)?);
        }
        Ok(Listeners { sockets, address })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Serves `app` until `stop` is cancelled and the connections have finished. The first
    /// thread to fail stops the others; its error is returned.
    pub async fn serve(self, app: Router, stop: CancellationToken) -> io::Result<()> {
        let mut served = Vec::new();
        for (n, listener) in self.sockets.into_iter().enumerate() {
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
}

fn listening(address: SocketAddr) -> io::Result<std::net::TcpListener> {
    let socket = if address.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    // Only sockets of the same user that all set it can share the port.
    #[cfg(target_os = "linux")]
    socket.set_reuseport(true)?;
    socket.bind(address)?;
    // Handed over to its serving thread's runtime there.
    socket.listen(1024)?.into_std()
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
            // No Nagle delay on an answer, as nginx's `tcp_nodelay on` (its default): the p99
            // of the status poll went from 4.9-5.4 ms to 4.0-5.3, and Range reads from 0.86x
            // to 0.98x of nginx.
            let listener = tokio::net::TcpListener::from_std(listener)?.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
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
