//! GET /api/models: the models this server offers, the default first.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::ErrorBody;
use super::jobs::SECONDS_RANGE;
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
    /// Every length it makes of those a job may ask for (1 to 20 s), in seconds: a job asking
    /// for another is fitted to the nearest.
    lengths: Vec<u32>,
    /// Where it makes several shots in one call (`generate` with `multi_shot`): how many and
    /// how long together; null when it makes one shot a call.
    shots: Option<ShotsView>,
}

/// Several shots in one call.
#[derive(Serialize, ToSchema)]
pub struct ShotsView {
    most_shots: usize,
    least_s: u32,
    most_s: u32,
    /// The longest prompt of one shot, in characters.
    prompt_chars: usize,
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
            lengths: lengths(|spec| m.maker.fit(spec)),
            shots: m.maker.makes_shots().map(|limits| ShotsView {
                most_shots: limits.most_shots,
                least_s: limits.seconds.0,
                most_s: limits.seconds.1,
                prompt_chars: limits.prompt_chars,
            }),
        })
        .collect();
    Json(Models { models })
}

/// The lengths `fit` makes of those a job may ask for, each once, shortest first.
fn lengths(fit: impl Fn(&VideoSpec) -> VideoSpec) -> Vec<u32> {
    let mut made: Vec<u32> = SECONDS_RANGE
        .map(|seconds| {
            fit(&VideoSpec {
                seconds,
                ..VideoSpec::default()
            })
            .seconds
        })
        .collect();
    made.sort_unstable();
    made.dedup();
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_those_the_fitting_makes() {
        let five_or_ten = |spec: &VideoSpec| VideoSpec {
            seconds: if spec.seconds < 8 { 5 } else { 10 },
            ..*spec
        };
        assert_eq!(lengths(five_or_ten), [5, 10]);
        assert_eq!(lengths(|spec| *spec).len(), 20);
    }
}
