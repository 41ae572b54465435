//! The project's library: GET /api/projects/{projectId}/assets lists the saved videos, newest
//! first, whole or a page at a time, filtered by what was picked; one video's own routes (read,
//! pick, delete) are in `video.rs`.

use std::collections::HashSet;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, ApiQuery, JsonBody, PublicBase};
use super::AppState;
use crate::picks::{self, Decision, Pick};
use crate::poster::poster_key;
use crate::project::{ProjectFolder, ProjectId};
use crate::project_events::Change;
use crate::prompts::Summary;
use crate::storage::{file_name, Object};

mod credentials;
mod video;

pub use credentials::*;
pub use video::*;

/// The most videos one page holds.
const PAGE_MAX: usize = 1000;
/// How long one listing may spend reading prompts it does not know yet.
const PROMPT_BUDGET: Duration = Duration::from_millis(50);

/// A saved video.
#[derive(Serialize, ToSchema)]
pub struct Asset {
    /// `projects/{projectId}/{soraJobId}.mp4`; the last segment is the file name.
    key: String,
    size_bytes: u64,
    /// RFC 3339.
    last_modified: String,
    /// The metadata is at the same address with .mp4 replaced by .json.
    public_url: String,
    /// The prompt from the video's `.json` metadata, when it has one (and it has been read:
    /// a first listing of many videos reads for at most 50 ms, later listings have the rest).
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<String>,
    /// The library file name or job id this video extends or remixes, from its metadata (read
    /// as `prompt` is).
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<String>,
    /// A JPEG of the first frame, about 480 pixels wide (made on first request when the
    /// video has none yet).
    poster_url: String,
    /// Starred in the library.
    favourite: bool,
    /// `approved`, `rejected`, or null when undecided.
    decision: Option<Decision>,
    /// In a PATCH's answer: when the pick it tells was read back, in Unix milliseconds (the
    /// `pick` events carry it too), so a client keeps the newest of the picks it hears of.
    #[serde(skip_serializing_if = "Option::is_none")]
    picked_at: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct Assets {
    videos: Vec<Asset>,
    /// Every video in the project, on whatever page.
    total: usize,
    /// Where the next page starts (pass it as `cursor`); absent on the last page, so the
    /// whole list is `{videos}` as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

/// A page of the list: without `limit`, every video.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Page {
    /// At most this many videos, 1 to 1000.
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<usize>,
    /// The `next_cursor` of the page before.
    #[param(pattern = r"^[0-9]{1,19}~[A-Za-z0-9._:-]{1,200}$")]
    cursor: Option<String>,
    /// Only the starred videos (`true`) or only the others (`false`).
    favourite: Option<bool>,
    /// Only the videos with this decision.
    decision: Option<Decision>,
}

/// Where a page starts: after the video modified at `.0` whose file name is `.1`.
fn parse_cursor(cursor: &str) -> Option<(u64, &str)> {
    let (modified, name) = cursor.split_once('~')?;
    let plain = !modified.is_empty() && modified.bytes().all(|b| b.is_ascii_digit());
    (plain && valid_file_name(name)).then_some((modified.parse().ok()?, name))
}

/// A library file name as the API takes it: 1 to 200 of `A-Z a-z 0-9 . _ : -`.
pub(super) fn valid_file_name(name: &str) -> bool {
    (1..=200).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/assets",
    tag = "assets",
    params(("project_id" = String, Path, description = "1 to 100 characters, not blank, no control characters"), Page),
    responses(
        (status = 200, description = "The project's saved videos, newest first (a page of them with `limit`)", body = Assets),
        (status = 400, description = "Invalid project id, limit or cursor", body = ErrorBody),
    ),
)]
pub async fn list(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
    ApiQuery(page): ApiQuery<Page>,
) -> Result<Json<Assets>, ApiError> {
    if page.limit.is_some_and(|l| !(1..=PAGE_MAX).contains(&l)) {
        return Err(ApiError::BadRequest(format!(
            "limit must be 1 to {PAGE_MAX}"
        )));
    }
    let after = match page.cursor.as_deref() {
        Some(cursor) => Some(
            parse_cursor(cursor).ok_or_else(|| ApiError::BadRequest("invalid cursor".into()))?,
        ),
        None => None,
    };
    let folder = project.folder().library();
    let storage = state.storage();
    let listed = storage.list(&folder).await?;
    // The library is the folder's own files; `references/` below it is not. Everything below
    // borrows from the listing: only the page's videos are copied out of it.
    let own: Vec<&Object> = listed
        .iter()
        .filter(|o| !o.key[folder.len().min(o.key.len())..].contains('/'))
        .collect();
    let metadata: Vec<&Object> = own
        .iter()
        .filter(|o| o.key.ends_with(".json"))
        .copied()
        .collect();
    let prompts = state
        .prompts()
        .of(storage, &folder, &metadata, PROMPT_BUDGET)
        .await;
    let posters: HashSet<&str> = own
        .iter()
        .filter(|o| o.key.ends_with(".jpg"))
        .map(|o| o.key.as_str())
        .collect();
    let picks = picks::all(storage.as_ref(), &project.folder()).await?;
    let pick_of = |o: &Object| picks.get(file_name(&o.key)).copied().unwrap_or_default();
    // A video's pick is looked up only when the page filters by it.
    let filtered = page.favourite.is_some() || page.decision.is_some();
    let wanted = |pick: Pick| {
        page.favourite.is_none_or(|f| pick.favourite == f)
            && page.decision.is_none_or(|d| pick.decision == Some(d))
    };
    let mut objects: Vec<&Object> = own
        .into_iter()
        .filter(|&o| o.key.ends_with(".mp4") && (!filtered || wanted(pick_of(o))))
        .collect();
    // Newest first, then by file name: the keys left share the folder's prefix, so comparing
    // them whole orders them by name without finding each name on every comparison. A listing
    // kept in memory comes in this order already, and the sort only checks it.
    objects.sort_unstable_by(|a, b| a.newest_first(b));
    let total = objects.len();
    if let Some((modified, name)) = after {
        objects.retain(|o| {
            let at = u64::try_from(o.modified).unwrap_or(0);
            at < modified || (at == modified && file_name(&o.key) < name)
        });
    }
    let limit = page.limit.unwrap_or(usize::MAX);
    let next_cursor = (objects.len() > limit).then(|| {
        let last = objects[limit - 1];
        format!("{}~{}", last.modified, file_name(&last.key))
    });
    let videos = objects
        .into_iter()
        .take(limit)
        .map(|o| {
            let summary = o
                .key
                .strip_suffix(".mp4")
                .and_then(|stem| prompts.get(&format!("{stem}.json")))
                .cloned()
                .unwrap_or_default();
            asset(&state, &base, o.clone(), summary, &posters, pick_of(o))
        })
        .collect();
    Ok(Json(Assets {
        videos,
        total,
        next_cursor,
    }))
}

/// A video as the API shows it.
fn asset(
    state: &AppState,
    base: &PublicBase,
    video: Object,
    summary: Summary,
    posters: &HashSet<&str>,
    pick: Pick,
) -> Asset {
    Asset {
        last_modified: rfc3339(video.modified),
        poster_url: poster_url(state, base, posters, &video.key),
        prompt: summary.prompt,
        parent: summary.parent,
        public_url: base.url(state, &video.key),
        size_bytes: video.size_bytes,
        key: video.key,
        favourite: pick.favourite,
        decision: pick.decision,
        picked_at: None,
    }
}

/// A stored poster's public address; for a video without one, this server's own /media
/// address, which makes it on first request.
pub(super) fn poster_url(
    state: &AppState,
    base: &PublicBase,
    stored: &HashSet<&str>,
    video: &str,
) -> String {
    let key = poster_key(video).unwrap_or_default();
    if stored.contains(key.as_str()) {
        base.url(state, &key)
    } else {
        format!("{}/media/{key}", base.0)
    }
}

fn rfc3339(unix: i64) -> String {
    crate::clock::rfc3339_of_unix(unix).unwrap_or_default()
}
