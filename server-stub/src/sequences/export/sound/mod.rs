//! The cut's sound, made again as one stream: each shot's sound decoded from its take, trimmed
//! to the sample (past the take's priming, the samples its edit list says are not played),
//! made stereo and resampled to the track's rate where it differs, faded over 3 ms at each cut
//! so that no join clicks, brought to a loudness standard when asked (`loudness.rs`), and
//! encoded as AAC-LC stereo. Silence where a take has none.
//!
//! Memory does not grow with a shot's or a cut's length: a take is decoded one AAC frame at a
//! time, resampled a frame at a time, and the track is encoded in segments of `SEGMENT` frames
//! (rusty_aac's encoder keeps all it is given until it finishes), each segment's encoder first
//! given the frame before it, so that the frames on both sides of a segment's start were made
//! from the same samples and decode across it as one stream.

use bytes::Bytes;
use mp4::{ChannelConfig, Mp4Reader};
use rusty_aac::{AacDecoder, AacEncoder, AacEncoderConfig, AudioSpecificConfig, Error};

use super::audio::{priming, track_of, Shape, FRAME};
use super::loudness::{Limiter, Measured, Meter};
use super::take_reader::TakeReader;
use super::{Export, ExportLaneClip, ExportShot, Sources};
use crate::engine::EngineError;
use crate::frames::Video;
use crate::sounds::decode::Decoded;
use lanes::Lanes;
use resample::{Blocks, Resampled};

pub(super) const FRAME_LEN: usize = FRAME as usize;
/// Frames encoded by one encoder (about 5.5 s at 48 kHz, 2 MB of samples).
const SEGMENT: usize = 256;
/// The fade at each cut, in seconds.
const FADE_S: f64 = 0.003;
/// AAC-LC's object type in an `AudioSpecificConfig`.
const AAC_LC: u8 = 2;

pub(super) fn failed(what: &str, e: impl std::fmt::Display) -> EngineError {
    EngineError::Encode(format!("the sound could not be {what}: {e}"))
}

/// The track's samples as they are made, encoded a segment at a time.
struct Encoder<W> {
    rate: u32,
    /// Frames a segment has (`SEGMENT`).
    segment: usize,
    /// Samples not encoded yet, by channel: the segment being filled.
    pending: [Vec<f32>; 2],
    /// Frames written.
    written: u64,
    write: W,
}

impl<W: FnMut(u64, Bytes) -> Result<(), EngineError>> Encoder<W> {
    fn new(rate: u32, segment: usize, write: W) -> Self {
        Encoder {
            rate,
            segment,
            pending: [Vec::new(), Vec::new()],
            written: 0,
            write,
        }
    }

    fn push(&mut self, left: f32, right: f32) -> Result<(), EngineError> {
        self.pending[0].push(left);
        self.pending[1].push(right);
        // A segment is encoded once the frame after it is there too.
        if self.pending[0].len() == (self.segment + 1) * FRAME_LEN {
            self.encode(self.segment)?;
        }
        Ok(())
    }

    /// Encodes the first `frames` frames pending, given the frame after them too (silence at
    /// the end): an AAC frame's packet is made from it and the frame after it, so the last
    /// packet of a segment and the first of the next are made from the same samples where
    /// they overlap, and decode as one stream.
    fn encode(&mut self, frames: usize) -> Result<(), EngineError> {
        if frames == 0 {
            return Ok(());
        }
        let mut encoder = AacEncoder::new(AacEncoderConfig {
            bitrate_bps: 128_000,
            ..AacEncoderConfig::default()
        });
        let given = ((frames + 1) * FRAME_LEN).min(self.pending[0].len());
        let planes: Vec<&[f32]> = self.pending.iter().map(|p| &p[..given]).collect();
        encoder
            .push_pcm_planar(&planes, self.rate)
            .map_err(|e| failed("encoded", e))?;
        encoder.finish();
        // The encoder's first packet is its priming; packet n + 1 is made from frames n and
        // n + 1.
        let mut packet = 0usize;
        loop {
            match encoder.next_packet() {
                Ok(encoded) if (1..=frames).contains(&packet) => {
                    (self.write)(self.written * FRAME, Bytes::from(encoded.data))?;
                    self.written += 1;
                }
                Ok(_) => {}
                Err(Error::Eof) => break,
                Err(e) => return Err(failed("encoded", e)),
            }
            packet += 1;
        }
        for channel in &mut self.pending {
            channel.drain(..frames * FRAME_LEN);
        }
        Ok(())
    }

    /// Encodes what is left, its last frame made whole with silence.
    fn finish(mut self) -> Result<(), EngineError> {
        let short = self.pending[0].len() % FRAME_LEN;
        if short > 0 {
            for channel in &mut self.pending {
                channel.resize(channel.len() + FRAME_LEN - short, 0.0);
            }
        }
        let frames = self.pending[0].len() / FRAME_LEN;
        self.encode(frames)
    }
}

/// A take's sound from one sample on, two channels at the take's own rate, a frame at a time.
struct TakeSound {
    reader: Mp4Reader<Video<'static>>,
    track: u32,
    next_packet: u32,
    packets: u32,
    decoder: AacDecoder,
    /// Samples of the next decoded frame still to pass over.
    skip: usize,
}

impl TakeSound {
    /// The sound of `take` (of `shape`) from the sample shown at `in_frame` of a cut at `fps`.
    fn open(take: TakeReader, shape: Shape, in_frame: u64, fps: u32) -> Option<TakeSound> {
        let size = take.size();
        let reader = Mp4Reader::read_header(Box::new(take) as Video, size).ok()?;
        let (track, _) = track_of(&reader)?;
        let rate = shape.rate();
        let start = priming(&reader, track, rate)
            + (in_frame * rate * 2 + u64::from(fps)) / (u64::from(fps) * 2);
        // One frame before the start primes the decoder (its output is the overlap of two).
        let first = (start / FRAME).saturating_sub(1);
        let packets = reader.sample_count(track).ok()?;
        let decoder = AacDecoder::with_config(AudioSpecificConfig {
            object_type: AAC_LC,
            sample_rate: rate as u32,
            channels: match shape.channels {
                ChannelConfig::Mono => 1,
                _ => 2,
            },
        });
        Some(TakeSound {
            reader,
            track,
            next_packet: first as u32 + 1,
            packets,
            decoder,
            skip: (start - first * FRAME) as usize,
        })
    }

    /// The next decoded samples, two channels (mono heard on both); `None` after the last.
    fn next(&mut self) -> Option<[Vec<f32>; 2]> {
        loop {
            if self.next_packet > self.packets {
                return None;
            }
            let sample = self
                .reader
                .read_sample(self.track, self.next_packet)
                .ok()??;
            self.next_packet += 1;
            let decoded = self.decoder.decode(&sample.bytes, None).ok();
            let (samples, channels) = decoded.as_ref().map_or((&[][..], 1), |d| {
                (&d.samples[..], usize::from(d.channels.max(1)))
            });
            let frames = if samples.is_empty() {
                FRAME_LEN
            } else {
                samples.len() / channels
            };
            let channel = |c: usize| -> Vec<f32> {
                (0..frames)
                    .map(|i| samples.get(i * channels + c.min(channels - 1)).copied())
                    .map(|s| s.unwrap_or(0.0))
                    .collect()
            };
            let mut out = [channel(0), channel(1)];
            let skip = self.skip.min(frames);
            self.skip -= skip;
            for channel in &mut out {
                channel.drain(..skip);
            }
            if !out[0].is_empty() {
                return Some(out);
            }
        }
    }
}

/// Where a shot's sound comes from: the next block of two channels at the track's rate, until
/// `None`.
pub(super) type Source = Box<dyn FnMut() -> Result<Option<[Vec<f32>; 2]>, EngineError>>;

/// The gain at sample `i` of a shot of `length` samples: a fade of `fade` samples in at its
/// start (unless it opens the cut) and out at its end (unless it closes it).
fn gain(i: usize, length: usize, fade: usize, (fade_in, fade_out): (bool, bool)) -> f32 {
    let ramp = |n: usize| {
        let x = (n as f32 + 0.5) / fade as f32;
        (std::f32::consts::FRAC_PI_2 * x.min(1.0)).sin().powi(2)
    };
    let start = if fade_in && i < fade { ramp(i) } else { 1.0 };
    let from_end = length - 1 - i;
    let end = if fade_out && from_end < fade {
        ramp(from_end)
    } else {
        1.0
    };
    start * end
}

/// Writes the cut's sound, AAC-LC stereo at `shape`'s rate, as `write(start sample, frame)`
/// calls: each shot's sound (`shapes`: its take's, `None` for silence) read with
/// `sources.takes`, trimmed to the sample, at the track's rate, and its length that of its
/// pictures, with its gain (or muted); the lanes' clips under it, read with `sources.sounds`;
/// brought to the export's loudness (made twice then: measured, then written through the
/// limiter), with what was measured of the sound written.
pub fn write_track(
    export: &Export,
    shape: Shape,
    shapes: &[Option<Shape>],
    sources: Sources<
        impl FnMut(&ExportShot) -> Result<TakeReader, EngineError>,
        impl FnMut(&ExportLaneClip, f64) -> Result<Decoded, EngineError>,
    >,
    write: impl FnMut(u64, Bytes) -> Result<(), EngineError>,
) -> Result<Option<Measured>, EngineError> {
    let rate = shape.rate();
    let Sources {
        takes: mut open,
        sounds: mut open_sound,
    } = sources;
    let mut encoder = Encoder::new(rate as u32, SEGMENT, write);
    // The shots' sound with the lanes' under it.
    let mut whole = |sink: &mut dyn FnMut(f32, f32) -> Result<(), EngineError>| {
        let mut lanes = Lanes::new(
            &export.lanes,
            export.duck_db,
            export.fps,
            rate,
            Box::new(&mut open_sound),
        );
        mix(
            &export.shots,
            export.fps,
            rate,
            shapes,
            &mut open,
            |l, r| {
                let [ml, mr] = lanes.next()?;
                sink(l + ml, r + mr)
            },
        )
    };
    let Some(target) = export.loudness.target_lufs() else {
        whole(&mut |l, r| encoder.push(l, r))?;
        encoder.finish()?;
        return Ok(None);
    };
    let mut meter = Meter::new(rate as u32, false)?;
    whole(&mut |l, r| meter.push(l, r))?;
    let gain = meter.gain_to(target)?;
    let mut limiter = Limiter::new(rate as u32, |l, r| encoder.push(l, r))?;
    whole(&mut |l, r| limiter.push(l * gain, r * gain))?;
    let measured = limiter.finish()?;
    encoder.finish()?;
    Ok(Some(measured))
}

/// The cut's sound, a sample at a time to `sink`: each shot's sound read again with `open`.
fn mix(
    shots: &[ExportShot],
    fps: u32,
    rate: u64,
    shapes: &[Option<Shape>],
    open: &mut impl FnMut(&ExportShot) -> Result<TakeReader, EngineError>,
    mut sink: impl FnMut(f32, f32) -> Result<(), EngineError>,
) -> Result<(), EngineError> {
    let fade = ((rate as f64 * FADE_S) as usize).max(1);
    let (mut video_frames, mut samples_made) = (0u64, 0u64);
    for (n, (shot, take_shape)) in shots.iter().zip(shapes).enumerate() {
        video_frames += shot.out_frame - shot.in_frame;
        let end = (video_frames * rate * 2 + u64::from(fps)) / (u64::from(fps) * 2);
        let length = (end - samples_made) as usize;
        samples_made = end;
        let fades = (n > 0, n + 1 < shots.len());
        let level = if shot.mute {
            0.0
        } else {
            10f32.powf(shot.gain_db as f32 / 20.0)
        };
        let mut source: Option<Source> = match take_shape {
            Some(take_shape) => {
                let take = open(shot)?;
                match TakeSound::open(take, *take_shape, shot.in_frame, fps) {
                    Some(sound) if take_shape.rate() == rate => {
                        let mut sound = sound;
                        Some(Box::new(move || Ok(sound.next())))
                    }
                    Some(mut sound) => {
                        let blocks: Blocks = Box::new(move || sound.next());
                        let mut resampled = Resampled::new(blocks, take_shape.rate(), rate)?;
                        Some(Box::new(move || resampled.next()))
                    }
                    None => None,
                }
            }
            None => None,
        };
        let mut made = 0usize;
        while made < length {
            let block = match source.as_mut() {
                Some(next) => next()?,
                None => None,
            };
            let Some([left, right]) = block else {
                // Silence: no sound, or the take's ended before the shot's out point.
                while made < length {
                    sink(0.0, 0.0)?;
                    made += 1;
                }
                break;
            };
            for (l, r) in left.into_iter().zip(right) {
                if made == length {
                    break;
                }
                let g = gain(made, length, fade, fades) * level;
                sink(l * g, r * g)?;
                made += 1;
            }
        }
    }
    Ok(())
}

mod lanes;
mod resample;

#[cfg(test)]
mod tests;
