//! An H.264 MP4 written as it is encoded: each sample goes to `mdat` when it comes, and only
//! the sample tables stay in memory until `moov` closes the file, so the length of a cut never
//! sets the memory it takes (muxide, which the engine's short renders use, holds every sample
//! until the end to put `moov` first).

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use bytes::Bytes;
use mp4::{AvcConfig, MediaConfig, Mp4Config, Mp4Sample, Mp4Writer, TrackConfig, TrackType};

use crate::engine::EngineError;

/// The tracks' ids: the video is added first, the sound after it (the captions after both).
const VIDEO_TRACK: u32 = 1;
const AUDIO_TRACK: u32 = 2;

/// The NAL unit types that go in the sample entry (`avcC`), not in the samples.
const SPS: u8 = 7;
const PPS: u8 = 8;

fn mux_error(e: impl std::fmt::Display) -> EngineError {
    EngineError::Mux(e.to_string())
}

/// Splits an Annex B bitstream at its start codes, dropping the codes and the zero bytes that
/// pad them.
fn nal_units(annexb: &[u8]) -> Vec<&[u8]> {
    let mut units = Vec::new();
    let mut start = None;
    let mut i = 0;
    while i + 2 < annexb.len() {
        if annexb[i] == 0 && annexb[i + 1] == 0 && annexb[i + 2] == 1 {
            if let Some(s) = start {
                units.push(trim_zeros(&annexb[s..i]));
            }
            i += 3;
            start = Some(i);
        } else {
            i += 1;
        }
    }
    if let Some(s) = start {
        units.push(&annexb[s..]);
    }
    units.retain(|u| !u.is_empty());
    units
}

fn trim_zeros(unit: &[u8]) -> &[u8] {
    let end = unit.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    &unit[..end]
}

fn nal_type(unit: &[u8]) -> u8 {
    unit.first().map_or(0, |b| b & 0x1f)
}

/// The movie's clock, ticks a second: every picture of 24, 25 or 30 fps and every AAC frame
/// (1,024 samples) at 8 to 48 kHz (44.1 kHz included) lasts a whole number of its ticks. The
/// `mp4` crate adds each sample's length to the track header in the movie's ticks, dropping
/// the remainder: at 1,000 a 24 fps picture was 41 ms, and a 10 s export read 9.84 s.
pub const MOVIE_TIMESCALE: u32 = 7_056_000;

/// The MP4 being written: its track is added with the first keyframe's parameter sets.
pub struct Mp4Out {
    writer: Mp4Writer<BufWriter<File>>,
    size: (u16, u16),
    fps: u32,
    started: bool,
    sample: Vec<u8>,
}

impl Mp4Out {
    pub fn create(out: &Path, width: u32, height: u32, fps: u32) -> Result<Mp4Out, EngineError> {
        let config = Mp4Config {
            major_brand: str::parse("isom").map_err(mux_error)?,
            minor_version: 512,
            compatible_brands: ["isom", "iso2", "avc1", "mp41"]
                .into_iter()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(mux_error)?,
            timescale: MOVIE_TIMESCALE,
        };
        let size = (
            u16::try_from(width).map_err(mux_error)?,
            u16::try_from(height).map_err(mux_error)?,
        );
        Ok(Mp4Out {
            writer: Mp4Writer::write_start(BufWriter::new(File::create(out)?), &config)
                .map_err(mux_error)?,
            size,
            fps,
            started: false,
            sample: Vec::with_capacity(256 * 1024),
        })
    }

    /// Writes frame `index` (Annex B) as the track's next sample, one frame long.
    pub fn write(&mut self, index: u32, annexb: &[u8], key: bool) -> Result<(), EngineError> {
        let units = nal_units(annexb);
        if !self.started {
            let set = |kind| {
                units
                    .iter()
                    .find(|u| nal_type(u) == kind)
                    .map(|u| u.to_vec())
            };
            let (Some(sps), Some(pps)) = (set(SPS), set(PPS)) else {
                return Err(mux_error("the first frame has no parameter sets"));
            };
            self.writer
                .add_track(&TrackConfig {
                    track_type: TrackType::Video,
                    timescale: self.fps,
                    language: "und".into(),
                    media_conf: MediaConfig::AvcConfig(AvcConfig {
                        width: self.size.0,
                        height: self.size.1,
                        seq_param_set: sps,
                        pic_param_set: pps,
                    }),
                })
                .map_err(mux_error)?;
            self.started = true;
        }
        self.sample.clear();
        for unit in units.iter().filter(|u| !matches!(nal_type(u), SPS | PPS)) {
            let length = u32::try_from(unit.len()).map_err(mux_error)?;
            self.sample.extend_from_slice(&length.to_be_bytes());
            self.sample.extend_from_slice(unit);
        }
        self.writer
            .write_sample(
                VIDEO_TRACK,
                &Mp4Sample {
                    start_time: u64::from(index),
                    duration: 1,
                    rendering_offset: 0,
                    is_sync: key,
                    bytes: Bytes::copy_from_slice(&self.sample),
                },
            )
            .map_err(mux_error)
    }

    /// Adds the AAC track, of `config` (after the video's first frame).
    pub fn add_audio(&mut self, config: mp4::AacConfig) -> Result<(), EngineError> {
        self.writer
            .add_track(&TrackConfig {
                track_type: TrackType::Audio,
                timescale: config.freq_index.freq(),
                language: "und".into(),
                media_conf: MediaConfig::AacConfig(config),
            })
            .map_err(mux_error)?;
        Ok(())
    }

    /// Writes one AAC frame of the sound, starting at sample `start`.
    pub fn write_audio(&mut self, start: u64, frame: Bytes) -> Result<(), EngineError> {
        let sample = Mp4Sample {
            start_time: start,
            duration: super::audio::FRAME as u32,
            rendering_offset: 0,
            is_sync: true,
            bytes: frame,
        };
        self.writer
            .write_sample(AUDIO_TRACK, &sample)
            .map_err(mux_error)
    }

    /// Adds the captions as a 3GPP timed-text track (`tx3g`, what ffmpeg calls `mov_text`), at
    /// the cut's rate: each cue a sample of its text, the time between cues empty samples, to
    /// the cut's end at `frames`. The video (and the sound, when `audio`) are added before it.
    pub fn add_captions(
        &mut self,
        cues: &[(u64, u64, &str)],
        frames: u64,
        audio: bool,
    ) -> Result<(), EngineError> {
        self.writer
            .add_track(&TrackConfig {
                track_type: TrackType::Subtitle,
                timescale: self.fps,
                language: "und".into(),
                media_conf: MediaConfig::TtxtConfig(mp4::TtxtConfig {}),
            })
            .map_err(mux_error)?;
        let track = if audio { AUDIO_TRACK + 1 } else { AUDIO_TRACK };
        let mut at = 0;
        let mut write = |start: u64, end: u64, text: &str| -> Result<(), EngineError> {
            let length = u16::try_from(text.len()).map_err(mux_error)?;
            let mut bytes = length.to_be_bytes().to_vec();
            bytes.extend_from_slice(text.as_bytes());
            let sample = Mp4Sample {
                start_time: start,
                duration: u32::try_from(end - start).map_err(mux_error)?,
                rendering_offset: 0,
                is_sync: true,
                bytes: Bytes::from(bytes),
            };
            self.writer.write_sample(track, &sample).map_err(mux_error)
        };
        for &(start, end, text) in cues {
            if start > at {
                write(at, start, "")?;
            }
            write(start, end, text)?;
            at = end;
        }
        if frames > at {
            write(at, frames, "")?;
        }
        Ok(())
    }

    /// Writes `moov` and closes the file.
    pub fn finish(mut self) -> Result<(), EngineError> {
        self.writer.write_end().map_err(mux_error)?;
        use std::io::Write;
        self.writer.into_writer().flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_and_sound_frames_last_whole_movie_ticks() {
        for fps in [24, 25, 30] {
            assert_eq!(MOVIE_TIMESCALE % fps, 0, "{fps} fps");
        }
        for rate in [8_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000] {
            assert_eq!(
                u64::from(MOVIE_TIMESCALE) * super::super::audio::FRAME % rate,
                0,
                "{rate} Hz"
            );
        }
    }

    #[test]
    fn start_codes_of_three_and_four_bytes_split_the_units() {
        let stream = [
            0, 0, 0, 1, 0x67, 0xaa, 0, 0, 1, 0x68, 0xbb, 0, 0, 0, 1, 0x65, 1, 2,
        ];
        let units = nal_units(&stream);
        assert_eq!(units, [&[0x67, 0xaa][..], &[0x68, 0xbb], &[0x65, 1, 2]]);
        assert_eq!(
            units.iter().map(|u| nal_type(u)).collect::<Vec<_>>(),
            [7, 8, 5]
        );
    }
}
