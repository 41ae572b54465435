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

use crate::state::{with_faults, Fakes, Gate, Settings};

/// The byte at `offset` of every fake video (a 251-byte cycle, so truncation and reordering
/// show up).
pub fn byte_at(offset: u64) -> u8 {
    (offset % 251) as u8
}

/// A streamed body of `len` bytes of the cycle: past its first chunk only once `fakes`' content
/// gate lets it; counted as `content.completed` or, when its reader went away first,
/// `content.dropped`.
pub fn video_body(fakes: &Fakes, len: u64) -> Body {
    let chunk: Bytes = (0..251 * 256)
        .map(|i| byte_at(i as u64))
        .collect::<Vec<u8>>()
        .into();
    let step = chunk.len() as u64;
    let chunks = len.div_ceil(step);
    let gate = fakes.clone();
    let counted = Counted {
        fakes: fakes.clone(),
        finished: false,
    };
    let stream = futures_util::stream::unfold((0, counted), move |(i, mut counted)| {
        let (chunk, gate) = (chunk.clone(), gate.clone());
        async move {
            if i == chunks {
                return None;
            }
            if i == 1 {
                gate.pass(Gate::Content).await;
            }
            if i + 1 == chunks {
                // The reader has every byte with this chunk (the server may never ask for more).
                counted.complete();
            }
            let take = (len - i * step).min(step) as usize;
            Some((
                Ok::<Bytes, std::io::Error>(chunk.slice(..take)),
                (i + 1, counted),
            ))
        }
    });
    Body::from_stream(stream)
}

/// Counts a download as it ends.
struct Counted {
    fakes: Fakes,
    finished: bool,
}

impl Counted {
    fn complete(&mut self) {
        self.finished = true;
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.fakes.counted(if self.finished {
            "content.completed"
        } else {
            "content.dropped"
        });
    }
}

/// A finished video: the settings' real video when they hold one, else `content_bytes` of the
/// byte cycle.
pub fn video_response(fakes: &Fakes, settings: &Settings) -> Response {
    let (len, body) = match &settings.video {
        Some(video) => {
            fakes.counted("content.completed");
            (video.len() as u64, Body::from(video.clone()))
        }
        None => (
            settings.content_bytes,
            video_body(fakes, settings.content_bytes),
        ),
    };
    (
        [
            (header::CONTENT_TYPE, "video/mp4".to_owned()),
            (header::CONTENT_LENGTH, len.to_string()),
        ],
        body,
    )
        .into_response()
}

fn unix_ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A download address for job `id`'s video on this server, valid for `ttl` from now.
pub fn signed_url(headers: &HeaderMap, id: &str, ttl: Duration) -> String {
    signed(headers, &format!("{id}.mp4"), ttl)
}

/// A download address for job `id`'s last frame (a PNG), valid for `ttl` from now.
pub fn signed_frame_url(headers: &HeaderMap, id: &str, ttl: Duration) -> String {
    signed(headers, &format!("{id}.png"), ttl)
}

fn signed(headers: &HeaderMap, file: &str, ttl: Duration) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!(
        "http://{host}/files/{file}?expires={}",
        unix_ms(SystemTime::now() + ttl)
    )
}

/// Every fake last frame: 1280x720, a horizontal ramp of red over a constant green and blue.
pub const FRAME_SIZE: (u32, u32) = (1280, 720);

fn frame_png() -> Vec<u8> {
    let (width, height) = FRAME_SIZE;
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgb);
    let row: Vec<u8> = (0..width)
        .flat_map(|x| [(x * 255 / width) as u8, 120, 40])
        .collect();
    let pixels = row.repeat(height as usize);
    let mut writer = encoder.write_header().expect("a PNG header in memory");
    writer
        .write_image_data(&pixels)
        .expect("PNG pixels in memory");
    writer.finish().expect("a PNG in memory");
    png
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
    let (id, frame) = match (name.strip_suffix(".mp4"), name.strip_suffix(".png")) {
        (Some(id), _) => (id, false),
        (None, Some(id)) => (id, true),
        (None, None) => return (StatusCode::NOT_FOUND, "NoSuchKey").into_response(),
    };
    match fakes.job(id) {
        None => (StatusCode::NOT_FOUND, "NoSuchKey").into_response(),
        Some(_) if unix_ms(SystemTime::now()) > signed.expires => {
            (StatusCode::FORBIDDEN, "Request has expired").into_response()
        }
        Some(_) if frame => ([(header::CONTENT_TYPE, "image/png")], frame_png()).into_response(),
        Some(_) => video_response(&fakes, &settings),
    }
}

pub fn router(fakes: &Fakes) -> Router<Fakes> {
    with_faults(
        Router::new().route("/files/{name}", get(file)),
        fakes,
        "content",
    )
}
