//! One file of the media folder, answered as a static file server does: the whole file (200)
//! or one byte range (206, 416 when it cannot be met), HEAD, Last-Modified with a weak ETag,
//! and the conditional requests (304, 412, If-Range).
//!
//! An answer of up to [`AT_ONCE`] bytes is read with one positioned read and sent as one
//! buffer; a longer one is streamed in [`CHUNK`] reads. The reads run on the serving thread, as
//! nginx's do without `aio`: from the page cache a 1 MiB read takes tens of microseconds, less
//! than a trip through the blocking pool. tower-http's `ServeDir` read 256 KiB at a time, each
//! read a trip through that pool, and reached 0.6x of nginx's range reads; this measured about
//! 1.0x in turns and 0.85x in the bench's own run (docs/benchmarks.md): nginx's `sendfile`
//! still saves the copy into memory that a hyper body needs.

use std::fs::{File, Metadata};
use std::io;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::header::{
    ACCEPT_RANGES, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE,
    IF_NONE_MATCH, IF_RANGE, IF_UNMODIFIED_SINCE, LAST_MODIFIED, RANGE,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::{stream, StreamExt};
use rustix::buffer::spare_capacity;

use crate::storage::check_key;

/// Answers up to this size are read in one go, into one buffer.
const AT_ONCE: u64 = 4 << 20;
/// Longer answers are streamed in reads of this size.
const CHUNK: u64 = 1 << 20;

/// A file of the folder, opened, with what its headers say about it.
pub struct MediaFile {
    file: File,
    len: u64,
    /// Whole seconds since the epoch (what an HTTP date can say).
    modified: Option<u64>,
    content_type: HeaderValue,
}

impl MediaFile {
    /// Opens the file the request path names under `root`: `None` when the path is not a key
    /// of the folder (`..`, an empty segment, a character keys never have) or names no file.
    pub fn open(root: &Path, path: &str) -> Option<MediaFile> {
        let key = percent_encoding::percent_decode_str(path.trim_start_matches('/'))
            .decode_utf8()
            .ok()?;
        check_key(&key).ok()?;
        let content_type = mime_guess::from_path(key.as_ref()).first_raw().map_or(
            HeaderValue::from_static("application/octet-stream"),
            HeaderValue::from_static,
        );
        let full: PathBuf = root.join(key.as_ref());
        let file = File::open(full).ok()?;
        let meta = file.metadata().ok()?;
        meta.is_file().then(|| MediaFile {
            file,
            len: meta.len(),
            modified: seconds(&meta),
            content_type,
        })
    }

    /// The answer to a GET or HEAD with these headers.
    pub fn answer(self, method: &Method, headers: &HeaderMap) -> Response {
        let modified = self.modified.map(|s| httpdate::fmt_http_date(at(s)));
        let etag = modified
            .as_deref()
            .map(|date| format!("W/\"{}-{:x}\"", self.len, crate::engine::fnv1a(date)));
        let mut out = HeaderMap::new();
        out.insert(CONTENT_TYPE, self.content_type.clone());
        out.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
        for (name, value) in [(LAST_MODIFIED, &modified), (ETAG, &etag)] {
            if let Some(value) = value.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
                out.insert(name, value);
            }
        }
        if let Some(status) = self.precondition(headers, etag.as_deref()) {
            return (status, out).into_response();
        }
        let range = headers
            .get(RANGE)
            .filter(|_| still_valid(headers, modified.as_deref()))
            .and_then(|v| v.to_str().ok())
            .map(|v| one_range(v, self.len));
        let (status, extent) = match range {
            None => (StatusCode::OK, (self.len > 0).then(|| 0..=self.len - 1)),
            Some(Some(range)) => {
                let value = format!("bytes {}-{}/{}", range.start(), range.end(), self.len);
                out.insert(CONTENT_RANGE, HeaderValue::from_str(&value).expect("ascii"));
                (StatusCode::PARTIAL_CONTENT, Some(range))
            }
            Some(None) => {
                let value = format!("bytes */{}", self.len);
                out.insert(CONTENT_RANGE, HeaderValue::from_str(&value).expect("ascii"));
                return (StatusCode::RANGE_NOT_SATISFIABLE, out).into_response();
            }
        };
        let length = extent.as_ref().map_or(0, |r| r.end() - r.start() + 1);
        out.insert(CONTENT_LENGTH, HeaderValue::from(length));
        let body = match extent {
            Some(range) if method != Method::HEAD => self.body(range),
            _ => Ok(Body::empty()),
        };
        match body {
            Ok(body) => (status, out, body).into_response(),
            Err(e) => {
                tracing::error!(error = %e, "a media file could not be read");
                StatusCode::INTERNAL_SERVER_ERROR.into_response()
            }
        }
    }

    /// 304 or 412 when the request's conditions say so (RFC 9110, section 13.2.2).
    fn precondition(&self, headers: &HeaderMap, etag: Option<&str>) -> Option<StatusCode> {
        let date = |name| {
            headers
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .and_then(|v| httpdate::parse_http_date(v).ok())
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_secs())
        };
        if let Some(since) = date(IF_UNMODIFIED_SINCE) {
            if self.modified.is_none_or(|m| m > since) {
                return Some(StatusCode::PRECONDITION_FAILED);
            }
        }
        if let Some(tags) = headers.get(IF_NONE_MATCH).and_then(|v| v.to_str().ok()) {
            let matches = tags
                .split(',')
                .map(str::trim)
                .any(|tag| tag == "*" || etag.is_some_and(|e| weak(tag) == weak(e)));
            return matches.then_some(StatusCode::NOT_MODIFIED);
        }
        match (date(IF_MODIFIED_SINCE), self.modified) {
            (Some(since), Some(m)) if m <= since => Some(StatusCode::NOT_MODIFIED),
            _ => None,
        }
    }

    /// The bytes of `range`: one buffer, or a stream of reads for a long answer.
    fn body(self, range: RangeInclusive<u64>) -> io::Result<Body> {
        let (start, end) = (*range.start(), range.end() + 1);
        if end - start <= AT_ONCE {
            return Ok(Body::from(read(&self.file, start, end)?));
        }
        let reads = stream::iter((start..end).step_by(CHUNK as usize))
            .map(move |at| read(&self.file, at, end.min(at + CHUNK)));
        Ok(Body::from_stream(reads))
    }
}

/// Bytes `start..end` of the file, read into the buffer's spare capacity as it is: zeroing it
/// first, as a read into a `&mut [u8]` needs, or growing reads (`read_to_end`) each cost about
/// a tenth of the range reads' throughput.
fn read(file: &File, start: u64, end: u64) -> io::Result<Bytes> {
    let len = (end - start) as usize;
    let mut buffer = Vec::with_capacity(len);
    while buffer.len() < len {
        let at = start + buffer.len() as u64;
        if rustix::io::pread(file, spare_capacity(&mut buffer), at)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    }
    Ok(Bytes::from(buffer))
}

/// The one range a Range header asks for within `len` bytes; `None` when it cannot be met
/// (past the end, reversed, several ranges, which this server does not send as multipart).
fn one_range(header: &str, len: u64) -> Option<RangeInclusive<u64>> {
    let ranges = http_range_header::parse_range_header(header)
        .ok()?
        .validate(len)
        .ok()?;
    match ranges.as_slice() {
        [range] if len > 0 => Some(range.clone()),
        _ => None,
    }
}

/// Whether If-Range (when sent) still names this file, so that a range of it may be sent.
fn still_valid(headers: &HeaderMap, modified: Option<&str>) -> bool {
    match headers.get(IF_RANGE).and_then(|v| v.to_str().ok()) {
        None => true,
        // A weak tag never validates a range (RFC 9110, section 13.1.5); only the date does.
        Some(value) => Some(value) == modified,
    }
}

/// An entity tag without its weak marker, for the weak comparison If-None-Match uses.
fn weak(tag: &str) -> &str {
    tag.strip_prefix("W/").unwrap_or(tag)
}

fn seconds(meta: &Metadata) -> Option<u64> {
    let modified = meta.modified().ok()?;
    Some(modified.duration_since(UNIX_EPOCH).ok()?.as_secs())
}

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + std::time::Duration::from_secs(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_range_is_met_within_the_file() {
        assert_eq!(one_range("bytes=0-99", 1000), Some(0..=99));
        assert_eq!(one_range("bytes=900-", 1000), Some(900..=999));
        assert_eq!(one_range("bytes=-10", 1000), Some(990..=999));
        assert_eq!(one_range("bytes=990-5000", 1000), Some(990..=999));
    }

    #[test]
    fn ranges_that_cannot_be_met_are_refused() {
        for header in [
            "bytes=1000-",
            "bytes=5-2",
            "bytes=0-1,5-6",
            "items=0-1",
            "bytes=-0",
        ] {
            assert_eq!(one_range(header, 1000), None, "{header}");
        }
        assert_eq!(
            one_range("bytes=0-0", 0),
            None,
            "an empty file has no bytes"
        );
    }

    #[test]
    fn if_range_accepts_only_the_date() {
        let mut headers = HeaderMap::new();
        let date = "Wed, 25 Nov 2026 10:00:00 GMT";
        assert!(still_valid(&headers, Some(date)));
        headers.insert(IF_RANGE, HeaderValue::from_static("W/\"1-2\""));
        assert!(!still_valid(&headers, Some(date)));
        headers.insert(IF_RANGE, HeaderValue::from_static(date));
        assert!(still_valid(&headers, Some(date)));
    }
}
