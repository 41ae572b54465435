//! The cut's sound: one AAC track of the video's length, made of the takes' own AAC frames
//! between each shot's in and out points, and silent frames where a take has no sound. Frames
//! are 1024 samples (21 ms at 48 kHz, half a frame of video at 24 fps); each shot gets as many
//! as keep the track's running length within half an audio frame of the video's, so 500 shots
//! drift no more than one. A shot's first frame is the take's frame nearest its in point once
//! the take's priming (the samples its edit list skips) is counted: its sound starts within
//! half an AAC frame of its picture (10.7 ms at 48 kHz). Trimming to the sample, and joins
//! without a click, need the sound decoded and encoded again as one stream: not done yet.
//!
//! When every take with sound has the same rate and channels, the track has them and frames
//! are copied, never decoded. When they differ, the track is stereo at the first such take's
//! rate: the takes of that shape are still copied, the others decoded, resampled and encoded
//! again (`transcode.rs`). AAC-LC mono or stereo is read; other sound is silent.

use std::io::{Seek, SeekFrom};

use bytes::Bytes;
use mp4::{AacConfig, AudioObjectType, ChannelConfig, MediaType, Mp4Reader, SampleFreqIndex};

use super::take_reader::TakeReader;
use super::{transcode, ExportShot};
use crate::engine::EngineError;
use crate::frames::Video;

/// Samples in one AAC frame.
pub const FRAME: u64 = 1024;

/// One AAC-LC frame of silence, for one or two channels (what hls.js and ffmpeg pad with).
const SILENT_MONO: &[u8] = &[0x00, 0xc8, 0x00, 0x80, 0x23, 0x80];
const SILENT_STEREO: &[u8] = &[0x21, 0x00, 0x49, 0x90, 0x02, 0x19, 0x00, 0x23, 0x80];

/// The shape of an AAC track: what must match for frames to be copied into another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub freq_index: SampleFreqIndex,
    pub channels: ChannelConfig,
}

impl Shape {
    pub fn rate(self) -> u64 {
        u64::from(self.freq_index.freq())
    }

    pub fn config(self) -> AacConfig {
        AacConfig {
            bitrate: 0,
            profile: AudioObjectType::AacLowComplexity,
            freq_index: self.freq_index,
            chan_conf: self.channels,
        }
    }

    fn silence(self) -> &'static [u8] {
        match self.channels {
            ChannelConfig::Mono => SILENT_MONO,
            _ => SILENT_STEREO,
        }
    }
}

/// The AAC-LC mono or stereo track of an MP4, if it has one: its id and shape.
pub fn track_of(reader: &Mp4Reader<Video<'_>>) -> Option<(u32, Shape)> {
    reader.tracks().values().find_map(|track| {
        let aac = matches!(track.media_type(), Ok(MediaType::AAC))
            && matches!(track.audio_profile(), Ok(AudioObjectType::AacLowComplexity));
        let channels = track
            .channel_config()
            .ok()
            .filter(|c| matches!(c, ChannelConfig::Mono | ChannelConfig::Stereo))?;
        let shape = Shape {
            freq_index: track.sample_freq_index().ok()?,
            channels,
        };
        aac.then_some((track.track_id(), shape))
    })
}

/// The track's shape for takes whose sound has `shapes`: theirs when they all agree, else
/// stereo at the first one's rate (the encoder makes stereo); `None` when no take has sound.
pub fn track_shape(shapes: &[Option<Shape>]) -> Option<Shape> {
    let first = shapes.iter().flatten().next().copied()?;
    if shapes.iter().flatten().all(|s| *s == first) {
        return Some(first);
    }
    Some(Shape {
        channels: ChannelConfig::Stereo,
        ..first
    })
}

/// The samples at the start of `track` that its edit list says are not played (the encoder's
/// priming), at `rate`; none without an edit list.
fn priming(reader: &Mp4Reader<Video<'_>>, track: u32, rate: u64) -> u64 {
    let Some(trak) = reader.tracks().get(&track).map(|t| &t.trak) else {
        return 0;
    };
    let timescale = u64::from(trak.mdia.mdhd.timescale.max(1));
    trak.edts
        .as_ref()
        .and_then(|edts| edts.elst.as_ref())
        .and_then(|elst| {
            // An empty edit (-1) only delays the start; the first edit with media says where
            // the played media begins.
            elst.entries
                .iter()
                .map(|e| e.media_time)
                .find(|&t| t < u64::from(u32::MAX))
        })
        .map_or(0, |media_time| media_time * rate / timescale)
}

/// The shape of a take's sound, if it has sound that can be copied.
pub fn shape_of(take: &mut TakeReader) -> Option<Shape> {
    take.seek(SeekFrom::Start(0)).ok()?;
    let size = take.size();
    let reader = Mp4Reader::read_header(Box::new(take) as Video, size).ok()?;
    track_of(&reader).map(|(_, shape)| shape)
}

/// Writes the cut's audio as `write(start sample, frame)` calls, reading again (with `open`)
/// only the takes with sound: copied when of the track's shape, else made into it.
pub fn write_track(
    shots: &[ExportShot],
    fps: u32,
    shape: Shape,
    shapes: &[Option<Shape>],
    mut open: impl FnMut(&ExportShot) -> Result<TakeReader, EngineError>,
    mut write: impl FnMut(u64, Bytes) -> Result<(), EngineError>,
) -> Result<(), EngineError> {
    let rate = shape.rate();
    let silence = Bytes::from_static(shape.silence());
    let (mut video_frames, mut written) = (0u64, 0u64);
    for (shot, take_shape) in shots.iter().zip(shapes) {
        video_frames += shot.out_frame - shot.in_frame;
        // Frames that bring the track's end nearest the video's.
        let end = (video_frames * rate + u64::from(fps) / 2) / u64::from(fps);
        let count = (end.saturating_sub(written * FRAME) + FRAME / 2) / FRAME;
        let mut copied = Vec::new();
        if let Some(take_shape) = *take_shape {
            let take = open(shot)?;
            let size = take.size();
            let mut reader = Mp4Reader::read_header(Box::new(take) as Video, size)
                .map_err(|e| EngineError::Inputs(format!("{}: {e}", shot.file_name)))?;
            if let Some((track, _)) = track_of(&reader) {
                let take_rate = take_shape.rate();
                // The take's frame that starts nearest the shot's in point, past the
                // encoder's priming (the samples its edit list skips: 1024 from ffmpeg, 2048
                // or more from others), which is never played.
                let priming = priming(&reader, track, take_rate);
                let first = (shot.in_frame * take_rate * 2
                    + u64::from(fps) * priming * 2
                    + u64::from(fps) * FRAME)
                    / (u64::from(fps) * FRAME * 2);
                let samples = u64::from(reader.sample_count(track).unwrap_or(0));
                let mut read = |frames: std::ops::Range<u64>| {
                    let mut out = Vec::new();
                    for n in frames.take_while(|n| *n < samples) {
                        match reader.read_sample(track, n as u32 + 1) {
                            Ok(Some(sample)) => out.push(sample.bytes),
                            _ => break,
                        }
                    }
                    out
                };
                if take_shape == shape {
                    copied = read(first..first + count);
                } else {
                    // One frame before primes the decoder; the take's frames that span the
                    // shot at its own rate, and one more for the resampler.
                    let warm = first.min(1);
                    let spanned = (count * take_rate).div_ceil(rate) + 1;
                    let frames = read(first - warm..first + spanned);
                    copied = transcode::into_track(
                        &frames,
                        warm as usize,
                        take_shape,
                        shape,
                        count as usize,
                    )?;
                }
            }
        }
        let padded = copied.len() as u64..count;
        for frame in copied.into_iter().chain(padded.map(|_| silence.clone())) {
            write(written * FRAME, frame)?;
            written += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shot(in_frame: u64, out_frame: u64) -> ExportShot {
        ExportShot {
            label: "s".into(),
            file_name: "t.mp4".into(),
            key: "t.mp4".into(),
            in_frame,
            out_frame,
        }
    }

    #[test]
    fn silent_shots_keep_the_track_within_half_a_frame_of_the_video() {
        let shape = Shape {
            freq_index: SampleFreqIndex::Freq48000,
            channels: ChannelConfig::Stereo,
        };
        // 500 shots of 7 frames at 24 fps: 145.83 s of video.
        let shots: Vec<ExportShot> = (0..500).map(|_| shot(0, 7)).collect();
        let shapes = vec![None; 500];
        let mut starts = Vec::new();
        write_track(
            &shots,
            24,
            shape,
            &shapes,
            |_| panic!("no take is read for silence"),
            |start, frame| {
                assert_eq!(&frame[..], SILENT_STEREO);
                starts.push(start);
                Ok(())
            },
        )
        .unwrap();
        let video = 500.0 * 7.0 / 24.0;
        let audio = starts.len() as f64 * 1024.0 / 48_000.0;
        assert!(
            (audio - video).abs() <= 512.0 / 48_000.0,
            "{audio} vs {video}"
        );
        assert!(starts.windows(2).all(|w| w[1] == w[0] + 1024));
    }
}
