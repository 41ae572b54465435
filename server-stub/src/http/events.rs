//! GET /api/projects/{projectId}/events: the project's job changes as Server-Sent Events, so
//! a browser follows progress as it happens instead of every 20 s. Each job event is `job` (the
//! job as GET /jobs/sora/{id} answers it) or `removed`, with a numbered id; a client that
//! reconnects with `Last-Event-ID` gets what it missed, or every job again when that is too
//! old. `pick` (a video's favourite and decision) and `review` (a reviewer's comment or
//! decision) carry no id and are not replayed: what changed while a client was away shows at
//! its next load of the library or links. Comment
//! lines keep the connection alive through proxies; the stream starts with `retry`, the wait
//! before a client reconnects.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::broadcast::error::RecvError;

use super::auth::Authorized;
use super::error::{ApiError, ErrorBody};
use super::extract::{ApiPath, PublicBase};
use super::jobs::JobView;
use super::AppState;
use crate::jobs::events::{Change, Start};
use crate::jobs::record::JobRecord;
use crate::project::ProjectId;

/// A comment line this often keeps idle connections open.
const HEARTBEAT: Duration = Duration::from_secs(15);
/// Sent first as `retry`: how soon a client opens a stream that ended again (it waits twice
/// as long after each attempt that fails).
const RECONNECT: Duration = Duration::from_secs(1);

fn job_event(
    state: &AppState,
    base: &PublicBase,
    seq: u64,
    record: &JobRecord,
    removed: bool,
) -> Event {
    let event = Event::default()
        .id(seq.to_string())
        .event(if removed { "removed" } else { "job" });
    event
        .json_data(JobView::new(state, base, record))
        .unwrap_or_else(|_| Event::default().comment("unserialisable job"))
}

fn change_event(state: &AppState, base: &PublicBase, change: &Change) -> Event {
    job_event(state, base, change.seq, &change.record, change.removed)
}

#[utoipa::path(
    get,
    context_path = super::API,
    path = "/projects/{project_id}/events",
    tag = "jobs",
    params(
        ("project_id" = String, Path),
        ("Last-Event-ID" = Option<String>, Header, description = "The id of the last event seen, to resume after it"),
    ),
    responses(
        (status = 200, description = "Server-Sent Events: `job` (a job as GET /jobs/sora/{job_id} answers it) and `removed`, each with a numbered id; `pick` ({file_name, favourite, decision}) and `review` ({share_id, note}), without ids; heartbeats as comment lines; first a `retry` field, the wait before reconnecting", content_type = "text/event-stream", body = String),
        (status = 400, description = "Invalid project id", body = ErrorBody),
    ),
)]
pub async fn stream(
    _: Authorized,
    State(state): State<AppState>,
    base: PublicBase,
    ApiPath(project): ApiPath<ProjectId>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let last = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let (start, receiver) = state.jobs.subscribe(&project, last).await;
    let retry = Event::default().retry(RECONNECT);
    let first: Vec<Event> = match start {
        Start::Missed(changes) => changes
            .iter()
            .map(|c| change_event(&state, &base, c))
            .collect(),
        Start::Snapshot { seq } => {
            let mut jobs = state.jobs.list(&project);
            jobs.reverse();
            jobs.iter()
                .map(|r| job_event(&state, &base, seq, r, false))
                .collect()
        }
    };
    let closing = state.jobs.closing();
    let project = Arc::new(project);
    let live = stream::unfold(
        (receiver, state.clone(), base, project.clone()),
        |(mut receiver, state, base, project)| async move {
            loop {
                match receiver.recv().await {
                    Ok(change) if change.record.project_id == project.as_str() => {
                        let event = change_event(&state, &base, &change);
                        return Some((event, (receiver, state, base, project)));
                    }
                    Ok(_) => {}
                    // Too slow to keep up, or stopping: the client reconnects with its
                    // Last-Event-ID and is brought up to date.
                    Err(RecvError::Lagged(_) | RecvError::Closed) => return None,
                }
            }
        },
    );
    let others = stream::unfold(
        (state.project_events().subscribe(), project.clone()),
        |(mut receiver, project)| async move {
            loop {
                match receiver.recv().await {
                    Ok(change) if change.project == project.as_str() => {
                        let event = Event::default()
                            .event(&change.event)
                            .json_data(&change.data)
                            .unwrap_or_else(|_| Event::default().comment("unserialisable change"));
                        return Some((event, (receiver, project)));
                    }
                    Ok(_) => {}
                    Err(RecvError::Lagged(_) | RecvError::Closed) => return None,
                }
            }
        },
    );
    // Counted open for as long as the stream lives.
    let open = crate::metrics::get().stream_opened();
    // Job changes and the others, as they come; a stream that falls behind ends, and the
    // client reconnects.
    let events = stream::once(async { retry })
        .chain(stream::iter(first))
        .chain(stream::select(live, others))
        .map(move |event| {
            let _open = &open;
            Ok(event)
        })
        .take_until(closing);
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(HEARTBEAT)))
}
