//! The router: /api (bearer auth, JSON, body limit), /media (public files), /config.json,
//! providers' /callbacks and the built app, behind the guard (Host check, who gets the app, CORS for listed origins,
//! security headers), with compression and request tracing.

mod app;
mod archive;
mod assets;
mod auth;
mod budget;
mod callbacks;
mod captions;
mod cast;
mod downloads;
pub mod error;
mod events;
mod exports;
mod extract;
pub mod guard;
mod health;
mod job_bodies;
mod jobs;
mod media;
mod metrics;
mod models;
mod openapi;
mod references;
mod review;
mod sequences;
mod shares;
mod sounds;
mod spend;
mod storyboard;
mod text_fields;
mod timelines;

use std::path::Path;
use std::sync::Arc;

use axum::routing::{any, get};
use axum::{middleware, Router};
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

use crate::database::Database;
use crate::jobs::JobService;
use crate::poster::Posters;
use crate::project::ProjectId;
use crate::project_events::ProjectEvents;
use crate::prompts::Prompts;
use crate::references::References;
use crate::storage::Storage;
use error::ApiError;
use guard::Guard;
use job_bodies::JobBodies;

/// Where the API's routes live; its document states this as its server and its paths below it.
pub const API: &str = "/api";

/// The largest /api request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// What every handler shares, behind one `Arc`: axum clones a route's whole service (its state
/// included) for every request, and one shared count is cheaper to move between the cores than
/// one for each field.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

/// The services side by side: a handler asks the one it needs (storage for the library, the
/// database for sequences and review links, the job service for jobs), never one through
/// another.
struct Inner {
    shared: Shared,
    storage: Arc<dyn Storage>,
    /// The database replicas share, when there is one.
    database: Option<Database>,
    references: References,
    prompts: Prompts,
    /// Posters made from a video's first frame when the media folder has none.
    posters: Arc<Posters>,
    /// GET job answers kept for jobs that have not changed.
    job_bodies: JobBodies,
    /// Picks and review notes, for the project's event streams.
    project_events: ProjectEvents,
}

/// What the server is started with (`AppState` adds what the handlers make for themselves).
pub struct Shared {
    pub jobs: JobService,
    pub token: String,
    /// The base URL public media addresses are built on; from the request's Host when unset.
    pub public_url: Option<String>,
    /// The API base the app is told to use in config.json.
    pub client_api_base: String,
    pub guard: Arc<Guard>,
    /// A second token that reads /metrics only.
    pub metrics_token: Option<String>,
}

impl From<Shared> for AppState {
    fn from(shared: Shared) -> Self {
        let project_events =
            ProjectEvents::new(shared.jobs.database(), shared.jobs.storage().clone());
        let state = AppState(Arc::new(Inner {
            project_events,
            storage: shared.jobs.storage().clone(),
            database: shared.jobs.database(),
            references: shared.jobs.references().clone(),
            posters: shared.jobs.posters().clone(),
            prompts: shared.jobs.prompts().clone(),
            shared,
            job_bodies: JobBodies::default(),
        }));
        // A video the jobs save by themselves (an export, a take of a shot) reaches the
        // library's streams as a save does, and a take joins its shot. The hook holds the
        // state weakly: the state holds the jobs that hold the hook.
        let weak = Arc::downgrade(&state.0);
        state
            .jobs
            .when_saved(Box::new(move |project, file_name, shot| {
                let Some(state) = weak.upgrade().map(AppState) else {
                    return;
                };
                let change = crate::project_events::Change::Library {
                    file_name: file_name.to_owned(),
                    saved: true,
                };
                state.project_events().publish(project, change);
                if let (Some(link), Ok(project)) = (shot.cloned(), ProjectId::parse(project)) {
                    let take = file_name.to_owned();
                    tokio::spawn(async move {
                        sequences::join_take(&state, &project, &link, &take).await;
                    });
                }
            }));
        state
    }
}

impl AppState {
    pub(crate) fn storage(&self) -> &Arc<dyn Storage> {
        &self.0.storage
    }

    pub(crate) fn database(&self) -> Option<&Database> {
        self.0.database.as_ref()
    }

    pub(crate) fn references(&self) -> &References {
        &self.0.references
    }

    pub(crate) fn prompts(&self) -> &Prompts {
        &self.0.prompts
    }

    pub(crate) fn posters(&self) -> &Posters {
        &self.0.posters
    }

    pub(crate) fn job_bodies(&self) -> &JobBodies {
        &self.0.job_bodies
    }

    pub(crate) fn project_events(&self) -> &ProjectEvents {
        &self.0.project_events
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0.shared
    }
}

async fn api_not_found() -> ApiError {
    ApiError::NotFound("No such API route".into())
}

pub fn router(state: impl Into<AppState>, media_root: &Path, dist: &Path) -> Router {
    let state = state.into();
    let guard = state.guard.clone();
    let (api, doc) = openapi::routes().split_for_parts();
    // Serialised once: every request gets the same bytes.
    let doc = bytes::Bytes::from(openapi::finish(doc, &models::ids(&state)).to_string());
    // The API's routes carry their full paths (`context_path = API`) and are merged, not
    // nested: a nest strips its prefix and builds a new URI for every request, which cost the
    // job status poll 12% of its requests per second.
    let api = api
        .route(
            &format!("{API}/openapi.json"),
            get(move |_: auth::Authorized| async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    doc,
                )
            }),
        )
        .route(API, any(api_not_found))
        .route(&format!("{API}/"), any(api_not_found))
        .route(&format!("{API}/{{*rest}}"), any(api_not_found));
    let media = Router::new()
        .route("/shares/{*rest}", any(media::private))
        .route("/budgets/{*rest}", any(media::private))
        .route("/sequences/{*rest}", any(media::private))
        .fallback_service(get(media::serve).with_state(media::Folder {
            root: media_root.into(),
            app: state.clone(),
        }))
        .layer(middleware::from_fn(media::poster_caching));
    let site = Router::new()
        .route("/config.json", get(app::config))
        .route_service("/review/{*token}", app::review_page(dist))
        .fallback_service(app::files(dist))
        .layer(middleware::from_fn(app::cache_policy))
        .layer(CompressionLayer::new())
        .layer(middleware::from_fn_with_state(
            guard.clone(),
            guard::site_door,
        ));
    let join = Router::new()
        .route("/join", get(guard::join))
        .with_state(guard.clone());
    let health = Router::new()
        .route("/metrics", get(metrics::scrape))
        .route("/healthz", get(health::alive))
        .route("/readyz", get(health::ready));
    let (api, media) = match guard.cors() {
        Some(cors) => (api.layer(cors.clone()), media.layer(cors)),
        None => (api, media),
    };
    let app = Router::new()
        .merge(api)
        .nest("/media", media)
        .merge(site)
        .merge(health)
        .merge(callbacks::routes())
        .with_state(state)
        .merge(join)
        .layer(guard::nosniff())
        .layer(guard::HostCheckLayer(guard));
    // Request logs only when they would be shown (RUST_LOG=info,tower_http=debug, say):
    // spans nobody reads cost 15% of the requests per second.
    if tracing::enabled!(target: "tower_http", tracing::Level::DEBUG) {
        app.layer(TraceLayer::new_for_http())
    } else {
        app
    }
}
