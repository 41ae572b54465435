//! The server-stub binary: reads the configuration, starts the job service and serves.

use std::net::SocketAddr;

use clap::Parser;
use server_stub::config::{Config, LogFormat};
use server_stub::{http, serve};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    server_stub::memory::limit_arenas();
    let config = Config::parse();
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,tower_http=warn,c2pa=warn"));
    match config.log_format {
        LogFormat::Text => tracing_subscriber::fmt().with_env_filter(filter).init(),
        LogFormat::Json => tracing_subscriber::fmt()
            .json()
            .with_env_filter(filter)
            .init(),
    }
    std::fs::create_dir_all(&config.data)?;
    let ip = config.listen_address()?;
    let token = config.token()?;
    let jobs = config.start_jobs().await?;
    let guard = config.guard(ip)?;
    let code = guard.access_code.clone();
    let plain_links = config.public_url.is_none() && guard.trusted_proxies.is_empty();
    let state = http::Shared {
        jobs: jobs.clone(),
        token: token.clone(),
        public_url: config.public_url.clone(),
        client_api_base: config.client_api_base.clone(),
        guard: http::guard::Guard::new(guard)?,
        metrics_token: config.metrics_token.clone(),
    };
    let app = http::router(state, &config.media_root(), &config.app_dir);
    let listeners = serve::Listeners::bind(SocketAddr::new(ip, config.port), serve::threads())?;
    let address = listeners.address();
    tracing::info!(%address, data = %config.data.display(), workers = config.workers, "listening");
    let port = address.port();
    println!("Studio is running at http://127.0.0.1:{port}/");
    println!("API token: {token}");
    if !ip.is_loopback() {
        let shown = if ip.is_unspecified() {
            format!("THIS-MACHINE:{port}")
        } else {
            SocketAddr::new(ip, port).to_string()
        };
        println!(
            "WARNING: listening on {address}, so other machines can reach this server. They get \
             the app and its token only through the invitation link below; share it only with \
             teammates, over a trusted channel. Without TLS in front, the network can read it.\n\
             Invitation link: http://{shown}/join?code={code}"
        );
        if plain_links {
            println!(
                "WARNING: media addresses and review links (which carry their secret) are built \
                 as http:// from each request's Host. Behind a TLS proxy, set --public-url \
                 https://... or name the proxy in --trusted-proxies so its X-Forwarded-Proto \
                 is believed."
            );
        }
    }
    let stop = tokio_util::sync::CancellationToken::new();
    tokio::spawn({
        let (jobs, stop) = (jobs.clone(), stop.clone());
        async move {
            shutdown_signal().await;
            jobs.close_streams();
            stop.cancel();
        }
    });
    listeners.serve(app, stop).await?;
    tracing::info!("stopping: finishing or persisting jobs");
    jobs.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
