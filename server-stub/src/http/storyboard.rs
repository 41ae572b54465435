//! From a script to a storyboard: POST `/sequences/import` makes a sequence of a Fountain
//! screenplay (a shot per action paragraph, dialogue as captions, its characters added to the
//! cast), and POST `/sequences/{id}/generate` makes the takes of every shot that has none (with
//! `multi_shot`, neighbouring shots in one call where the model makes several), or only says
//! what that would ask and cost (`dry_run`).

use std::collections::HashSet;

use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody, OverBudgetBody};
use super::extract::{ApiPath, JsonBody, PublicBase};
use super::jobs::{checked_prompt, with_members, JobView};
use super::sequences::{announce, no_such, view, SequenceView};
use super::AppState;
use crate::cast;
use crate::clock::now;
use crate::engine::VideoSpec;
use crate::jobs::{multi_shot, NewJob};
use crate::project::ProjectId;
use crate::sequences::{self, captions, frames, new_id, Sequence, Shot, ShotLink};
use crate::sequences::{DEFAULT_SIZE, FPS_OFFERED, MAX_LABEL, MAX_SHOTS};
use studio_core::storyboard::{self, PlannedShot};

/// The largest script read.
pub const SCRIPT_LIMIT: usize = 1024 * 1024;
/// The most takes of each shot one generate makes.
const MAX_GENERATE_TAKES: u32 = 4;

/// A script as JSON.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportBody {
    /// The screenplay in Fountain (fountain.io), at most 1 MB.
    fountain: String,
    /// The sequence's name when the title page has no `Title:`.
    #[schema(max_length = 200)]
    name: Option<String>,
}

/// What a generate makes.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateBody {
    /// One of GET /models (the server's default when left out).
    model: Option<String>,
    /// Takes of each shot, 1 to 4 (1 when left out).
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 4)]
    takes: Option<f64>,
    /// Only the shots with no take yet and no job under way (true when left out).
    only_empty: Option<bool>,
    /// Neighbouring shots in one call each, as far as the model makes several shots in one
    /// (Kling 3.0: up to 6 shots, 3 to 15 s together), each cut back into a take of its own
    /// when done (false when left out; 422 for a model that makes one shot a call).
    #[serde(default)]
    multi_shot: bool,
    /// Say what would be made and what it costs; start nothing.
    #[serde(default)]
    dry_run: bool,
}

/// What a generate would make and cost.
#[derive(Serialize, ToSchema)]
pub struct GenerateEstimate {
    shots: usize,
    jobs: usize,
    seconds: u64,
    estimate_usd: f64,
    budget: BudgetLeft,
}

#[derive(Serialize, ToSchema)]
pub struct BudgetLeft {
    /// What the smaller of the project's and the studio's monthly caps leaves (`null`: no cap).
    remaining_usd: Option<f64>,
    /// Whether that covers the estimate.
    enough: bool,
}

/// The jobs a generate started.
#[derive(Serialize, ToSchema)]
pub struct Generated {
    shots: usize,
    jobs: Vec<JobView>,
}

/// The script a request carries: its text as `text/plain`, or JSON `{fountain, name}`.
async fn script(request: Request) -> Result<(String, Option<String>), ApiError> {
    let kind = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    let bytes = to_bytes(request.into_body(), SCRIPT_LIMIT)
        .await
        .map_err(|_| ApiError::Unprocessable("The script is over 1 MB".into()))?;
    let text = |bytes: Vec<u8>| {
        String::from_utf8(bytes)
            .map_err(|_| ApiError::Unprocessable("The script is not UTF-8 text".into()))
    };
    match kind.as_str() {
        "text/plain" | "text/x-fountain" => Ok((text(bytes.to_vec())?, None)),
        "application/json" => {
            let body: ImportBody = serde_json::from_slice(&bytes)
                .map_err(|e| ApiError::Unprocessable(format!("Malformed JSON: {e}")))?;
            Ok((body.fountain, body.name))
        }
        _ => Err(ApiError::Unprocessable(
            "The script must be sent as text/plain (Fountain) or as JSON {fountain, name}".into(),
        )),
    }
}

/// A planned shot as the sequence keeps it, `seconds` long.
fn shot(planned: PlannedShot, seconds: u32, fps: u32) -> Result<Shot, ApiError> {
    let planned_frames = u64::from(seconds) * u64::from(fps);
    let caption = captions::caption(planned.caption.as_deref().unwrap_or(""), None, None)
        .map_err(|e| ApiError::Unprocessable(format!("{}: {e}", planned.label)))?;
    Ok(Shot {
        id: new_id("shot"),
        label: planned.label,
        prompt: Some(planned.prompt),
        takes: Vec::new(),
        take: None,
        in_frame: 0,
        out_frame: planned_frames,
        caption,
        gain_db: 0.0,
        mute: false,
        reframe: None,
        planned_frames: Some(planned_frames),
    })
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/import",
    tag = "sequences",
    params(("project_id" = String, Path)),
    request_body(
        description = "A screenplay in Fountain as text/plain, or JSON {fountain, name}; at most 1 MB",
        content((String = "text/plain"), (ImportBody = "application/json")),
    ),
    responses(
        (status = 201, description = "The sequence: a shot per action paragraph, dialogue as captions, each planned from its words; the characters it names joined the cast", body = SequenceView),
        (status = 400, description = "Invalid project id", body = ErrorBody),
        (status = 409, description = "The cast would pass 200 members", body = ErrorBody),
        (status = 422, description = "Not text, over 1 MB, or no scene and no action to make shots of: the message says which", body = ErrorBody),
    ),
)]
pub async fn import(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
    request: Request,
) -> Result<(StatusCode, Json<SequenceView>), ApiError> {
    let (text, name) = script(request).await?;
    let storage = state.storage().as_ref();
    let folder = project.folder();
    let members = cast::list(storage, &folder).await?;
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    let board = storyboard::plan(&studio_core::fountain::read(&text), &names);
    if board.shots.is_empty() {
        return Err(ApiError::Unprocessable(
            "The script has no action or dialogue to make shots of".into(),
        ));
    }
    if board.shots.len() > MAX_SHOTS {
        return Err(ApiError::Unprocessable(format!(
            "The script makes {} shots; a sequence holds at most {MAX_SHOTS}",
            board.shots.len()
        )));
    }
    let name = [board.title.clone(), name]
        .into_iter()
        .flatten()
        .map(|n| n.trim().chars().take(MAX_LABEL).collect::<String>())
        .find(|n| !n.is_empty())
        .unwrap_or_else(|| "Imported script".into());
    let fps = FPS_OFFERED[0];
    let catalog = state.jobs.catalog();
    let maker = catalog.get(catalog.default_model());
    let (width, height) = studio_core::video_size::parse(DEFAULT_SIZE).unwrap_or((1280, 720));
    let shots = board
        .shots
        .into_iter()
        .map(|planned| {
            let asked = VideoSpec {
                width,
                height,
                fps,
                seconds: planned.seconds().min(20),
            };
            let seconds = maker.map_or(asked.seconds, |m| m.fit(&asked).seconds);
            shot(planned, seconds, fps)
        })
        .collect::<Result<Vec<_>, _>>()?;
    cast::add_characters(storage, state.database(), &folder, &board.characters).await?;
    let sequence = Sequence {
        id: new_id("seq"),
        name,
        fps,
        size: DEFAULT_SIZE.to_owned(),
        fit: Default::default(),
        loudness: Default::default(),
        lanes: Default::default(),
        duck_db: sequences::lanes::DUCK_DB,
        version: 1,
        shots,
        updated_at: now(),
    };
    sequences::put(storage, &folder, &sequence).await?;
    tracing::info!(project = %project, sequence = %sequence.id, shots = sequence.shots.len(), "imported a script");
    announce(&state, &project, &sequence, false);
    Ok((StatusCode::CREATED, Json(view(sequence, &HashSet::new()))))
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/sequences/{sequence_id}/generate",
    tag = "sequences",
    params(("project_id" = String, Path), ("sequence_id" = String, Path)),
    request_body = GenerateBody,
    responses(
        (status = 200, description = "With `dry_run`: what would be made and cost, and what the budgets leave; nothing started", body = GenerateEstimate),
        (status = 201, description = "The jobs, queued: each shot's takes at its planned length, with its cast's pictures; saved takes join their shots", body = Generated),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 404, description = "No such sequence in this project", body = ErrorBody),
        (status = 422, description = "Takes out of range, an unknown model, `multi_shot` with a model that makes one shot a call, or a shot whose prompt mentions someone not in the cast: the message names the shot", body = ErrorBody),
        (status = 402, description = "The jobs together would pass a monthly cap: none started", body = OverBudgetBody),
        (status = 429, description = "The jobs together would pass the active-job limits or a daily budget: none started", body = ErrorBody),
    ),
)]
pub async fn generate(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath((project, id)): ApiPath<(ProjectId, String)>,
    JsonBody(body): JsonBody<GenerateBody>,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let takes = match body.takes {
        None => 1,
        Some(n) if n.fract() == 0.0 && (1.0..=f64::from(MAX_GENERATE_TAKES)).contains(&n) => {
            n as u32
        }
        Some(_) => {
            return Err(ApiError::Unprocessable(format!(
                "takes must be a whole number from 1 to {MAX_GENERATE_TAKES}"
            )))
        }
    };
    if let Some(model) = body.model.as_deref() {
        if state.jobs.catalog().get(model).is_none() {
            return Err(ApiError::Unprocessable(format!("Unknown model {model}")));
        }
    }
    let limits = match body.multi_shot {
        false => None,
        true => {
            let catalog = state.jobs.catalog();
            let model = body.model.as_deref().unwrap_or(catalog.default_model());
            let limits = catalog.get(model).and_then(|maker| maker.makes_shots());
            Some(limits.ok_or_else(|| {
                ApiError::Unprocessable(format!(
                    "The model {model} makes one shot a call: multi_shot needs one that makes several"
                ))
            })?)
        }
    };
    let storage = state.storage().as_ref();
    let sequence = sequences::get(storage, &project.folder(), &id)
        .await?
        .ok_or_else(no_such)?;
    let placed = jobs_of(
        &state,
        &project,
        &sequence,
        body.model,
        body.only_empty.unwrap_or(true),
    )
    .await?;
    let shots = placed.len();
    let news = match limits {
        Some(limits) => multi_shot::grouped(placed, limits),
        None => placed.into_iter().map(|(_, new)| new).collect(),
    };
    if body.dry_run {
        let estimate = state.jobs.estimate_batch(&project, news, takes).await?;
        let answer = GenerateEstimate {
            shots,
            jobs: estimate.jobs,
            seconds: estimate.seconds,
            estimate_usd: estimate.estimate_usd,
            budget: BudgetLeft {
                remaining_usd: estimate.remaining_usd,
                enough: estimate.enough(),
            },
        };
        return Ok(Json(answer).into_response());
    }
    let records = state.jobs.create_batch(&project, news, takes).await?;
    tracing::info!(project = %project, sequence = %id, shots, jobs = records.len(), "generated a storyboard");
    let jobs = records
        .iter()
        .map(|r| JobView::new(&state, &base, r))
        .collect();
    Ok((StatusCode::CREATED, Json(Generated { shots, jobs })).into_response())
}

/// A job for each shot of `sequence` to make: with a prompt, and with `only_empty`, no take
/// and no job under way; each at the shot's planned length (else its own), the sequence's
/// size and fit, its cast's pictures among its inputs.
async fn jobs_of(
    state: &AppState,
    project: &ProjectId,
    sequence: &Sequence,
    model: Option<String>,
    only_empty: bool,
) -> Result<Vec<(usize, NewJob)>, ApiError> {
    let (width, height) = studio_core::video_size::parse(&sequence.size).unwrap_or((1280, 720));
    let under_way: HashSet<String> = state
        .jobs
        .list(project)
        .iter()
        .filter(|r| r.status.is_active())
        .flat_map(|r| r.shot.iter().chain(r.shots.iter().map(|part| &part.link)))
        .filter(|link| link.sequence == sequence.id)
        .map(|link| link.shot.clone())
        .collect();
    let members = cast::list(state.storage().as_ref(), &project.folder()).await?;
    let mut news = Vec::new();
    for (at, shot) in sequence.shots.iter().enumerate() {
        let Some(prompt) = shot.prompt.as_deref().and_then(|p| checked_prompt(p).ok()) else {
            continue;
        };
        if only_empty && (!shot.takes.is_empty() || under_way.contains(&shot.id)) {
            continue;
        }
        let length = shot
            .planned_frames
            .unwrap_or(shot.out_frame - shot.in_frame);
        let seconds = frames::seconds(length, sequence.fps)
            .round()
            .clamp(1.0, 20.0) as u32;
        let new = NewJob {
            project_id: project.to_string(),
            prompt,
            model: model.clone(),
            spec: VideoSpec {
                width,
                height,
                fps: sequence.fps,
                seconds,
            },
            inputs: Vec::new(),
            fit: sequence.fit,
            seed: None,
            shot: Some(ShotLink {
                sequence: sequence.id.clone(),
                shot: shot.id.clone(),
            }),
            shots: Vec::new(),
        };
        let new = with_members(state, new, &members).map_err(|e| match e {
            ApiError::Unprocessable(why) => {
                ApiError::Unprocessable(format!("Shot {} (\"{}\"): {why}", at + 1, shot.label))
            }
            e => e,
        })?;
        news.push((at, new));
    }
    Ok(news)
}
