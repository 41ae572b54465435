//! Frames out of H.264 MP4s, decoded with OpenH264: the track's size and length, and the
//! picture at the first frame, the last or any moment. Posters, reference grabs and extends
//! all read videos through here, whoever made them (Baseline from the engine, High profile
//! with reordered frames from hosted providers).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{Read, Seek};

use image::RgbImage;
use openh264::decoder::{DecodedYUV, Decoder, DecoderConfig, Flush};
use openh264::formats::YUVSource;
use openh264::OpenH264API;
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

/// Decodes samples of one track, from the first on, yielding pictures in display order.
pub struct FrameReader<'a> {
    reader: mp4::Mp4Reader<Video<'a>>,
    track: u32,
    length_size: usize,
    decoder: Decoder,
    stream: Vec<u8>,
    /// The next sample to decode (1-based).
    next: u32,
    /// Each sample's place in display order (by its composition time), by sample (0-based).
    ranks: Vec<u32>,
    /// The places of the samples given to the decoder whose pictures have not come out yet:
    /// pictures come out in display order, so each one's place is the least of these.
    fed: BinaryHeap<Reverse<u32>>,
    /// Samples passed over without decoding (pictures no other refers to).
    pub dropped: u32,
    /// Pictures the decoder handed back at the end, not yet taken, with their places.
    held: std::collections::VecDeque<(u32, Picture)>,
    flushed: bool,
    /// Pictures come as the decoder's planes, not RGB.
    planes: bool,
}

/// Each sample's place in display order: the order of their composition times (decode time
/// plus the `ctts` offset), ties by sample.
fn display_ranks(
    durations: impl Iterator<Item = (u32, u32)>,
    offsets: impl Iterator<Item = (u32, i32)>,
    samples: u32,
) -> Vec<u32> {
    let runs = |(count, value): (u32, i64)| std::iter::repeat_n(value, count as usize);
    let offsets = offsets.flat_map(|(count, offset)| runs((count, i64::from(offset))));
    let mut decode = 0i64;
    let mut shown: Vec<i64> = durations
        .flat_map(|(count, delta)| runs((count, i64::from(delta))))
        .zip(offsets.chain(std::iter::repeat(0)))
        .map(|(delta, offset)| {
            let at = decode + offset;
            decode += delta;
            at
        })
        .take(samples as usize)
        .collect();
    // A table shorter than the track: the rest in decode order, after.
    while shown.len() < samples as usize {
        shown.push(i64::MAX);
    }
    let mut order: Vec<u32> = (0..samples).collect();
    order.sort_by_key(|&n| (shown[n as usize], n));
    let mut ranks = vec![0; samples as usize];
    for (rank, n) in order.into_iter().enumerate() {
        ranks[n as usize] = rank as u32;
    }
    ranks
}

/// Whether no other picture refers to the one in `sample` (length-prefixed NAL units): it has
/// slices, and each says `nal_ref_idc` 0. Such a picture can be passed over undecoded.
fn unreferenced(sample: &[u8], length_size: usize) -> bool {
    let mut rest = sample;
    let mut slices = 0;
    while let Some((head, tail)) = rest.split_at_checked(length_size) {
        let length = head.iter().fold(0usize, |n, b| (n << 8) | usize::from(*b));
        let Some((nal, tail)) = tail.split_at_checked(length) else {
            return false;
        };
        if let Some(&first) = nal.first() {
            if matches!(first & 0x1f, 1 | 5) {
                if first & 0x60 != 0 {
                    return false;
                }
                slices += 1;
            }
        }
        rest = tail;
    }
    slices > 0
}

/// A decoded picture: RGB, or (for a reader asked for them) the decoder's own I420 planes
/// packed row after row, for a use that needs no other size or colour space.
pub enum Picture {
    Rgb(RgbImage),
    Planes(Vec<u8>),
}

impl Picture {
    /// The RGB picture: a reader not asked for planes makes only these.
    fn into_rgb(self) -> RgbImage {
        match self {
            Picture::Rgb(picture) => picture,
            Picture::Planes(_) => unreachable!("a reader not asked for planes made them"),
        }
    }
}

/// `frame` as the reader was asked for it.
fn picture(frame: &DecodedYUV<'_>, planes: bool) -> Picture {
    if planes {
        Picture::Planes(self::planes(frame))
    } else {
        Picture::Rgb(rgb(frame))
    }
}

/// The planes of `frame` packed as I420 (no row padding).
fn planes(frame: &DecodedYUV<'_>) -> Vec<u8> {
    let (width, height) = frame.dimensions();
    let (y_stride, u_stride, v_stride) = frame.strides();
    let mut data = Vec::with_capacity(width * height * 3 / 2);
    for (plane, stride, w, h) in [
        (frame.y(), y_stride, width, height),
        (frame.u(), u_stride, width / 2, height / 2),
        (frame.v(), v_stride, width / 2, height / 2),
    ] {
        for row in plane.chunks(stride).take(h) {
            data.extend_from_slice(&row[..w]);
        }
    }
    data
}

impl<'a> FrameReader<'a> {
    pub fn new(
        video: impl Read + Seek + Send + 'a,
        size: u64,
    ) -> Result<FrameReader<'a>, FrameError> {
        let (reader, track) = open(Box::new(video), size)?;
        let avcc = &reader.tracks()[&track]
            .trak
            .mdia
            .minf
            .stbl
            .stsd
            .avc1
            .as_ref()
            .ok_or_else(|| FrameError::Unsupported("no avc1 sample entry".into()))?
            .avcc;
        let length_size = usize::from(avcc.length_size_minus_one & 3) + 1;
        let mut stream = Vec::new();
        for set in avcc
            .sequence_parameter_sets
            .iter()
            .chain(&avcc.picture_parameter_sets)
        {
            stream.extend_from_slice(&[0, 0, 0, 1]);
            stream.extend_from_slice(&set.bytes);
        }
        let samples = reader.tracks()[&track].sample_count();
        let stbl = &reader.tracks()[&track].trak.mdia.minf.stbl;
        let ranks = display_ranks(
            stbl.stts
                .entries
                .iter()
                .map(|e| (e.sample_count, e.sample_delta)),
            stbl.ctts
                .iter()
                .flat_map(|c| c.entries.iter().map(|e| (e.sample_count, e.sample_offset))),
            samples,
        );
        Ok(FrameReader {
            reader,
            track,
            length_size,
            ranks,
            fed: BinaryHeap::new(),
            dropped: 0,
            // Pictures come out when the stream says they are shown: the crate's default flush
            // after every sample hands B-frames over too early and breaks their references.
            decoder: Decoder::with_api_config(
                OpenH264API::from_source(),
                DecoderConfig::new().flush_after_decode(Flush::NoFlush),
            )
            .map_err(decode_error)?,
            stream,
            next: 1,
            held: std::collections::VecDeque::new(),
            flushed: false,
            planes: false,
        })
    }

    /// Samples in the track.
    pub fn samples(&self) -> u32 {
        self.reader.tracks()[&self.track].sample_count()
    }

    /// Makes the pictures come as the decoder's I420 planes.
    pub fn with_planes(mut self) -> Self {
        self.planes = true;
        self
    }

    /// The track's size in pixels.
    pub fn size(&self) -> (u32, u32) {
        let track = &self.reader.tracks()[&self.track];
        (u32::from(track.width()), u32::from(track.height()))
    }

    /// The track's length in seconds.
    pub fn seconds(&self) -> f64 {
        self.reader.tracks()[&self.track].duration().as_secs_f64()
    }

    /// The next picture in display order, or `None` after the last.
    pub fn next_picture(&mut self) -> Result<Option<Picture>, FrameError> {
        Ok(self.next_indexed()?.map(|(_, picture)| picture))
    }

    /// The next picture in display order with its place in that order (counted from 0), or
    /// `None` after the last.
    pub fn next_indexed(&mut self) -> Result<Option<(u32, Picture)>, FrameError> {
        while self.next <= self.samples() {
            let n = self.next;
            self.next += 1;
            if let Some(picture) = self.decode(n)? {
                return Ok(Some((self.shown(), picture)));
            }
        }
        if !self.flushed {
            self.flushed = true;
            let planes = self.planes;
            let remaining: Vec<Picture> = self
                .decoder
                .flush_remaining()
                .map_err(decode_error)?
                .iter()
                .map(|frame| picture(frame, planes))
                .collect();
            for picture in remaining {
                let place = self.shown();
                self.held.push_back((place, picture));
            }
        }
        Ok(self.held.pop_front())
    }

    /// The place of a picture that just came out of the decoder.
    fn shown(&mut self) -> u32 {
        self.fed.pop().map_or(0, |Reverse(place)| place)
    }

    /// Starts at the sync sample at or before the picture shown `index`th (counted from 0),
    /// so that no picture before that sample is read or decoded: the index of the picture that
    /// comes next. Only a reader that has decoded nothing yet moves. A sync sample (an IDR
    /// picture) starts a closed group, so as many pictures are shown before it as samples come
    /// before it.
    pub fn seek_before(&mut self, index: u32) -> u32 {
        if self.next != 1 {
            return 0;
        }
        let target = index.saturating_add(1).min(self.samples().max(1));
        let sync = match &self.reader.tracks()[&self.track].trak.mdia.minf.stbl.stss {
            Some(stss) => stss
                .entries
                .iter()
                .copied()
                .filter(|&s| s >= 1 && s <= target)
                .max()
                .unwrap_or(1),
            // No table: every sample is a sync sample.
            None => target,
        };
        self.next = sync;
        sync - 1
    }

    /// Passes over the pictures shown before place `limit` (in display order), from where the
    /// reader stands: the ones other pictures refer to are decoded (not turned into RGB or
    /// planes), the others not even that. The next picture `next_indexed` gives may still be
    /// one before `limit` (a picture decoded before a later one it is shown after).
    pub fn pass_before(&mut self, limit: u32) -> Result<(), FrameError> {
        if self.flushed {
            while self.held.front().is_some_and(|(place, _)| *place < limit) {
                self.held.pop_front();
            }
            return Ok(());
        }
        while self.next <= self.samples() && self.ranks[self.next as usize - 1] < limit {
            let n = self.next;
            self.next += 1;
            let sample = self.sample(n)?;
            if unreferenced(&sample, self.length_size) {
                self.dropped += 1;
                continue;
            }
            annex_b(&sample, self.length_size, &mut self.stream)?;
            self.fed.push(Reverse(self.ranks[n as usize - 1]));
            if self.decode_stream()? {
                self.shown();
            }
        }
        Ok(())
    }

    /// The picture the first sample holds, reading no other sample (a poster has only its
    /// bytes).
    pub fn first_picture(&mut self) -> Result<Option<RgbImage>, FrameError> {
        if let Some(Picture::Rgb(picture)) = self.decode(1)? {
            return Ok(Some(picture));
        }
        let remaining = self.decoder.flush_remaining().map_err(decode_error)?;
        Ok(remaining.first().map(rgb))
    }

    /// Decodes sample `n` (1-based): the picture it completes, if any yet.
    fn decode(&mut self, n: u32) -> Result<Option<Picture>, FrameError> {
        let sample = self.sample(n)?;
        annex_b(&sample, self.length_size, &mut self.stream)?;
        self.fed.push(Reverse(self.ranks[n as usize - 1]));
        let planes = self.planes;
        let decoded = self
            .decoder
            .decode(&self.stream)
            .map_err(decode_error)?
            .map(|f| picture(&f, planes));
        self.stream.clear();
        Ok(decoded)
    }

    /// Decodes what `stream` holds (a sample's), keeping nothing of the picture it completes:
    /// whether it completed one.
    fn decode_stream(&mut self) -> Result<bool, FrameError> {
        let decoded = self
            .decoder
            .decode(&self.stream)
            .map_err(decode_error)?
            .is_some();
        self.stream.clear();
        Ok(decoded)
    }

    /// Sample `n`'s (1-based) bytes, length-prefixed as stored.
    fn sample(&mut self, n: u32) -> Result<bytes::Bytes, FrameError> {
        Ok(self
            .reader
            .read_sample(self.track, n)
            .map_err(unsupported)?
            .ok_or_else(|| FrameError::Unsupported(format!("no sample {n}")))?
            .bytes)
    }
}

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
mod tests {
    use super::*;

    #[test]
    fn length_prefixed_units_get_start_codes() {
        let mut out = Vec::new();
        annex_b(&[0, 0, 0, 2, 0x65, 0xaa, 0, 0, 0, 1, 0x06], 4, &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 1, 0x65, 0xaa, 0, 0, 0, 1, 0x06]);
        assert!(annex_b(&[0, 0, 0, 9, 0x65], 4, &mut Vec::new()).is_err());
        assert!(annex_b(&[0, 0], 4, &mut Vec::new()).is_err());
    }

    /// The pictures from the start of a reader that first seeks before `index` and passes
    /// over what comes before it, and from one that decodes everything, agree.
    #[test]
    fn a_reader_started_at_the_sync_sample_before_a_picture_shows_the_same_picture() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gop.mp4");
        // A take as hosted providers make them: High profile, B-frames, a sync sample every
        // half second. Three B-frames in a row, the middle one referred to (x264's pyramid):
        // the outer two are passed over undecoded.
        let made = std::process::Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi"])
            .args(["-i", "testsrc2=size=160x96:rate=24:duration=3"])
            .args([
                "-c:v",
                "libx264",
                "-profile:v",
                "high",
                "-bf",
                "3",
                "-b_strategy",
                "0",
                "-g",
                "12",
            ])
            .args([
                "-keyint_min",
                "12",
                "-sc_threshold",
                "0",
                "-pix_fmt",
                "yuv420p",
            ])
            .arg(&path)
            .status();
        let Ok(status) = made else {
            return; // No ffmpeg here (scripts/setup-test.sh installs it).
        };
        assert!(status.success());
        let bytes = std::fs::read(&path).unwrap();
        let size = bytes.len() as u64;
        let reader = || FrameReader::new(std::io::Cursor::new(bytes.clone()), size).unwrap();
        let mut dropped = 0;
        for index in [0u32, 5, 12, 30, 71] {
            let mut whole = reader();
            let mut expected = None;
            for _ in 0..=index {
                expected = whole.next_picture().unwrap().map(Picture::into_rgb);
            }
            let mut seeking = reader();
            let position = seeking.seek_before(index);
            assert_eq!(position, index / 12 * 12, "the sync sample before {index}");
            seeking.pass_before(index).unwrap();
            let found = loop {
                match seeking.next_indexed().unwrap() {
                    Some((place, _)) if place < index => continue,
                    Some((place, picture)) => {
                        assert_eq!(place, index);
                        break Some(picture.into_rgb());
                    }
                    None => break None,
                }
            };
            assert!(found == expected, "picture {index}");
            dropped += seeking.dropped;
        }
        assert!(
            dropped > 0,
            "pictures no other refers to are passed over undecoded"
        );
    }

    #[test]
    fn junk_is_unsupported_not_a_panic() {
        let junk = b"not a video at all";
        assert!(matches!(
            frame_at(std::io::Cursor::new(junk), junk.len() as u64, At::Last),
            Err(FrameError::Unsupported(_))
        ));
    }

    #[test]
    fn first_last_and_timed_frames_of_an_engine_video() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("v.mp4");
        let spec = crate::engine::VideoSpec {
            seconds: 2,
            width: 320,
            height: 180,
            fps: 12,
        };
        crate::engine::render_clip("a red ball bouncing", &spec, &out).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        let size = bytes.len() as u64;
        let read = |at| frame_at(std::io::Cursor::new(&bytes), size, at).unwrap();
        let info = track_info(std::io::Cursor::new(&bytes), size).unwrap();
        assert_eq!((info.width, info.height, info.frames), (320, 180, 24));
        assert!((info.seconds - 2.0).abs() < 0.01, "{}", info.seconds);
        let (first, last) = (read(At::First), read(At::Last));
        assert_eq!(first.dimensions(), (320, 180));
        assert_ne!(first, last, "the scene moves");
        assert_eq!(read(At::Seconds(0.0)), first);
        assert_eq!(read(At::Seconds(2.0)), last);
        assert!(matches!(
            frame_at(std::io::Cursor::new(&bytes), size, At::Seconds(2.5)),
            Err(FrameError::PastTheEnd(_))
        ));
    }
}
