//! The /api routes together with their OpenAPI document: each route is registered from its
//! annotated handler, so the document cannot drift from what is served.

use tower_http::compression::CompressionLayer;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{assets, jobs, models, AppState};

#[derive(OpenApi)]
#[openapi(
    info(title = "Studio API", description = "Generate short videos from prompts, follow the jobs, keep the videos per project."),
    servers((url = "/api")),
    modifiers(&BearerAuth),
    security(("bearer" = [])),
    tags((name = "jobs"), (name = "assets"), (name = "models"))
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

pub fn routes() -> OpenApiRouter<AppState> {
    // Only the asset list can be large (10,000 videos is about 2 MB of JSON); compressing the
    // small job answers cost 12% of the requests per second for nothing.
    let assets = OpenApiRouter::new()
        .routes(routes!(assets::list))
        .layer(CompressionLayer::new());
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(assets)
        .routes(routes!(jobs::list, jobs::create))
        .routes(routes!(jobs::get))
        .routes(routes!(jobs::save))
        .routes(routes!(models::list))
}
