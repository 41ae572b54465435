//! Command-line flags, each with an environment variable, and what they build: the model
//! catalog (the embedded engine plus any hosted provider given a key) and the storage.

mod limits;
mod providers;
mod secrets;
mod signing;

pub use providers::ProviderConfig;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, ValueEnum};

use crate::database::Database;
use crate::http::guard::{ForwardedHeader, GuardSettings, TrustedProxies};
use crate::jobs::{JobService, Limits};
use crate::prices::Prices;
use crate::providers::Catalog;
use crate::storage::{Freshness, ListingCache, LocalStorage, S3Settings, S3Storage, Storage};

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// For people: one readable line each.
    Text,
    /// For log collectors: one JSON object a line, with the job and project of a job's lines.
    Json,
}

/// Whether the videos the server writes carry Content Credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum C2paMode {
    /// Every video the server writes carries a signed C2PA manifest.
    On,
    /// None does: nothing in the file says it was made with AI (see docs/credentials.md).
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StorageKind {
    /// A folder inside the data folder, served at /media.
    Local,
    /// An S3-compatible bucket (AWS S3, Cloudflare R2, MinIO ...).
    S3,
}

#[derive(Debug, Parser)]
#[command(
    name = "server-stub",
    version,
    about = "Studio's /api with an embedded video engine, serving the app"
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "HOST", default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, env = "PORT", default_value_t = 8080)]
    pub port: u16,
    /// Folder for job records, videos and the generated token.
    #[arg(long, env = "STUDIO_DATA_DIR", default_value = "./data")]
    pub data: PathBuf,
    /// The bearer token every /api call must carry; generated and kept in the data folder when unset.
    #[arg(long, env = "STUDIO_API_TOKEN", hide_env_values = true)]
    pub api_token: Option<String>,
    /// A TOML file of prices per model, over the built-in catalogue (`[models."id"]` with
    /// `usd_per_second` or `by_resolution`).
    #[arg(long, env = "STUDIO_PRICES")]
    pub prices: Option<PathBuf>,
    /// A token that reads /metrics only (the API token reads it too).
    #[arg(long, env = "STUDIO_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,
    /// The built app to serve.
    #[arg(long, env = "STUDIO_APP_DIR", default_value = "./app/dist")]
    pub app_dir: PathBuf,
    /// Base URL for public media addresses (for example https://cdn.example.com); the request's Host when unset.
    #[arg(long, env = "STUDIO_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// The API base the app is told to use in /config.json.
    #[arg(long, env = "STUDIO_CLIENT_API_BASE", default_value = "/api")]
    pub client_api_base: String,
    /// Origins whose pages may call the API from a browser, comma-separated (none by default).
    #[arg(long, env = "STUDIO_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<String>,
    /// More host names this server answers to, comma-separated (loopback names, the bound
    /// address and the --public-url host always are).
    #[arg(long, env = "STUDIO_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,
    /// Proxies in front of this server (addresses or networks, comma-separated) whose word
    /// about the client (the --forwarded-header) and the scheme (`X-Forwarded-Proto`) is
    /// believed. A request that carries a forwarding header from any other peer is never taken
    /// for this machine.
    #[arg(long, env = "STUDIO_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<String>,
    /// The one header the trusted proxies write the client's address to; the others are never
    /// read for an address (see docs/security.md for what each proxy writes).
    #[arg(long, env = "STUDIO_FORWARDED_HEADER", value_enum, default_value_t = ForwardedHeader::default())]
    pub forwarded_header: ForwardedHeader,
    /// Allow listening on an address other machines can reach (see docs/security.md).
    #[arg(long, env = "STUDIO_ALLOW_REMOTE")]
    pub allow_remote: bool,
    /// The code of the invitation link for other machines; generated and kept in the data
    /// folder when unset.
    #[arg(long, env = "STUDIO_ACCESS_CODE", hide_env_values = true)]
    pub access_code: Option<String>,
    /// Jobs rendered at the same time by the embedded engine (each uses two threads).
    #[arg(long, env = "STUDIO_WORKERS", default_value_t = 1)]
    pub workers: u32,
    /// Queued and running jobs one project may have; further creates get 429.
    #[arg(long, env = "STUDIO_MAX_ACTIVE_PER_PROJECT", default_value_t = Limits::default().active_per_project)]
    pub max_active_per_project: usize,
    /// Queued and running jobs in all; further creates get 429.
    #[arg(long, env = "STUDIO_MAX_ACTIVE_JOBS", default_value_t = Limits::default().active)]
    pub max_active_jobs: usize,
    /// Submissions to hosted providers in flight at once.
    #[arg(long, env = "STUDIO_MAX_HOSTED_SUBMISSIONS", default_value_t = Limits::default().hosted_submissions)]
    pub max_hosted_submissions: usize,
    /// Seconds of video each provider may be asked for per UTC day, e.g. `openai=120,runway=60`.
    #[arg(long, env = "STUDIO_DAILY_VIDEO_SECONDS", value_delimiter = ',')]
    pub daily_video_seconds: Vec<String>,
    /// Days after which finished jobs (records and unsaved previews) are removed; 0 keeps them.
    #[arg(long, env = "STUDIO_RETENTION_DAYS", default_value_t = Limits::default().retention.map_or(0, |d| d.as_secs() / 86_400))]
    pub retention_days: u64,
    /// The most the whole studio may spend in a calendar month (UTC), in USD; jobs past it
    /// get 402. No cap when unset.
    #[arg(long, env = "STUDIO_MONTHLY_BUDGET_USD")]
    pub monthly_budget_usd: Option<f64>,
    /// Content Credentials (C2PA) on every video the server writes: `on` or `off`.
    #[arg(long, env = "STUDIO_C2PA", value_enum, default_value_t = C2paMode::On)]
    pub c2pa: C2paMode,
    /// The signing certificate chain (PEM: the signer's certificate first). With none, a local
    /// certificate is made in the data folder on first start, which validators call untrusted.
    #[arg(long, env = "STUDIO_C2PA_CERT", requires = "c2pa_key")]
    pub c2pa_cert: Option<PathBuf>,
    /// The signing certificate's private key (PEM, ES256).
    #[arg(long, env = "STUDIO_C2PA_KEY", requires = "c2pa_cert")]
    pub c2pa_key: Option<PathBuf>,
    /// Record each job's prompt in its video's manifest (prompts can be confidential: off by
    /// default).
    #[arg(long, env = "STUDIO_C2PA_PROMPTS")]
    pub c2pa_prompts: bool,
    /// How log lines are written: `text`, or `json` (one object a line).
    #[arg(long, env = "STUDIO_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// The model used when a job names none.
    #[arg(long, env = "STUDIO_DEFAULT_MODEL", default_value = "local-1")]
    pub default_model: String,

    #[command(flatten)]
    pub providers: ProviderConfig,

    /// Where videos are kept.
    #[arg(long, env = "STUDIO_STORAGE", value_enum, default_value_t = StorageKind::Local)]
    pub storage: StorageKind,
    #[arg(long, env = "STUDIO_S3_BUCKET")]
    pub s3_bucket: Option<String>,
    /// The S3 endpoint for R2, MinIO and the like (AWS when unset).
    #[arg(long, env = "STUDIO_S3_ENDPOINT")]
    pub s3_endpoint: Option<String>,
    #[arg(long, env = "STUDIO_S3_REGION", default_value = "us-east-1")]
    pub s3_region: String,
    #[arg(long, env = "STUDIO_S3_ACCESS_KEY_ID")]
    pub s3_access_key_id: Option<String>,
    #[arg(long, env = "STUDIO_S3_SECRET_ACCESS_KEY", hide_env_values = true)]
    pub s3_secret_access_key: Option<String>,
    /// Prepended to every key, for example `studio/`.
    #[arg(long, env = "STUDIO_S3_PREFIX", default_value = "")]
    pub s3_prefix: String,
    /// The bucket's public base URL (or its CDN's); public_url is this plus the key.
    #[arg(long, env = "STUDIO_S3_PUBLIC_URL")]
    pub s3_public_url: Option<String>,

    /// Keep job records, the queue and job events in PostgreSQL (`postgres://...`), shared by
    /// any number of replicas; without it, files in the data folder.
    #[arg(long, env = "STUDIO_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// With a database: how long a replica's claim on a job lasts without renewal (a replica
    /// that dies has its jobs taken over this long after).
    #[arg(long, env = "STUDIO_LEASE_SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub lease_seconds: u64,
    /// With a database and `--storage local`: the media folder is one every replica shares (a
    /// network mount), so each replica sees the videos the others save.
    #[arg(long, env = "STUDIO_SHARED_MEDIA")]
    pub shared_media: bool,
}

impl Config {
    /// The address to listen on; one other machines can reach needs --allow-remote.
    pub fn listen_address(&self) -> anyhow::Result<std::net::IpAddr> {
        let ip: std::net::IpAddr = match self.host.as_str() {
            "localhost" => std::net::Ipv4Addr::LOCALHOST.into(),
            host => host.trim_matches(['[', ']']).parse().with_context(|| {
                format!("--host takes an IP address such as 127.0.0.1, not {host:?}")
            })?,
        };
        if !ip.is_loopback() && !self.allow_remote {
            anyhow::bail!(
                "--host {ip} lets other machines reach Studio; add --allow-remote \
                 (STUDIO_ALLOW_REMOTE=true) to mean it (see docs/security.md)"
            );
        }
        Ok(ip)
    }

    /// The guard's settings for the bound address.
    pub fn guard(&self, bound: std::net::IpAddr) -> anyhow::Result<GuardSettings> {
        Ok(GuardSettings {
            bound,
            public_urls: self
                .public_url
                .iter()
                .chain(self.s3_public_url.iter())
                .cloned()
                .collect(),
            api_base: self.client_api_base.clone(),
            extra_hosts: self.allowed_hosts.clone(),
            cors_origins: self.cors_origins.clone(),
            access_code: self.access_code()?,
            trusted_proxies: TrustedProxies::parse(&self.trusted_proxies)?
                .reading(self.forwarded_header),
        })
    }

    /// The embedded engine plus the models of every provider that has a key.
    pub fn catalog(&self) -> anyhow::Result<Catalog> {
        let mut catalog = self.providers.catalog(&self.default_model)?;
        if let Some(path) = &self.prices {
            catalog.set_prices(Prices::load(path)?);
        }
        Ok(catalog)
    }

    /// The local folder under the data folder, or the configured bucket.
    pub fn storage(&self) -> anyhow::Result<Arc<dyn Storage>> {
        Ok(match self.storage {
            StorageKind::Local => {
                Arc::new(LocalStorage::new(self.media_root(), self.data.join("tmp"))?)
            }
            StorageKind::S3 => Arc::new(ListingCache::new(
                Arc::new(S3Storage::new(&S3Settings {
                    bucket: self
                        .s3_bucket
                        .clone()
                        .context("--s3-bucket (STUDIO_S3_BUCKET) is required with S3 storage")?,
                    endpoint: self.s3_endpoint.clone(),
                    region: self.s3_region.clone(),
                    access_key_id: self.s3_access_key_id.clone(),
                    secret_access_key: self.s3_secret_access_key.clone(),
                    prefix: self.s3_prefix.clone(),
                    public_base_url: self.s3_public_url.clone().context(
                        "--s3-public-url (STUDIO_S3_PUBLIC_URL) is required with S3 storage",
                    )?,
                })?),
                Freshness::default(),
            )),
        })
    }

    /// The job service, on the data folder's files or on the shared database.
    pub async fn start_jobs(&self) -> anyhow::Result<JobService> {
        let (storage, catalog, limits) = (self.storage()?, self.catalog()?, self.limits()?);
        let Some(url) = &self.database_url else {
            return Ok(JobService::start(
                self.data.clone(),
                storage,
                catalog,
                limits,
            )?);
        };
        if self.storage == StorageKind::Local && !self.shared_media {
            anyhow::bail!(
                "--database-url lets several servers share the jobs, so they must share the \
                 videos too: use --storage s3, or put the media folder on a mount every server \
                 shares and say so with --shared-media"
            );
        }
        let owner = format!("replica-{}", ulid::Ulid::new());
        let lease = Duration::from_secs(self.lease_seconds);
        let db = Database::connect(url, owner, lease).await?;
        let limits = self.share_local_signer(&db, limits).await?;
        Ok(JobService::start_shared(self.data.clone(), storage, catalog, limits, db).await?)
    }

    /// The local storage folder (served at /media).
    pub fn media_root(&self) -> PathBuf {
        self.data.join("media")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listening_beyond_this_machine_needs_allow_remote() {
        let parse =
            |args: &[&str]| Config::parse_from(["server-stub"].iter().chain(args)).listen_address();
        assert!(parse(&[]).unwrap().is_loopback());
        assert!(parse(&["--host", "::1"]).unwrap().is_loopback());
        assert!(parse(&["--host", "localhost"]).unwrap().is_loopback());
        for remote in ["0.0.0.0", "192.0.2.7", "::"] {
            let error = parse(&["--host", remote]).unwrap_err().to_string();
            assert!(error.contains("--allow-remote"), "{error}");
            assert!(parse(&["--host", remote, "--allow-remote"]).is_ok());
        }
        assert!(parse(&["--host", "studio.example.com"]).is_err());
    }

    #[test]
    fn providers_with_a_key_add_their_models() {
        let alone = Config::parse_from(["server-stub"]).catalog().unwrap();
        let ids: Vec<&str> = alone.models().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["local-1"]);
        let all = Config::parse_from([
            "server-stub",
            "--openai-api-key",
            "k1",
            "--fal-api-key",
            "k2",
            "--fal-models",
            "kling=fal-ai/kling-video/v2/master/text-to-video, wan=fal-ai/wan/v2.2",
            "--default-model",
            "sora-2",
        ])
        .catalog()
        .unwrap();
        let ids: Vec<&str> = all.models().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["sora-2", "local-1", "kling", "wan"]);
        assert_eq!(all.get("kling").unwrap().provider_name(), "fal");
        for bad in [
            vec!["server-stub", "--default-model", "sora-2"],
            vec![
                "server-stub",
                "--openai-api-key",
                "k",
                "--openai-models",
                "Sora 2",
            ],
            vec![
                "server-stub",
                "--openai-api-key",
                "k",
                "--openai-models",
                "local-1",
            ],
        ] {
            assert!(
                Config::parse_from(bad.clone()).catalog().is_err(),
                "{bad:?}"
            );
        }
        let s3 = Config::parse_from(["server-stub", "--storage", "s3", "--s3-bucket", "b"]);
        let error = s3.storage().err().unwrap().to_string();
        assert!(error.contains("--s3-public-url"), "{error}");
    }
}
