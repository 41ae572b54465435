//! The lanes under the shots, a sample at a time: each lane plays its clips where they start
//! on the cut (a clip's sound decoded from its in point, resampled to the track's rate, with
//! its gain and fades), and the music drops by the duck under every voice clip, reaching it
//! over 250 ms before the voice and leaving it over 250 ms after. One clip of each lane is
//! open at a time.

use super::resample::{Blocks, Resampled};
use super::Source;
use crate::engine::EngineError;
use crate::sequences::export::{ExportLaneClip, LaneKind};
use crate::sounds::decode::Decoded;
use studio_core::sequence::lanes::{duck_depth, DUCK_RAMP_S};

/// A clip placed on the track, in samples at its rate.
struct Placed<'a> {
    clip: &'a ExportLaneClip,
    start: u64,
    length: u64,
    gain: f32,
    fade_in: u64,
    fade_out: u64,
}

impl Placed<'_> {
    fn end(&self) -> u64 {
        self.start + self.length
    }

    /// The clip's gain with its fades, `made` samples in.
    fn gain_at(&self, made: u64) -> f32 {
        let ramp = |n: u64, of: u64| {
            if of == 0 || n >= of {
                1.0
            } else {
                (n as f32 + 0.5) / of as f32
            }
        };
        self.gain * ramp(made, self.fade_in) * ramp(self.length - 1 - made, self.fade_out)
    }
}

/// A clip playing: where its samples come from and how many it has given.
struct Playing {
    source: Source,
    block: [Vec<f32>; 2],
    at: usize,
    made: u64,
    ended: bool,
}

/// One lane's clips in order, the next one to play and the one playing.
struct Lane<'a> {
    clips: Vec<Placed<'a>>,
    next: usize,
    playing: Option<Playing>,
}

/// Opens the sound of a clip from a point in seconds.
pub type Open<'o> = dyn FnMut(&ExportLaneClip, f64) -> Result<Decoded, EngineError> + 'o;

impl<'a> Lane<'a> {
    fn new(clips: &'a [ExportLaneClip], kind: LaneKind, fps: u32, rate: u64) -> Lane<'a> {
        let samples = |frames: u64| (frames * rate * 2 + u64::from(fps)) / (u64::from(fps) * 2);
        let clips = clips
            .iter()
            .filter(|c| c.lane == kind)
            .map(|placed| {
                let clip = &placed.clip;
                Placed {
                    clip: placed,
                    start: samples(clip.start_frame),
                    length: samples(clip.out_frame) - samples(clip.in_frame),
                    gain: 10f32.powf(clip.gain_db as f32 / 20.0),
                    fade_in: (clip.fade_in_s * rate as f64) as u64,
                    fade_out: (clip.fade_out_s * rate as f64) as u64,
                }
            })
            .collect();
        Lane {
            clips,
            next: 0,
            playing: None,
        }
    }

    /// The lane's sample at `t`.
    fn sample(
        &mut self,
        t: u64,
        rate: u64,
        fps: u32,
        open: &mut Open,
    ) -> Result<[f32; 2], EngineError> {
        if self.playing.is_none() {
            let Some(placed) = self.clips.get(self.next) else {
                return Ok([0.0; 2]);
            };
            if t < placed.start {
                return Ok([0.0; 2]);
            }
            let from = crate::sequences::frames::seconds(placed.clip.clip.in_frame, fps);
            let mut decoded = open(placed.clip, from)?;
            let source: Source = if u64::from(decoded.rate()) == rate {
                Box::new(move || Ok(decoded.next_block()))
            } else {
                let from_rate = u64::from(decoded.rate());
                let blocks: Blocks = Box::new(move || decoded.next_block());
                let mut resampled = Resampled::new(blocks, from_rate, rate)?;
                Box::new(move || resampled.next())
            };
            self.playing = Some(Playing {
                source,
                block: [Vec::new(), Vec::new()],
                at: 0,
                made: 0,
                ended: false,
            });
        }
        let placed = &self.clips[self.next];
        let Some(playing) = self.playing.as_mut() else {
            return Ok([0.0; 2]);
        };
        while !playing.ended && playing.at >= playing.block[0].len() {
            match (playing.source)()? {
                Some(block) => {
                    playing.block = block;
                    playing.at = 0;
                }
                None => playing.ended = true,
            }
        }
        let out = if playing.ended {
            [0.0; 2]
        } else {
            let g = placed.gain_at(playing.made);
            let at = playing.at;
            playing.at += 1;
            [playing.block[0][at] * g, playing.block[1][at] * g]
        };
        playing.made += 1;
        if playing.made >= placed.length {
            self.playing = None;
            self.next += 1;
        }
        Ok(out)
    }
}

/// The lanes' sound under the shots, a sample at a time from the cut's start.
pub struct Lanes<'a, 'o> {
    music: Lane<'a>,
    voice: Lane<'a>,
    /// The voice clips' spans, in order, and the first that may still duck.
    voices: Vec<(u64, u64)>,
    first_voice: usize,
    duck_db: f64,
    ramp: u64,
    t: u64,
    rate: u64,
    fps: u32,
    open: Box<Open<'o>>,
}

impl<'a, 'o> Lanes<'a, 'o> {
    pub fn new(
        clips: &'a [ExportLaneClip],
        duck_db: f64,
        fps: u32,
        rate: u64,
        open: Box<Open<'o>>,
    ) -> Lanes<'a, 'o> {
        let voice = Lane::new(clips, LaneKind::Voice, fps, rate);
        let voices = voice.clips.iter().map(|c| (c.start, c.end())).collect();
        Lanes {
            music: Lane::new(clips, LaneKind::Music, fps, rate),
            voice,
            voices,
            first_voice: 0,
            duck_db,
            ramp: ((DUCK_RAMP_S * rate as f64) as u64).max(1),
            t: 0,
            rate,
            fps,
            open,
        }
    }

    /// How far the music is ducked at `t`, 0 (not) to 1 (by the whole duck).
    fn ducked(&mut self, t: u64) -> f64 {
        let ramp = self.ramp;
        while self
            .voices
            .get(self.first_voice)
            .is_some_and(|&(_, end)| end + ramp <= t)
        {
            self.first_voice += 1;
        }
        self.voices[self.first_voice..]
            .iter()
            .take_while(|&&(start, _)| start <= t + ramp)
            .map(|&(start, end)| duck_depth(t as f64, (start as f64, end as f64), ramp as f64))
            .fold(0.0, f64::max)
    }

    /// The lanes' next sample.
    pub fn next(&mut self) -> Result<[f32; 2], EngineError> {
        let t = self.t;
        self.t += 1;
        let (rate, fps) = (self.rate, self.fps);
        let music = self.music.sample(t, rate, fps, &mut self.open)?;
        let voice = self.voice.sample(t, rate, fps, &mut self.open)?;
        let duck = if self.duck_db > 0.0 {
            10f64.powf(-self.duck_db * self.ducked(t) / 20.0) as f32
        } else {
            1.0
        };
        Ok([music[0] * duck + voice[0], music[1] * duck + voice[1]])
    }
}
