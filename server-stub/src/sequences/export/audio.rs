//! What the export reads of its takes' sound: each take's AAC-LC track, its shape (rate and
//! channels), and its priming (the samples its edit list says are not played: 1024 from
//! ffmpeg, 2048 or more from other encoders). The track is made in `sound.rs`.

use std::io::{Seek, SeekFrom};

use mp4::{AacConfig, AudioObjectType, ChannelConfig, MediaType, Mp4Reader, SampleFreqIndex};

use super::take_reader::TakeReader;
use crate::frames::Video;

/// Samples in one AAC frame.
pub const FRAME: u64 = 1024;

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

    /// The track made when no take has sound (a cut of lanes only): 48 kHz stereo.
    pub fn stereo_48k() -> Shape {
        Shape {
            freq_index: SampleFreqIndex::Freq48000,
            channels: ChannelConfig::Stereo,
        }
    }

    pub fn config(self) -> AacConfig {
        AacConfig {
            bitrate: 0,
            profile: AudioObjectType::AacLowComplexity,
            freq_index: self.freq_index,
            chan_conf: self.channels,
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

/// The track's shape for takes whose sound has `shapes`: stereo (what the encoder makes) at
/// the first one's rate; `None` when no take has sound.
pub fn track_shape(shapes: &[Option<Shape>]) -> Option<Shape> {
    let first = shapes.iter().flatten().next().copied()?;
    Some(Shape {
        channels: ChannelConfig::Stereo,
        ..first
    })
}

/// The samples at the start of `track` that its edit list says are not played (the encoder's
/// priming), at `rate`; none without an edit list.
pub fn priming(reader: &Mp4Reader<Video<'_>>, track: u32, rate: u64) -> u64 {
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
