//! Frames out of H.264 MP4s, decoded with OpenH264: the track's size and length, and the
//! picture at the first frame, the last or any moment. Posters, reference grabs and extends
//! all read videos through here, whoever made them (Baseline from the engine, High profile
//! with reordered frames from hosted providers).

use std::io::{Read, Seek};

use image::RgbImage;
use openh264::decoder::DecodedYUV;
use openh264::formats::YUVSource;
use thiserror::Error;

/// A video as the MP4 readers take it: one type whatever it is read from (a stored video in
/// memory, a sparse copy of its boxes, a take read by range), so that the MP4 crate's box
/// parsing, generic over its reader, is compiled once and not once for each.
pub type Video<'a> = Box<dyn ReadSeek + Send + 'a>;

/// `Read + Seek`, as one trait that a [`Video`] can hold.
pub trait ReadSeek: Read + Seek {}

impl<T: Read + Seek> ReadSeek for T {}

/// The largest frame decoded (8K UHD): its RGB copy stays under 100 MB.
const MAX_PIXELS: u64 = 7680 * 4320;

#[derive(Debug, Error)]
pub enum FrameError {
    #[error("not an H.264 MP4: {0}")]
    Unsupported(String),
    #[error("the frame could not be decoded: {0}")]
    Decode(String),
    #[error("the video is {0:.2} s long")]
    PastTheEnd(f64),
}

/// Which picture of a clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum At {
    First,
    Last,
    Seconds(f64),
}

/// What the video track holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackInfo {
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    pub seconds: f64,
    /// The track's clock, ticks a second (`mdhd`).
    pub timescale: u32,
    /// How many ticks most of its pictures last (`stts`): with `timescale`, its exact frame
    /// rate (24000 / 1001 is 23.976).
    pub frame_ticks: u32,
}

fn unsupported(e: mp4::Error) -> FrameError {
    FrameError::Unsupported(e.to_string())
}

fn decode_error(e: openh264::Error) -> FrameError {
    FrameError::Decode(e.to_string())
}

/// The MP4's header and the id of its H.264 track.
pub fn open(video: Video<'_>, size: u64) -> Result<(mp4::Mp4Reader<Video<'_>>, u32), FrameError> {
    let reader = mp4::Mp4Reader::read_header(video, size).map_err(unsupported)?;
    let track = reader
        .tracks()
        .values()
        .find(|t| matches!(t.media_type(), Ok(mp4::MediaType::H264)))
        .ok_or_else(|| FrameError::Unsupported("no H.264 video track".into()))?
        .track_id();
    let t = &reader.tracks()[&track];
    if u64::from(t.width()) * u64::from(t.height()) > MAX_PIXELS {
        return Err(FrameError::Unsupported(format!(
            "a {}x{} frame",
            t.width(),
            t.height()
        )));
    }
    Ok((reader, track))
}

/// Which of `pictures` pictures spread evenly over `seconds` is nearest the instant `at`: a
/// point on a take is its nearest frame (a half goes up), for the export as for the
/// timelines an editor gets.
pub fn nearest_picture(at: f64, seconds: f64, pictures: u32) -> u32 {
    let per_picture = seconds / f64::from(pictures.max(1));
    ((at / per_picture + 1e-6).round().max(0.0) as u32).min(pictures.saturating_sub(1))
}

/// The size, frame count and length of the video track.
pub fn track_info(video: impl Read + Seek + Send, size: u64) -> Result<TrackInfo, FrameError> {
    let (reader, id) = open(Box::new(video), size)?;
    let track = &reader.tracks()[&id];
    let frame_ticks = track
        .trak
        .mdia
        .minf
        .stbl
        .stts
        .entries
        .iter()
        .max_by_key(|e| e.sample_count)
        .map_or(0, |e| e.sample_delta);
    Ok(TrackInfo {
        width: u32::from(track.width()),
        height: u32::from(track.height()),
        frames: track.sample_count(),
        seconds: track.duration().as_secs_f64(),
        timescale: track.timescale(),
        frame_ticks,
    })
}

/// Which of `pictures` pictures spread evenly over `seconds` shows at `at` seconds. A time on
/// a picture's start is that picture's, whatever the float rounding of the division.
pub fn picture_at(at: f64, seconds: f64, pictures: u32) -> u32 {
    let per_picture = seconds / f64::from(pictures.max(1));
    ((at / per_picture + 1e-6).floor().max(0.0) as u32).min(pictures.saturating_sub(1))
}

mod reader;

pub use reader::{FrameReader, Picture};

/// The picture shown at `at`. Decodes from the first sample on, so frames that a provider's
/// encoder reordered come out in the order they are shown.
pub fn frame_at(video: impl Read + Seek + Send, size: u64, at: At) -> Result<RgbImage, FrameError> {
    let mut frames = FrameReader::new(video, size)?;
    let total = frames.samples();
    if total == 0 {
        return Err(FrameError::Unsupported(
            "the video track has no frames".into(),
        ));
    }
    let seconds = frames.seconds();
    let wanted = match at {
        At::First => 0,
        At::Last => total - 1,
        At::Seconds(s) if !(0.0..=seconds).contains(&s) || !s.is_finite() => {
            return Err(FrameError::PastTheEnd(seconds));
        }
        At::Seconds(s) => picture_at(s, seconds, total),
    };
    let mut last = None;
    for shown in 0..=wanted {
        match frames.next_picture()?.map(Picture::into_rgb) {
            Some(picture) if shown == wanted => return Ok(picture),
            Some(picture) => last = Some(picture),
            // Fewer pictures than samples (a damaged tail): the last one there is.
            None => break,
        }
    }
    last.ok_or_else(|| FrameError::Decode("no picture in the video".into()))
}

/// Peak signal-to-noise ratio of `b` against `a` (two RGB pictures of one size), in dB: how
/// near a picture came through (30 dB and more is faithful to the eye).
pub fn psnr(a: &RgbImage, b: &RgbImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions(), "pictures of one size");
    let squared: f64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2))
        .sum();
    10.0 * (255.0 * 255.0 / (squared / a.as_raw().len() as f64).max(1e-9)).log10()
}

fn rgb(frame: &DecodedYUV<'_>) -> RgbImage {
    let (width, height) = frame.dimensions();
    let mut pixels = vec![0; width * height * 3];
    frame.write_rgb8(&mut pixels);
    RgbImage::from_raw(width as u32, height as u32, pixels).unwrap_or_default()
}

/// Length-prefixed NAL units (as MP4 keeps them) to start-code separated ones.
pub fn annex_b(sample: &[u8], length_size: usize, out: &mut Vec<u8>) -> Result<(), FrameError> {
    let mut rest = sample;
    while !rest.is_empty() {
        let (head, tail) = rest
            .split_at_checked(length_size)
            .ok_or_else(|| FrameError::Decode("a NAL length is cut off".into()))?;
        let length = head.iter().fold(0usize, |n, b| (n << 8) | usize::from(*b));
        let (nal, tail) = tail
            .split_at_checked(length)
            .ok_or_else(|| FrameError::Decode("a NAL unit is cut off".into()))?;
        out.extend_from_slice(&[0, 0, 0, 1]);
        out.extend_from_slice(nal);
        rest = tail;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
