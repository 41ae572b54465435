//! The reviewer's side of a link: /api/review/{token} shows the shared videos with their
//! comments and decisions, and takes new ones. The token in the path is the only credential:
//! it opens its own share and nothing else (every other route asks for the bearer token), and
//! a revoked or expired one is 404 at once.

use std::collections::HashSet;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::assets::poster_url;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, JsonBody, PublicBase};
use super::shares::split;
use super::text_fields::{one_line, text_field};
use super::AppState;
use crate::project::ProjectFolder;
use crate::project_events::Change;
use crate::reviews::{self, Added, Note, NoteError, ReviewComment, ReviewDecision, Share, Verdict};

/// A reviewer's name: 1 to 80 characters.
const NAME_MAX: usize = 80;
/// A comment: 1 to 2,000 characters.
const TEXT_MAX: usize = 2000;
/// The latest moment a comment may point at (a day, far beyond any clip).
const AT_MAX: f64 = 86_400.0;

/// One shared video with what reviewers said of it.
#[derive(Serialize, ToSchema)]
pub struct ReviewVideo {
    file_name: String,
    /// What the video shows, from its metadata: its prompt (an exported cut's, its
    /// sequence's name); `null` when it has none.
    title: Option<String>,
    public_url: String,
    poster_url: String,
    comments: Vec<ReviewComment>,
    decisions: Vec<ReviewDecision>,
}

/// What a review link shows.
#[derive(Serialize, ToSchema)]
pub struct Review {
    /// The link's title, shown as the page's heading (`null` when it was given none).
    title: Option<String>,
    videos: Vec<ReviewVideo>,
    expires_at: String,
    /// Whether the link takes comments.
    comments_enabled: bool,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewComment {
    /// The shared video's file name.
    video: String,
    /// The player's time, in seconds.
    #[schema(minimum = 0, maximum = 86400)]
    at_seconds: f64,
    /// 1 to 80 characters, on one line, with no text-direction controls.
    #[schema(
        min_length = 1,
        max_length = 80,
        pattern = "^[^\\x00-\\x1F\\x7F-\\x9F\\u061C\\u200E\\u200F\\u2028-\\u202E\\u2066-\\u2069]*$"
    )]
    name: String,
    /// 1 to 2,000 characters.
    #[schema(min_length = 1, max_length = 2000)]
    text: String,
    /// Optional: an id the page made for this post (16 to 64 letters, digits or `_`). A post
    /// repeated with the same id (its answer was lost) keeps nothing new and answers 200 with
    /// the note the first one kept.
    #[schema(min_length = 16, max_length = 64, pattern = "^[0-9A-Za-z_]{16,64}$")]
    #[serde(default)]
    client_id: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewDecision {
    video: String,
    decision: Verdict,
    /// 1 to 80 characters, on one line, with no text-direction controls.
    #[schema(
        min_length = 1,
        max_length = 80,
        pattern = "^[^\\x00-\\x1F\\x7F-\\x9F\\u061C\\u200E\\u200F\\u2028-\\u202E\\u2066-\\u2069]*$"
    )]
    name: String,
    /// Optional: an id the page made for this post (16 to 64 letters, digits or `_`). A post
    /// repeated with the same id (its answer was lost) keeps nothing new and answers 200 with
    /// the note the first one kept.
    #[schema(min_length = 16, max_length = 64, pattern = "^[0-9A-Za-z_]{16,64}$")]
    #[serde(default)]
    client_id: Option<String>,
}

/// The id of a new note: carrying the post's client id when it has a valid one (422 otherwise).
fn new_note_id(client: Option<&str>) -> Result<String, ApiError> {
    match client {
        Some(client) if !reviews::is_client_id(client) => Err(ApiError::Unprocessable(
            "client_id must be 16 to 64 letters, digits or _".into(),
        )),
        client => Ok(reviews::note_id(client)),
    }
}

fn gone() -> ApiError {
    ApiError::NotFound(
        "This review link is not valid: it was revoked, has expired, or never existed".into(),
    )
}

/// The live share the token opens, or 404.
async fn opened(state: &AppState, token: &str) -> Result<Share, ApiError> {
    reviews::open(state.storage().as_ref(), token)
        .await?
        .ok_or_else(gone)
}

/// A reviewer's name: `one_line`'s rule, since it is shown beside what the reviewer said (a
/// line break would forge a line under it).
fn name_field(value: &str) -> Result<String, ApiError> {
    one_line("name", value, NAME_MAX)
}

/// The prompt in the metadata of the library video `name` (remembered as the library's
/// listings remember it), trimmed; `None` when it has no metadata or no prompt.
async fn prompt_of(
    state: &AppState,
    folder: &ProjectFolder,
    name: &str,
) -> Result<Option<String>, ApiError> {
    let Some(stem) = name.strip_suffix(".mp4") else {
        return Ok(None);
    };
    let storage = state.storage();
    let Some(metadata) = storage.head(&folder.companion(stem, "json")).await? else {
        return Ok(None);
    };
    let summary = state
        .prompts()
        .one(storage.as_ref(), &folder.library(), &metadata)
        .await;
    Ok(summary
        .prompt
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty()))
}

/// The video, when the share holds it (404 otherwise).
fn shared(share: &Share, video: &str) -> Result<String, ApiError> {
    share
        .videos
        .iter()
        .find(|v| *v == video)
        .cloned()
        .ok_or_else(|| ApiError::NotFound("That video is not part of this review".into()))
}

/// Keeps `note` and tells the project; a repeat of a post already kept answers that one's note.
async fn keep(state: &AppState, share: &Share, note: Note) -> Result<Added, ApiError> {
    match reviews::add(state.storage().as_ref(), state.database(), share, &note).await {
        Ok(Added::Kept) => {}
        Ok(repeat @ Added::Repeat(_)) => return Ok(repeat),
        Err(NoteError::TooMany { retry_after }) => {
            return Err(ApiError::TooManyRequests {
                message: NoteError::TooMany { retry_after }.to_string(),
                retry_after,
            })
        }
        Err(NoteError::Full) => return Err(ApiError::Conflict(NoteError::Full.to_string())),
        Err(NoteError::Storage(e)) => return Err(e.into()),
    }
    state.project_events().publish(
        &share.project,
        Change::Review {
            share_id: share.id.clone(),
            note,
        },
    );
    Ok(Added::Kept)
}

/// A post's answer: 201 with the note kept, or 200 with the one a repeat found (409 when that
/// one is of another kind, its client id used by another post).
fn answered<T: Serialize>(
    added: Added,
    kept: T,
    of_kind: impl FnOnce(Note) -> Option<T>,
) -> Result<(StatusCode, Json<T>), ApiError> {
    match added {
        Added::Kept => Ok((StatusCode::CREATED, Json(kept))),
        Added::Repeat(first) => of_kind(first)
            .map(|first| (StatusCode::OK, Json(first)))
            .ok_or_else(|| ApiError::Conflict("client_id was used by another post".into())),
    }
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/review/{token}",
    tag = "reviews",
    security(()),
    params(("token" = String, Path, description = "The token of a review link")),
    responses(
        (status = 200, description = "The shared videos with their comments and decisions", body = Review),
        (status = 404, description = "Revoked, expired or unknown", body = ErrorBody),
    ),
)]
pub async fn show(
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(token): ApiPath<String>,
) -> Result<Json<Review>, ApiError> {
    let share = opened(&state, &token).await?;
    let storage = state.storage();
    let (comments, decisions) = split(reviews::notes(storage.as_ref(), &share.id).await?);
    let folder = ProjectFolder::of(&share.project);
    let mut videos = Vec::new();
    for name in &share.videos {
        let key = folder.file(name);
        // A video deleted from the library since is no longer shown.
        if storage.head(&key).await?.is_none() {
            continue;
        }
        videos.push(ReviewVideo {
            file_name: name.clone(),
            title: prompt_of(&state, &folder, name).await?,
            public_url: base.url(&state, &key),
            poster_url: poster_url(&state, &base, &HashSet::new(), &key),
            comments: comments
                .iter()
                .filter(|c| c.video == *name)
                .cloned()
                .collect(),
            decisions: decisions
                .iter()
                .filter(|d| d.video == *name)
                .cloned()
                .collect(),
        });
    }
    Ok(Json(Review {
        title: share.title,
        videos,
        expires_at: share.expires_at,
        comments_enabled: share.comments,
    }))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/review/{token}/videos/{file_name}/credentials",
    tag = "reviews",
    security(()),
    params(
        ("token" = String, Path, description = "The token of a review link"),
        ("file_name" = String, Path, description = "A shared video's file name", pattern = r"^[A-Za-z0-9._:-]{1,196}\.mp4$"),
    ),
    responses(
        (status = 200, description = "The shared video's Content Credentials, as the studio's Info dialog reads them", body = crate::credentials::Report),
        (status = 404, description = "Revoked, expired or unknown link, or a video it does not share (or no longer in the library)", body = ErrorBody),
    ),
)]
pub async fn credentials(
    State(state): State<AppState>,
    ApiPath((token, name)): ApiPath<(String, String)>,
) -> Result<Json<crate::credentials::Report>, ApiError> {
    let share = opened(&state, &token).await?;
    let not_shared =
        || ApiError::NotFound(format!("{name} is not among the videos this link shares"));
    if !share.videos.contains(&name) {
        return Err(not_shared());
    }
    let key = ProjectFolder::of(&share.project).file(&name);
    let video = state.storage().head(&key).await?.ok_or_else(not_shared)?;
    Ok(Json(
        super::assets::read_credentials(&state, key, video.size_bytes).await?,
    ))
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/review/{token}/comments",
    tag = "reviews",
    security(()),
    params(("token" = String, Path)),
    request_body = NewComment,
    responses(
        (status = 201, description = "The comment, kept", body = ReviewComment),
        (status = 200, description = "A repeat of a post already kept (the same client_id): the comment it kept", body = ReviewComment),
        (status = 403, description = "This link takes no comments", body = ErrorBody),
        (status = 404, description = "Revoked, expired or unknown link, or a video it does not share", body = ErrorBody),
        (status = 422, description = "An empty or oversized name or text, a name on more than one line or with text-direction controls, a bad time, or a client_id that is not 16 to 64 letters, digits or _", body = ErrorBody),
        (status = 409, description = "The link has taken its 2,000 comments and decisions, or the client_id was used by a post of the other kind", body = ErrorBody),
        (status = 429, description = "60 comments and decisions in the last minute", body = ErrorBody),
    ),
)]
pub async fn comment(
    State(state): State<AppState>,
    ApiPath(token): ApiPath<String>,
    JsonBody(body): JsonBody<NewComment>,
) -> Result<(StatusCode, Json<ReviewComment>), ApiError> {
    let share = opened(&state, &token).await?;
    if !share.comments {
        return Err(ApiError::Forbidden(
            "This review link takes no comments".into(),
        ));
    }
    let name = name_field(&body.name)?;
    let text = text_field("text", &body.text, TEXT_MAX)?;
    if !body.at_seconds.is_finite() || !(0.0..=AT_MAX).contains(&body.at_seconds) {
        return Err(ApiError::Unprocessable(
            "at_seconds must be a time in the video, 0 or more".into(),
        ));
    }
    let comment = ReviewComment {
        id: new_note_id(body.client_id.as_deref())?,
        video: shared(&share, &body.video)?,
        at_seconds: body.at_seconds,
        name,
        text,
        created_at: reviews::timestamp(),
    };
    let added = keep(&state, &share, Note::Comment(comment.clone())).await?;
    answered(added, comment, |note| match note {
        Note::Comment(first) => Some(first),
        Note::Decision(_) => None,
    })
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/review/{token}/decisions",
    tag = "reviews",
    security(()),
    params(("token" = String, Path)),
    request_body = NewDecision,
    responses(
        (status = 201, description = "The decision, kept", body = ReviewDecision),
        (status = 200, description = "A repeat of a post already kept (the same client_id): the decision it kept", body = ReviewDecision),
        (status = 404, description = "Revoked, expired or unknown link, or a video it does not share", body = ErrorBody),
        (status = 422, description = "An empty or oversized name, a name on more than one line or with text-direction controls, an unknown decision, or a client_id that is not 16 to 64 letters, digits or _", body = ErrorBody),
        (status = 409, description = "The link has taken its 2,000 comments and decisions, or the client_id was used by a post of the other kind", body = ErrorBody),
        (status = 429, description = "60 comments and decisions in the last minute", body = ErrorBody),
    ),
)]
pub async fn decide(
    State(state): State<AppState>,
    ApiPath(token): ApiPath<String>,
    JsonBody(body): JsonBody<NewDecision>,
) -> Result<(StatusCode, Json<ReviewDecision>), ApiError> {
    let share = opened(&state, &token).await?;
    let decision = ReviewDecision {
        id: new_note_id(body.client_id.as_deref())?,
        name: name_field(&body.name)?,
        video: shared(&share, &body.video)?,
        decision: body.decision,
        created_at: reviews::timestamp(),
    };
    let added = keep(&state, &share, Note::Decision(decision.clone())).await?;
    answered(added, decision, |note| match note {
        Note::Decision(first) => Some(first),
        Note::Comment(_) => None,
    })
}
