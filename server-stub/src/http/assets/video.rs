//! One saved video's routes: read (as the list shows it), picked (starred, approved,
//! rejected) and removed with its metadata, poster and pick.

use super::*;
use crate::project::ProjectId;

/// A change of a video's pick: each field left out stays; `decision: null` clears it.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PickChange {
    #[serde(default)]
    favourite: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Decision>)]
    decision: Option<Option<Decision>>,
}

/// A field that is present, even as null: `Some(None)`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

#[utoipa::path(
    delete,
    context_path = crate::http::API,
    path = "/projects/{project_id}/assets/{file_name}",
    tag = "assets",
    params(
        ("project_id" = String, Path),
        ("file_name" = String, Path, description = "The last segment of the video's key", pattern = r"^[A-Za-z0-9._:-]{1,196}\.mp4$"),
    ),
    responses(
        (status = 204, description = "The video, its .json metadata and its .jpg poster are removed"),
        (status = 404, description = "No such video", body = ErrorBody),
    ),
)]
pub async fn remove(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath((project, name)): ApiPath<(ProjectId, String)>,
) -> Result<StatusCode, ApiError> {
    let Stored {
        folder, stem, key, ..
    } = stored(&state, &project, &name).await?;
    let storage = state.storage();
    for companion in ["json", "jpg"] {
        storage.delete(&folder.companion(&stem, companion)).await?;
    }
    storage.delete(&key).await?;
    state.jobs.unsaved(&key).await;
    picks::forget(storage.as_ref(), &folder, &name).await?;
    tracing::info!(key = %key, "removed from the library");
    state.project_events().publish(
        &project,
        Change::Library {
            file_name: name,
            saved: false,
        },
    );
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    patch,
    context_path = crate::http::API,
    path = "/projects/{project_id}/assets/{file_name}",
    tag = "assets",
    params(
        ("project_id" = String, Path),
        ("file_name" = String, Path, description = "The last segment of the video's key", pattern = r"^[A-Za-z0-9._:-]{1,196}\.mp4$"),
    ),
    request_body = PickChange,
    responses(
        (status = 200, description = "The video as the list shows it, with its pick", body = Asset),
        (status = 400, description = "Malformed JSON or project id", body = ErrorBody),
        (status = 404, description = "No such video", body = ErrorBody),
        (status = 422, description = "Neither favourite nor decision, or a value of the wrong kind", body = ErrorBody),
    ),
)]
pub async fn pick(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath((project, name)): ApiPath<(ProjectId, String)>,
    JsonBody(body): JsonBody<PickChange>,
) -> Result<Json<Asset>, ApiError> {
    let Stored {
        folder,
        stem,
        key,
        video,
    } = stored(&state, &project, &name).await?;
    let storage = state.storage();
    if body.favourite.is_none() && body.decision.is_none() {
        return Err(ApiError::Unprocessable(
            "give favourite (true or false) or decision (approved, rejected or null)".into(),
        ));
    }
    let change = picks::Change {
        favourite: body.favourite,
        decision: body.decision,
    };
    let (pick, picked_at) = picks::change_at(storage.as_ref(), &folder, &name, change).await?;
    tracing::info!(key = %key, favourite = pick.favourite, decision = ?pick.decision, "picked");
    state.project_events().publish(
        &project,
        Change::Pick {
            file_name: name.clone(),
            pick,
            picked_at,
        },
    );
    let shown = shown(&state, &base, &folder, &stem, video, pick).await?;
    Ok(Json(Asset {
        picked_at: Some(picked_at),
        ..shown
    }))
}

#[utoipa::path(
    get,
    context_path = crate::http::API,
    path = "/projects/{project_id}/assets/{file_name}",
    tag = "assets",
    params(
        ("project_id" = String, Path),
        ("file_name" = String, Path, description = "The last segment of the video's key", pattern = r"^[A-Za-z0-9._:-]{1,196}\.mp4$"),
    ),
    responses(
        (status = 200, description = "The video as the list shows it", body = Asset),
        (status = 400, description = "Malformed project id", body = ErrorBody),
        (status = 404, description = "No such video", body = ErrorBody),
    ),
)]
pub async fn one(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath((project, name)): ApiPath<(ProjectId, String)>,
) -> Result<Json<Asset>, ApiError> {
    let Stored {
        folder,
        stem,
        video,
        ..
    } = stored(&state, &project, &name).await?;
    let pick = picks::of(state.storage().as_ref(), &folder, &name).await?;
    Ok(Json(
        shown(&state, &base, &folder, &stem, video, pick).await?,
    ))
}

/// One saved video as the list shows it, its prompt and poster read for it alone.
async fn shown(
    state: &AppState,
    base: &PublicBase,
    folder: &ProjectFolder,
    stem: &str,
    video: Object,
    pick: Pick,
) -> Result<Asset, ApiError> {
    let storage = state.storage();
    let metadata = folder.companion(stem, "json");
    let summary = match storage.head(&metadata).await? {
        Some(object) => {
            let folder = folder.library();
            state
                .prompts()
                .one(storage.as_ref(), &folder, &object)
                .await
        }
        None => Default::default(),
    };
    let poster = poster_key(&video.key);
    let posters: HashSet<&str> = match &poster {
        Some(poster) if storage.head(poster).await?.is_some() => HashSet::from([poster.as_str()]),
        _ => HashSet::new(),
    };
    Ok(asset(state, base, video, summary, &posters, pick))
}

/// A saved video named in a path: its project's folder, its stem and key, and the object.
pub(super) struct Stored {
    pub(super) folder: ProjectFolder,
    pub(super) stem: String,
    pub(super) key: String,
    pub(super) video: Object,
}

/// The saved video `name` of `project`, or 404.
pub(super) async fn stored(
    state: &AppState,
    project: &ProjectId,
    name: &str,
) -> Result<Stored, ApiError> {
    let missing = || ApiError::NotFound("No such video".into());
    let stem = name
        .strip_suffix(".mp4")
        .filter(|_| valid_file_name(name))
        .ok_or_else(missing)?;
    let folder = project.folder();
    let key = folder.file(name);
    let video = state.storage().head(&key).await?.ok_or_else(missing)?;
    Ok(Stored {
        stem: stem.to_owned(),
        folder,
        key,
        video,
    })
}
