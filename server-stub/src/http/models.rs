//! GET /api/models: the models this server offers, the default first.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::ErrorBody;
use super::AppState;
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;
use studio_core::price::Price;

#[derive(Serialize, ToSchema)]
pub struct ModelView {
    /// The name a job gives in `model`, and the first part of its id.
    id: String,
    /// `local`, `openai`, `runway`, `fal`, `gemini`, `luma`, `kling`, `ark` or `replicate`.
    provider: &'static str,
    default: bool,
    /// Whether the progress of its jobs is estimated from elapsed time.
    progress_estimated: bool,
    /// The inputs its jobs may have besides the prompt.
    inputs: ModelInputs,
    /// What its video costs, or null when unknown: `{usd_per_second, by_resolution, blocks,
    /// tokens, seen, source}`, USD per second by resolution where it differs, in Luma's blocks
    /// (`[{seconds, by_resolution}]`: a clip costs the shortest block that holds it) or
    /// Seedance's tokens (`{fps, usd_per_1000_by_resolution}`: width x height x fps x seconds /
    /// 1024), with the date its source stated it and the source.
    #[schema(value_type = Option<Object>)]
    price: Option<Price>,
    /// A job's length when it names none (fitted to what the model makes).
    seconds: u32,
    /// A job's size when it names none, `WxH`.
    size: String,
}

#[derive(Serialize, ToSchema)]
pub struct Models {
    models: Vec<ModelView>,
}

/// The model ids, the default first (also given to the app in config.json).
pub fn ids(state: &AppState) -> Vec<String> {
    state
        .jobs
        .catalog()
        .models()
        .map(|m| m.id.clone())
        .collect()
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/models",
    tag = "models",
    responses(
        (status = 200, description = "The models offered, the default first", body = Models),
        (status = 401, description = "Missing or wrong bearer token", body = ErrorBody),
    ),
)]
pub async fn list(_: Authorized, State(state): State<AppState>) -> Json<Models> {
    let catalog = state.jobs.catalog();
    let models = catalog
        .models()
        .map(|m| ModelView {
            id: m.id.clone(),
            provider: m.maker.provider_name(),
            default: m.id == catalog.default_model(),
            progress_estimated: m.maker.estimates_progress(),
            inputs: m.maker.inputs(),
            price: catalog.price(&m.id).cloned(),
            seconds: m.maker.fit(&VideoSpec::default()).seconds,
            size: m.maker.fit(&VideoSpec::default()).size(),
        })
        .collect();
    Json(Models { models })
}
