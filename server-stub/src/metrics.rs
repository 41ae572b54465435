//! What an operator scrapes at `GET /metrics` (Prometheus text format): jobs by status and
//! provider and the queue depth (counted from the records at each scrape), job durations,
//! provider latency, errors and retries by HTTP status, bytes copied from providers, the
//! event streams open, and this month's committed spend by provider. One registry per process, as Prometheus clients keep it.

use std::sync::atomic::AtomicU64;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::job_status::Status;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct JobLabels {
    pub status: &'static str,
    pub provider: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SpendLabels {
    pub provider: String,
}

/// One job as a scrape counts it.
pub struct JobCount {
    /// `None` for a removed job: counted in the spend only.
    pub status: Option<Status>,
    pub provider: String,
    /// What it commits of this month's budgets, in USD (`crate::jobs::budget::committed`).
    pub committed_usd: f64,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ProviderLabels {
    /// The provider API's host.
    pub host: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ProviderCodeLabels {
    pub host: String,
    /// The HTTP status, or `network` when none came.
    pub code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FinishedLabels {
    pub provider: String,
    pub status: &'static str,
}

pub struct Metrics {
    registry: Registry,
    jobs: Family<JobLabels, Gauge>,
    queue_depth: Gauge,
    job_duration: Family<FinishedLabels, Histogram>,
    provider_latency: Family<ProviderLabels, Histogram>,
    provider_errors: Family<ProviderCodeLabels, Counter>,
    provider_retries: Family<ProviderCodeLabels, Counter>,
    bytes_copied: Counter,
    storage_errors: Counter,
    fenced_writes: Counter,
    streams_open: Gauge,
    spend: Family<SpendLabels, Gauge<f64, AtomicU64>>,
    /// Encoding reads every metric: one scrape at a time.
    scrape: Mutex<()>,
}

fn seconds_buckets(start: f64, factor: f64, count: u16) -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        start, factor, count,
    ))
}

static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

/// The process's metrics.
pub fn get() -> &'static Metrics {
    &METRICS
}

impl Metrics {
    fn new() -> Metrics {
        let mut registry = Registry::with_prefix("studio");
        let jobs = Family::<JobLabels, Gauge>::default();
        registry.register("jobs", "Jobs kept, by status and provider", jobs.clone());
        let queue_depth = Gauge::default();
        registry.register(
            "queue_depth",
            "Jobs queued and not yet started",
            queue_depth.clone(),
        );
        let job_duration = Family::<FinishedLabels, Histogram>::new_with_constructor(|| {
            seconds_buckets(0.5, 2.0, 14)
        });
        registry.register(
            "job_duration_seconds",
            "From creation to done or error, by provider",
            job_duration.clone(),
        );
        let provider_latency = Family::<ProviderLabels, Histogram>::new_with_constructor(|| {
            seconds_buckets(0.01, 2.0, 14)
        });
        registry.register(
            "provider_request_seconds",
            "Time to a provider's answer (headers), by host",
            provider_latency.clone(),
        );
        let provider_errors = Family::<ProviderCodeLabels, Counter>::default();
        registry.register(
            "provider_errors",
            "Provider answers that failed, by host and HTTP status",
            provider_errors.clone(),
        );
        let provider_retries = Family::<ProviderCodeLabels, Counter>::default();
        registry.register(
            "provider_retries",
            "Provider requests sent again, by host and the status that caused it",
            provider_retries.clone(),
        );
        let bytes_copied = Counter::default();
        registry.register(
            "provider_bytes_copied",
            "Bytes of finished videos copied from providers into storage",
            bytes_copied.clone(),
        );
        let storage_errors = Counter::default();
        registry.register(
            "storage_errors",
            "Disk or bucket operations that failed",
            storage_errors.clone(),
        );
        let fenced_writes = Counter::default();
        registry.register(
            "fenced_writes",
            "Job writes discarded because the job's lease had passed to another replica",
            fenced_writes.clone(),
        );
        let streams_open = Gauge::default();
        registry.register(
            "event_streams_open",
            "Event streams open now",
            streams_open.clone(),
        );
        let spend = Family::<SpendLabels, Gauge<f64, AtomicU64>>::default();
        registry.register(
            "spend_committed_usd",
            "This calendar month's spend (UTC) plus the estimates of active jobs, by provider",
            spend.clone(),
        );
        Metrics {
            spend,
            registry,
            jobs,
            queue_depth,
            job_duration,
            provider_latency,
            provider_errors,
            provider_retries,
            bytes_copied,
            storage_errors,
            fenced_writes,
            streams_open,
            scrape: Mutex::new(()),
        }
    }

    /// The text exposition, with the job gauges counted from `jobs` (status and provider of
    /// each job kept) now.
    pub fn render(&self, jobs: &[JobCount]) -> String {
        let _one = self.scrape.lock().unwrap_or_else(|e| e.into_inner());
        self.jobs.clear();
        self.spend.clear();
        let mut queued = 0;
        for job in jobs {
            if let Some(status) = job.status {
                queued += i64::from(status == Status::Queued);
                let labels = JobLabels {
                    status: status.name(),
                    provider: job.provider.clone(),
                };
                self.jobs.get_or_create(&labels).inc();
            }
            let spend = SpendLabels {
                provider: job.provider.clone(),
            };
            self.spend.get_or_create(&spend).inc_by(job.committed_usd);
        }
        self.queue_depth.set(queued);
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }

    /// A job finished (done or error) `took` after it was created.
    pub fn finished(&self, provider: &str, status: Status, took: Duration) {
        let labels = FinishedLabels {
            provider: provider.to_owned(),
            status: status.name(),
        };
        self.job_duration
            .get_or_create(&labels)
            .observe(took.as_secs_f64());
    }

    /// A provider answered (or failed to) after `took`; `code` is its status when it failed.
    pub fn provider_answer(&self, host: &str, took: Duration, failed: Option<String>) {
        let host = host.to_owned();
        self.provider_latency
            .get_or_create(&ProviderLabels { host: host.clone() })
            .observe(took.as_secs_f64());
        if let Some(code) = failed {
            self.provider_errors
                .get_or_create(&ProviderCodeLabels { host, code })
                .inc();
        }
    }

    /// A provider request is sent again after `code`.
    pub fn provider_retry(&self, host: &str, code: String) {
        self.provider_retries
            .get_or_create(&ProviderCodeLabels {
                host: host.to_owned(),
                code,
            })
            .inc();
    }

    pub fn storage_failed(&self) {
        self.storage_errors.inc();
    }

    /// A worker's write came after its job's lease had passed to another replica.
    pub fn fenced(&self) {
        self.fenced_writes.inc();
    }

    pub fn copied(&self, bytes: u64) {
        self.bytes_copied.inc_by(bytes);
    }

    /// Counts an event stream open until the returned guard is dropped.
    pub fn stream_opened(&'static self) -> StreamOpen {
        self.streams_open.inc();
        StreamOpen(self)
    }
}

/// An open event stream, counted until dropped.
pub struct StreamOpen(&'static Metrics);

impl Drop for StreamOpen {
    fn drop(&mut self) {
        self.0.streams_open.dec();
    }
}
