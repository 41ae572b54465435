//! Serves the provider fakes, for clients in other processes (the official `openai` Python
//! package, benchmarks). Prints `listening on http://127.0.0.1:PORT` once ready.

use std::io::Write;
use std::time::Duration;

use clap::Parser;
use provider_fakes::{serve, Fakes, Settings};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Milliseconds from submission to completion.
    #[arg(long, default_value_t = 600)]
    job_ms: u64,
    /// Bytes in every finished video.
    #[arg(long, default_value_t = 64 * 1024)]
    content_bytes: u64,
    /// Seconds the content stays downloadable after completion.
    #[arg(long, default_value_t = 3600)]
    content_ttl: u64,
    #[arg(long, default_value = "fake-key")]
    key: String,
    /// Milliseconds a create waits, after making the job, before it answers.
    #[arg(long, default_value_t = 0)]
    create_delay_ms: u64,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let fakes = Fakes::new(Settings {
        job_time: Duration::from_millis(args.job_ms),
        content_bytes: args.content_bytes,
        content_ttl: Duration::from_secs(args.content_ttl),
        key: args.key,
        create_delay: Duration::from_millis(args.create_delay_ms),
        ..Settings::default()
    });
    let address = serve(fakes, args.port).await?;
    println!("listening on http://{address}");
    std::io::stdout().flush()?;
    std::future::pending::<()>().await;
    Ok(())
}
