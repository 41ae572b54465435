//! PostgreSQL (`--database-url`), shared by any number of replicas: the connection, the
//! embedded migrations and what every part of the server uses of it: advisory locks
//! (`locks`), the rate of review notes per link (`review_posts`), the shared local signer
//! (`local_signer`) and the project channel replicas tell each other changes on (`projects`).
//! The job rows' own queries are in `jobs/rows/`.

mod local_signer;
mod locks;
mod projects;
mod review_posts;

use std::time::Duration;

use futures_util::future::BoxFuture;
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

pub use locks::exclusively;
pub use review_posts::Posted;

/// How long a replica waits for the database at start.
const CONNECT_FOR: Duration = Duration::from_secs(60);

/// The migrations in `server-stub/migrations/`, built into the binary: what `sqlx::migrate!`
/// does, without sqlx's macro crates, which built a second, unoptimised sqlx for the compiler
/// on every first start. Versions, descriptions and checksums are the macro's, so a database
/// migrated by either is up to date for the other. A new file in `migrations/` is listed here.
#[derive(Debug)]
struct Embedded;

impl<'s> MigrationSource<'s> for Embedded {
    fn resolve(self) -> BoxFuture<'s, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async {
            Ok(vec![
                Migration::new(
                    1,
                    "jobs".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0001_jobs.sql").into(),
                    false,
                ),
                Migration::new(
                    2,
                    "jobs by month".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0002_jobs_by_month.sql").into(),
                    false,
                ),
                Migration::new(
                    3,
                    "jobs spend".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0003_jobs_spend.sql").into(),
                    false,
                ),
                Migration::new(
                    4,
                    "made order and spend ledger".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0004_made_order_and_spend_ledger.sql").into(),
                    false,
                ),
                Migration::new(
                    5,
                    "review posts".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0005_review_posts.sql").into(),
                    false,
                ),
                Migration::new(
                    6,
                    "claim lapses".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0006_claim_lapses.sql").into(),
                    false,
                ),
                Migration::new(
                    7,
                    "replicas".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0007_replicas.sql").into(),
                    false,
                ),
                Migration::new(
                    8,
                    "local signer".into(),
                    MigrationType::Simple,
                    include_str!("../../migrations/0008_local_signer.sql").into(),
                    false,
                ),
            ])
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("database migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("database: job {0} changed under its row lock")]
    Lost(String),
}

/// Connections for requests, admissions, claims and writes.
const WORK_CONNECTIONS: u32 = 8;
/// Advisory locks a replica holds or waits for at once, each on a connection of its own.
const LOCK_CONNECTIONS: usize = 16;

#[derive(Clone)]
pub struct Database {
    /// Requests, admissions, claims and writes.
    pub(crate) pool: PgPool,
    /// The two event listeners, each holding a connection for good: apart, so that they
    /// never take two of the work pool's.
    pub(crate) listening: PgPool,
    /// Lease renewals, apart from the work pool: however many creates wait for a connection
    /// there, a replica that works keeps its leases.
    pub(crate) leasing: PgPool,
    /// What a lock's own connection is opened with (`locks.rs`), and how many may be open.
    lock_options: PgConnectOptions,
    locking: std::sync::Arc<tokio::sync::Semaphore>,
    /// This replica's name in leases.
    pub(crate) owner: String,
    pub(crate) lease: Duration,
}

impl Database {
    /// Connects (waiting up to a minute for a database that is not up yet) and applies the
    /// embedded migrations.
    pub async fn connect(url: &str, owner: String, lease: Duration) -> Result<Database, DbError> {
        let deadline = tokio::time::Instant::now() + CONNECT_FOR;
        // A replica frozen inside a transaction (a pause, a stopped VM) would hold its row and
        // event locks for as long as it is frozen, and every other replica's writes would wait
        // for it: the database ends such a transaction once it has waited a lease.
        let idle = format!("{}ms", lease.as_millis().max(1));
        let options: PgConnectOptions = url
            .parse::<PgConnectOptions>()?
            .options([("idle_in_transaction_session_timeout", idle.as_str())]);
        let pool_of = |connections: u32| {
            PgPoolOptions::new()
                .max_connections(connections)
                .acquire_timeout(Duration::from_secs(10))
                .connect_lazy_with(options.clone())
        };
        let pool = pool_of(WORK_CONNECTIONS);
        loop {
            match pool.acquire().await {
                Ok(_) => break,
                Err(e) if tokio::time::Instant::now() < deadline => {
                    tracing::warn!(error = %e, "the database is not reachable yet; trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Migrator::new(Embedded).await?.run(&pool).await?;
        Ok(Database {
            pool,
            listening: pool_of(2),
            leasing: pool_of(2),
            lock_options: options,
            locking: std::sync::Arc::new(tokio::sync::Semaphore::new(LOCK_CONNECTIONS)),
            owner,
            lease,
        })
    }

    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Whether the database answers.
    pub async fn ready(&self) -> bool {
        sqlx::query("SELECT 1").execute(&self.pool).await.is_ok()
    }
}
