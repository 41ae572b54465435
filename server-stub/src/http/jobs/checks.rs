//! A job body checked: its prompt, length, size and seed, and the shot it names.

use super::super::error::ApiError;
use super::super::AppState;
use super::bodies::{CreateJob, Seconds, PROMPT_MAX_CHARS, SECONDS_RANGE};
use crate::cast::{self, mentions};
use crate::engine::VideoSpec;
use crate::jobs::NewJob;

pub(in crate::http) fn checked_prompt(prompt: &str) -> Result<String, ApiError> {
    if prompt.chars().count() > PROMPT_MAX_CHARS {
        return Err(ApiError::Unprocessable(format!(
            "prompt is longer than {PROMPT_MAX_CHARS} characters"
        )));
    }
    // Blank as the documented pattern `\S` reads it: Unicode white space and the four
    // information separators (U+001C to U+001F) that regex engines count as space too.
    let blank = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
    match prompt.trim_matches(blank) {
        "" => Err(ApiError::Unprocessable("prompt must not be empty".into())),
        trimmed => Ok(trimmed.to_owned()),
    }
}

fn spec(body: &CreateJob) -> Result<VideoSpec, ApiError> {
    let mut spec = VideoSpec::default();
    if let Some(seconds) = &body.seconds {
        let value = match seconds {
            Seconds::Number(n) => {
                (n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX)).then_some(*n as u32)
            }
            Seconds::Text(t) => studio_core::video_size::strict_number(t),
        };
        spec.seconds = value.filter(|s| SECONDS_RANGE.contains(s)).ok_or_else(|| {
            ApiError::Unprocessable("seconds must be a whole number from 1 to 20".into())
        })?;
    }
    if let Some(size) = &body.size {
        (spec.width, spec.height) = VideoSpec::parse_size(size).ok_or_else(|| {
            ApiError::Unprocessable(
                "size must be WIDTHxHEIGHT, even numbers from 128 to 1920".into(),
            )
        })?;
    }
    Ok(spec)
}

pub(super) fn new_job(project_id: String, body: CreateJob) -> Result<NewJob, ApiError> {
    Ok(NewJob {
        project_id,
        prompt: checked_prompt(&body.prompt)?,
        spec: spec(&body)?,
        model: body.model,
        inputs: body.inputs,
        fit: body.fit,
        seed: body.seed.map(seed).transpose()?,
        shot: body.shot,
        shots: Vec::new(),
    })
}

/// The job's shot, when it names one, is a shot of one of the project's sequences.
pub(super) async fn check_shot(
    state: &AppState,
    project: &str,
    new: &NewJob,
) -> Result<(), ApiError> {
    match &new.shot {
        Some(link) => super::super::sequences::check_link(state, project, link).await,
        None => Ok(()),
    }
}

/// The job with the pictures of the cast members its prompt mentions among its inputs
/// (`cast::mentions`); the cast is read only when the prompt mentions someone. A model not
/// offered is left for the create to refuse.
pub(in crate::http) async fn with_cast(state: &AppState, new: NewJob) -> Result<NewJob, ApiError> {
    let members = if studio_core::cast::mentions(&new.prompt).is_empty() {
        Vec::new()
    } else {
        let folder = crate::project::ProjectFolder::of(&new.project_id);
        cast::list(state.storage().as_ref(), &folder).await?
    };
    with_members(state, new, &members)
}

/// The job with the pictures of the `members` its prompt mentions among its inputs.
pub(in crate::http) fn with_members(
    state: &AppState,
    mut new: NewJob,
    members: &[cast::Member],
) -> Result<NewJob, ApiError> {
    let catalog = state.jobs.catalog();
    let model = new.model.as_deref().unwrap_or(catalog.default_model());
    let Some(maker) = catalog.get(model) else {
        return Ok(new);
    };
    new.inputs = mentions::resolve(&new.prompt, members, new.inputs, model, &maker.inputs())
        .map_err(|e| ApiError::Unprocessable(e.to_string()))?;
    Ok(new)
}

/// A seed: a whole number (JSON's 7.0 is 7) from 0 to 2^32-1.
fn seed(value: f64) -> Result<u32, ApiError> {
    let whole = value.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&value);
    whole.then_some(value as u32).ok_or_else(|| {
        ApiError::Unprocessable("seed must be a whole number from 0 to 4294967295".into())
    })
}
