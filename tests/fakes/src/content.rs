//! Finished videos: streamed, never held whole (any size costs the same memory), at URLs that
//! expire like signed URLs do.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use serde::Deserialize;

use crate::state::{with_faults, Fakes};

/// The byte at `offset` of every fake video (a 251-byte cycle, so truncation and reordering
/// show up).
pub fn byte_at(offset: u64) -> u8 {
    (offset % 251) as u8
}

/// A streamed body of `len` bytes of the cycle.
pub fn video_body(len: u64) -> Body {
    let chunk: Bytes = (0..251 * 256)
        .map(|i| byte_at(i as u64))
        .collect::<Vec<u8>>()
        .into();
    let step = chunk.len() as u64;
    let chunks = (0..len.div_ceil(step)).map(move |i| {
        let take = (len - i * step).min(step) as usize;
        Ok::<Bytes, std::io::Error>(chunk.slice(..take))
    });
    Body::from_stream(futures_util::stream::iter(chunks))
}

pub fn video_response(len: u64) -> Response {
    (
        [
            (header::CONTENT_TYPE, "video/mp4".to_owned()),
            (header::CONTENT_LENGTH, len.to_string()),
        ],
        video_body(len),
    )
        .into_response()
}

fn unix_ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A download address for job `id` on this server, valid for `ttl` from now.
pub fn signed_url(headers: &HeaderMap, id: &str, ttl: Duration) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!(
        "http://{host}/files/{id}.mp4?expires={}",
        unix_ms(SystemTime::now() + ttl)
    )
}

#[derive(Deserialize)]
struct Signed {
    expires: u64,
}

async fn file(
    State(fakes): State<Fakes>,
    Path(name): Path<String>,
    Query(signed): Query<Signed>,
) -> Response {
    fakes.counted("content");
    let settings = fakes.settings();
    let job = name.strip_suffix(".mp4").and_then(|id| fakes.job(id));
    match job {
        None => (StatusCode::NOT_FOUND, "NoSuchKey").into_response(),
        Some(_) if unix_ms(SystemTime::now()) > signed.expires => {
            (StatusCode::FORBIDDEN, "Request has expired").into_response()
        }
        Some(_) => video_response(settings.content_bytes),
    }
}

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    with_faults(
        Router::new().route("/files/{name}", get(file)),
        fakes,
        "content",
    )
}
