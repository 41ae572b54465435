//! The server-stub binary: reads the configuration, starts the job service and serves.

use clap::Parser;
use server_stub::config::Config;
use server_stub::{http, jobs};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("info,tower_http=warn")),
        )
        .init();
    std::fs::create_dir_all(&config.data)?;
    let token = config.token()?;
    let catalog = config.catalog()?;
    let storage = config.storage()?;
    let jobs = jobs::JobService::start(config.data.clone(), storage, catalog, config.workers)?;
    let state = http::AppState {
        jobs: jobs.clone(),
        token: token.clone(),
        public_url: config.public_url.clone(),
        client_api_base: config.client_api_base.clone(),
    };
    let app = http::router(
        state,
        &config.media_root(),
        &config.app_dir,
        &config.cors_origins,
    );
    let listener = tokio::net::TcpListener::bind((config.host.as_str(), config.port)).await?;
    let address = listener.local_addr()?;
    let shown_host = if address.ip().is_unspecified() {
        "127.0.0.1".to_owned()
    } else {
        address.ip().to_string()
    };
    tracing::info!(%address, data = %config.data.display(), workers = config.workers, "listening");
    println!(
        "Studio is running at http://{shown_host}:{}/",
        address.port()
    );
    println!("API token: {token}");
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown_signal())
        .await?;
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
