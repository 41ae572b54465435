//! Downloads a browser makes itself: POST /api/projects/{projectId}/downloads (with the
//! bearer) names the videos and answers a ticket; GET /api/downloads/{ticket} (without it) is
//! their ZIP, which the browser saves to disk as it arrives, with its own progress, instead of
//! the page holding the whole archive in memory first. A ticket is the project, the names and
//! the moment it expires, signed with a key derived from the server's token (so any replica
//! sharing the token honours it); it is good for five minutes and for nothing else.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use subtle::ConstantTimeEq;
use utoipa::ToSchema;

use super::archive::{archive_of, chosen_names, entries_of};
use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, JsonBody};
use super::AppState;
use crate::project::ProjectId;

/// How long a ticket is good for.
const LIFETIME: Duration = Duration::from_secs(5 * 60);

/// The videos to download.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DownloadRequest {
    /// File names of saved videos (1 to 100).
    #[schema(min_items = 1, max_items = 100)]
    names: Vec<String>,
}

/// A download the browser can make without the bearer.
#[derive(Serialize, ToSchema)]
pub struct DownloadTicket {
    /// GET /api/downloads/{ticket} is the ZIP.
    ticket: String,
    /// Seconds the ticket is good for.
    expires_in_s: u64,
}

fn seconds_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The signature of `payload` under a key derived from the server's token.
fn signature(token: &str, payload: &[u8]) -> Vec<u8> {
    let mut key = Hmac::<Sha256>::new_from_slice(token.as_bytes()).expect("any key length");
    key.update(b"studio download tickets");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key.finalize().into_bytes()).expect("any key");
    mac.update(payload);
    mac.finalize().into_bytes().to_vec()
}

/// A ticket for `names` of `project`, good until `expires` (Unix seconds).
fn ticket(token: &str, project: &str, names: &[String], expires: u64) -> String {
    let payload = format!("{expires}\n{project}\n{}", names.join(","));
    format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(&payload),
        URL_SAFE_NO_PAD.encode(signature(token, payload.as_bytes()))
    )
}

/// What a ticket allows: the project and the names, if it is genuine and not expired at `now`.
fn read_ticket(token: &str, ticket: &str, now: u64) -> Option<(String, Vec<String>)> {
    let (payload, signed) = ticket.split_once('.')?;
    let payload = URL_SAFE_NO_PAD.decode(payload).ok()?;
    let signed = URL_SAFE_NO_PAD.decode(signed).ok()?;
    if !bool::from(signature(token, &payload).ct_eq(&signed)) {
        return None;
    }
    let payload = String::from_utf8(payload).ok()?;
    let mut parts = payload.splitn(3, '\n');
    let expires: u64 = parts.next()?.parse().ok()?;
    let project = parts.next()?.to_owned();
    let names = parts.next()?.split(',').map(str::to_owned).collect();
    (now < expires).then_some((project, names))
}

#[utoipa::path(
    post,
    context_path = super::API,
    path = "/projects/{project_id}/downloads",
    tag = "assets",
    params(("project_id" = String, Path)),
    request_body = DownloadRequest,
    responses(
        (status = 201, description = "A ticket for GET /api/downloads/{ticket}, good for five minutes", body = DownloadTicket),
        (status = 400, description = "Invalid project id or malformed JSON", body = ErrorBody),
        (status = 404, description = "A named video is not in the library", body = ErrorBody),
        (status = 422, description = "No names, more than 100, or more than 4 GiB together", body = ErrorBody),
    ),
)]
pub async fn create(
    _: Authorized,
    State(state): State<AppState>,
    ApiPath(project): ApiPath<ProjectId>,
    JsonBody(request): JsonBody<DownloadRequest>,
) -> Result<(StatusCode, Json<DownloadTicket>), ApiError> {
    let names = chosen_names(request.names.iter().map(String::as_str))?;
    // Refused now rather than after the browser's download has begun.
    let entries = entries_of(&state, &project, &names).await?;
    if crate::zip::length(&entries) > crate::zip::MAX_BYTES {
        return Err(ApiError::Unprocessable(
            "the chosen videos come to more than 4 GiB: download fewer at once".into(),
        ));
    }
    let expires = seconds_now() + LIFETIME.as_secs();
    Ok((
        StatusCode::CREATED,
        Json(DownloadTicket {
            ticket: ticket(&state.token, &project, &names, expires),
            expires_in_s: LIFETIME.as_secs(),
        }),
    ))
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/downloads/{ticket}",
    tag = "assets",
    params(("ticket" = String, Path, description = "From POST /projects/{project_id}/downloads")),
    security(()),
    responses(
        (status = 200, description = "The ZIP of the ticket's videos and their .json metadata, as GET /projects/{project_id}/assets.zip answers it", content_type = "application/zip", body = Vec<u8>),
        (status = 404, description = "The ticket is not genuine, or has expired, or a video has left the library since", body = ErrorBody),
        (status = 422, description = "More than 4 GiB together", body = ErrorBody),
    ),
)]
pub async fn fetch(
    State(state): State<AppState>,
    ApiPath(ticket): ApiPath<String>,
) -> Result<Response, ApiError> {
    let (project, names) = read_ticket(&state.token, &ticket, seconds_now())
        .and_then(|(project, names)| Some((ProjectId::parse(&project).ok()?, names)))
        .ok_or_else(|| {
            ApiError::NotFound("This download link is not valid or has expired".into())
        })?;
    archive_of(&state, &project, &names).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_is_good_until_it_expires_and_only_as_signed() {
        let names = vec!["a.mp4".to_owned(), "b:c.mp4".to_owned()];
        let made = ticket("t0k", "reel", &names, 1_000);
        assert_eq!(
            read_ticket("t0k", &made, 999),
            Some(("reel".to_owned(), names.clone()))
        );
        assert_eq!(read_ticket("t0k", &made, 1_000), None, "expired");
        assert_eq!(
            read_ticket("other", &made, 0),
            None,
            "another server's token"
        );
        let (payload, signed) = made.split_once('.').unwrap();
        let forged = URL_SAFE_NO_PAD.encode("99999999999\nreel\na.mp4,b:c.mp4");
        assert_eq!(read_ticket("t0k", &format!("{forged}.{signed}"), 0), None);
        assert_eq!(read_ticket("t0k", payload, 0), None);
        assert_eq!(read_ticket("t0k", "..", 0), None);
    }
}
