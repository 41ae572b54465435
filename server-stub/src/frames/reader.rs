//! Pictures in display order, from a sync sample on: what an export and a seek read.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{Read, Seek};

use image::RgbImage;
use openh264::decoder::{DecodedYUV, Decoder, DecoderConfig, Flush};
use openh264::formats::YUVSource;
use openh264::OpenH264API;

use super::{annex_b, decode_error, open, rgb, unsupported, FrameError, Video};

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
    pub(super) fn into_rgb(self) -> RgbImage {
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
