//! A sequence's cut made into one video: POST /api/projects/{projectId}/sequences/{id}/exports
//! with `{format: "mp4", size?}` (the sequence's size, or one of
//! `studio_core::video_size::EXPORT_SIZES`) answers 202 with a job (`model: "sequence"`), whose
//! progress comes on the project's stream like any job's, and whose video is saved to the
//! library when done, its metadata naming the sequence's version and each shot's take and
//! points (`lineage`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, JsonBody, PublicBase};
use super::jobs::JobView;
use super::timelines::sequence_cut;
use super::AppState;
use crate::engine::VideoSpec;
use crate::project::ProjectId;
use crate::sequences::export::Export;
use crate::sounds;
use studio_core::video_size::EXPORT_SIZES;

/// The formats a cut is exported in.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// H.264 in MP4, at the sequence's size and rate.
    Mp4,
}

/// What to export.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportRequest {
    format: ExportFormat,
    /// The picture's size; the sequence's when left out. A take of another shape fills it as
    /// the sequence's `fit` says (crop keeps the centre).
    #[schema(pattern = "^(1920x1080|1280x720|1080x1920|720x1280|1080x1080)$")]
    size: Option<String>,
    /// The shots' captions: a subtitle track (`mov_text`, the default), drawn into the picture
    /// (`burn`), or none.
    #[serde(default)]
    captions: CaptionsIn,
}

/// Where an export's captions go.
#[derive(Deserialize, ToSchema, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CaptionsIn {
    /// A subtitle track players can turn on.
    #[default]
    Track,
    /// Drawn into the picture: white on a dark box, in the title-safe area, in the bundled
    /// DejaVu Sans sized for the frame (lines wrapped to fit it); no subtitle track.
    Burn,
    /// Nowhere.
    None,
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}/exports",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    request_body = ExportRequest,
    responses(
        (status = 202, description = "The export's job (`model: \"sequence\"`), queued; its video is saved to the library when done", body = JobView),
        (status = 400, description = "Malformed JSON or project id", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
        (status = 409, description = "The sequence has no shots yet, a shot has no take chosen or its take is no longer in the library (the message names the shot), or a lane's sound is gone", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        (status = 422, description = "A format or size not offered", body = ErrorBody),
        (status = 429, description = "Too many active jobs (see Retry-After)", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
    JsonBody(body): JsonBody<ExportRequest>,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    let ExportFormat::Mp4 = body.format;
    let (sequence, cut) = sequence_cut(&state, &project, &id).await?;
    // A valid request for a sequence in the wrong state (no shots yet): 409, as a shot with
    // no take is.
    if cut.clips.is_empty() {
        return Err(ApiError::Conflict(
            "The sequence has no shots to export".into(),
        ));
    }
    let folder = project.folder();
    let sounds = sounds::by_id(
        state.storage().as_ref(),
        &folder,
        !sequence.lanes.is_empty(),
    )
    .await?
    .into_iter()
    .map(|(id, s)| (id, (s.key(&folder), s.size_bytes)))
    .collect();
    let mut export = Export::of(&sequence, &cut, |file| folder.file(file), &sounds)
        .map_err(ApiError::Conflict)?;
    match body.captions {
        CaptionsIn::Track => {}
        CaptionsIn::Burn => export.burn_captions = true,
        CaptionsIn::None => export.captions.clear(),
    }
    let (width, height) = match &body.size {
        None => (cut.width, cut.height),
        Some(size) => EXPORT_SIZES
            .contains(&size.as_str())
            .then(|| studio_core::video_size::parse(size))
            .flatten()
            .ok_or_else(|| {
                ApiError::Unprocessable(format!(
                    "size must be one of {}, not {size}",
                    EXPORT_SIZES.join(", ")
                ))
            })?,
    };
    let spec = VideoSpec {
        width,
        height,
        fps: cut.fps,
        seconds: export.seconds().ceil() as u32,
    };
    let record = state
        .jobs
        .create_export(&project, &sequence.name, spec, sequence.fit, export)
        .await?;
    tracing::info!(project = %project, sequence = %id, job = %record.sora_job_id, "an export");
    Ok((
        StatusCode::ACCEPTED,
        Json(JobView::new(&state, &base, &record)),
    ))
}
