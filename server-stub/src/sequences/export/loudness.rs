//! A cut's sound brought to a loudness standard: `web` (-14 LUFS integrated, what the large
//! streaming platforms play at) or `broadcast` (EBU R 128: -23 LUFS), true peak at most -1 dBTP
//! in both. Measured as ITU-R BS.1770-4 says, with the `ebur128` crate (the Rust port of
//! libebur128, which ffmpeg's own meter follows).
//!
//! The export makes the cut's sound twice: once into a meter (`Meter`), which gives the gain
//! that brings its integrated loudness to the target, and once with that gain through a
//! true-peak limiter (`Limiter`) into the encoder, measuring what it gives the encoder as it
//! goes. The limiter looks one block (10 ms) ahead: each block's true peak (4x oversampled) is
//! known before the block is written, the gain ramps down to it over the block before, and
//! rises again by at most `RELEASE_DB` a block. Memory does not grow with the cut's length.

use ebur128::{EbuR128, Mode};
use serde::{Deserialize, Serialize};

use crate::engine::EngineError;

/// The loudness a cut is brought to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Loudness {
    /// -14 LUFS integrated, true peak at most -1 dBTP.
    Web,
    /// EBU R 128: -23 LUFS integrated, true peak at most -1 dBTP.
    Broadcast,
    /// The takes' sound as it is.
    #[default]
    Off,
}

impl Loudness {
    /// The integrated loudness aimed at, in LUFS.
    pub fn target_lufs(self) -> Option<f64> {
        match self {
            Loudness::Web => Some(-14.0),
            Loudness::Broadcast => Some(-23.0),
            Loudness::Off => None,
        }
    }
}

/// The highest true peak allowed, in dBTP.
pub const MAX_TRUE_PEAK_DBTP: f64 = -1.0;
/// Where the limiter holds true peaks: half a decibel under the limit, for what the AAC
/// encoder adds.
const CEILING_DBTP: f64 = -1.5;
/// The limiter's block: 10 ms at 48 kHz.
const BLOCK: usize = 480;
/// How fast the limiter's gain may rise again, in dB a block (50 dB a second).
const RELEASE_DB: f64 = 0.5;
/// The most gain a quiet cut is given, in dB: a near-silent one is not made into noise.
const MAX_GAIN_DB: f64 = 30.0;

/// What the export measured of the sound it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Integrated loudness, LUFS (`null` for silence).
    pub integrated_lufs: Option<f64>,
    /// The highest true peak of either channel, dBTP (`null` for silence).
    pub true_peak_dbtp: Option<f64>,
    /// Loudness range, LU.
    pub lra: f64,
}

fn failed(e: ebur128::Error) -> EngineError {
    EngineError::Encode(format!("the sound could not be measured: {e}"))
}

/// `x` in dB, `None` for silence.
fn decibels(x: f64) -> Option<f64> {
    (x > 0.0 && x.is_finite()).then(|| 20.0 * x.log10())
}

/// A loudness meter of two channels, given samples one at a time or a block at a time.
pub struct Meter {
    ebu: EbuR128,
    /// Samples not measured yet.
    buffer: [Vec<f32>; 2],
}

impl Meter {
    /// A meter for the integrated loudness at `rate`; with `whole`, true peak and range too.
    pub fn new(rate: u32, whole: bool) -> Result<Meter, EngineError> {
        let mode = if whole {
            Mode::I | Mode::LRA | Mode::TRUE_PEAK | Mode::HISTOGRAM
        } else {
            Mode::I | Mode::HISTOGRAM
        };
        Ok(Meter {
            ebu: EbuR128::new(2, rate, mode).map_err(failed)?,
            buffer: [Vec::new(), Vec::new()],
        })
    }

    pub fn push(&mut self, left: f32, right: f32) -> Result<(), EngineError> {
        self.buffer[0].push(left);
        self.buffer[1].push(right);
        if self.buffer[0].len() == 10 * BLOCK {
            self.flush()?;
        }
        Ok(())
    }

    pub fn add(&mut self, left: &[f32], right: &[f32]) -> Result<(), EngineError> {
        self.flush()?;
        self.ebu
            .add_frames_planar_f32(&[left, right])
            .map_err(failed)
    }

    fn flush(&mut self) -> Result<(), EngineError> {
        let [left, right] = &mut self.buffer;
        if !left.is_empty() {
            self.ebu
                .add_frames_planar_f32(&[left, right])
                .map_err(failed)?;
            left.clear();
            right.clear();
        }
        Ok(())
    }

    /// The integrated loudness, LUFS; `None` for silence.
    pub fn integrated(&mut self) -> Result<Option<f64>, EngineError> {
        self.flush()?;
        Ok(self.ebu.loudness_global().ok().filter(|l| l.is_finite()))
    }

    /// The gain, linear, that brings what was measured to `target` LUFS (none for silence).
    pub fn gain_to(&mut self, target: f64) -> Result<f32, EngineError> {
        Ok(self.integrated()?.map_or(1.0, |l| {
            10f64.powf((target - l).min(MAX_GAIN_DB) / 20.0) as f32
        }))
    }

    pub fn measured(&mut self) -> Result<Measured, EngineError> {
        let integrated_lufs = self.integrated()?;
        let peak = (0..2)
            .map(|c| self.ebu.true_peak(c).map_err(failed))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .fold(0.0, f64::max);
        Ok(Measured {
            integrated_lufs,
            true_peak_dbtp: decibels(peak),
            lra: self.ebu.loudness_range().map_err(failed)?,
        })
    }
}

/// A look-ahead true-peak limiter, then a meter of what it lets through, in front of `out`.
pub struct Limiter<F> {
    /// Its own true-peak meter, one block at a time.
    peaks: EbuR128,
    ceiling: f64,
    release: f64,
    /// The block being filled.
    filling: [Vec<f32>; 2],
    /// The block before it, waiting for the next one's peak, and the most gain it may have.
    waiting: Option<([Vec<f32>; 2], f64)>,
    /// The gain at the waiting block's start.
    gain: f64,
    meter: Meter,
    out: F,
}

impl<F: FnMut(f32, f32) -> Result<(), EngineError>> Limiter<F> {
    pub fn new(rate: u32, out: F) -> Result<Limiter<F>, EngineError> {
        Ok(Limiter {
            peaks: EbuR128::new(2, rate, Mode::TRUE_PEAK).map_err(failed)?,
            ceiling: 10f64.powf(CEILING_DBTP / 20.0),
            release: 10f64.powf(RELEASE_DB / 20.0),
            filling: [Vec::with_capacity(BLOCK), Vec::with_capacity(BLOCK)],
            waiting: None,
            gain: 1.0,
            meter: Meter::new(rate, true)?,
            out,
        })
    }

    pub fn push(&mut self, left: f32, right: f32) -> Result<(), EngineError> {
        self.filling[0].push(left);
        self.filling[1].push(right);
        if self.filling[0].len() == BLOCK {
            self.block()?;
        }
        Ok(())
    }

    /// The filled block's peak measured: the block before it written.
    fn block(&mut self) -> Result<(), EngineError> {
        let block = std::mem::replace(
            &mut self.filling,
            [Vec::with_capacity(BLOCK), Vec::with_capacity(BLOCK)],
        );
        self.peaks
            .add_frames_planar_f32(&[&block[0], &block[1]])
            .map_err(failed)?;
        let peak = (0..2)
            .map(|c| self.peaks.prev_true_peak(c).map_err(failed))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .fold(0.0, f64::max);
        let most = if peak > self.ceiling {
            self.ceiling / peak
        } else {
            1.0
        };
        if let Some((before, before_most)) = self.waiting.take() {
            self.write(before, before_most.min(most))?;
        } else {
            self.gain = most;
        }
        self.waiting = Some((block, most));
        Ok(())
    }

    /// Writes `block` with the gain ramping from where it is to `end` (at most the release
    /// above it), never above the most the block may have, which both ends are within.
    fn write(&mut self, block: [Vec<f32>; 2], end: f64) -> Result<(), EngineError> {
        let start = self.gain;
        let end = end.min(start * self.release);
        let n = block[0].len().max(1) as f64;
        let [left, right] = block;
        let mut limited = [
            Vec::with_capacity(left.len()),
            Vec::with_capacity(left.len()),
        ];
        for (i, (l, r)) in left.into_iter().zip(right).enumerate() {
            let g = (start + (end - start) * (i as f64 + 1.0) / n) as f32;
            limited[0].push(l * g);
            limited[1].push(r * g);
        }
        self.gain = end;
        self.meter.add(&limited[0], &limited[1])?;
        for (l, r) in limited[0].iter().zip(&limited[1]) {
            (self.out)(*l, *r)?;
        }
        Ok(())
    }

    /// Writes what is left: what it measured.
    pub fn finish(mut self) -> Result<Measured, EngineError> {
        if !self.filling[0].is_empty() {
            self.block()?;
        }
        if let Some((last, most)) = self.waiting.take() {
            self.write(last, most)?;
        }
        self.meter.measured()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    /// `seconds` of a sine of `hz` at `amplitude` on both channels.
    fn sine(hz: f64, amplitude: f32, seconds: f64) -> Vec<f32> {
        (0..(seconds * f64::from(RATE)) as usize)
            .map(|i| {
                amplitude
                    * (2.0 * std::f64::consts::PI * hz * i as f64 / f64::from(RATE)).sin() as f32
            })
            .collect()
    }

    fn limited(samples: &[f32]) -> (Vec<f32>, Measured) {
        let mut out = Vec::new();
        let mut limiter = Limiter::new(RATE, |l, _| {
            out.push(l);
            Ok(())
        })
        .unwrap();
        for s in samples {
            limiter.push(*s, *s).unwrap();
        }
        let measured = limiter.finish().unwrap();
        (out, measured)
    }

    /// A 997 Hz sine of peak 0.1 (-20 dBFS) on both channels reads -20 LUFS, as BS.1770's
    /// calibration says (at 997 Hz the K-weighting gives back the 0.691 dB its sum takes).
    #[test]
    fn the_meter_reads_a_reference_tone() {
        let tone = sine(997.0, 0.1, 5.0);
        let mut meter = Meter::new(RATE, true).unwrap();
        for s in &tone {
            meter.push(*s, *s).unwrap();
        }
        let measured = meter.measured().unwrap();
        let lufs = measured.integrated_lufs.unwrap();
        assert!((lufs - -20.0).abs() < 0.1, "{lufs}");
        let peak = measured.true_peak_dbtp.unwrap();
        assert!((peak - -20.0).abs() < 0.1, "{peak}");
        assert!(
            (meter.gain_to(-14.0).unwrap() - 2.0).abs() < 0.01,
            "6 dB up"
        );
    }

    /// Fails with no limiter, or one that lets a block through before its peak is known: a
    /// burst at 0 dBFS after a quiet start is held under the ceiling, from its first sample.
    #[test]
    fn a_sudden_peak_is_held_under_the_ceiling() {
        let mut samples = sine(440.0, 0.05, 1.0);
        samples.extend(sine(440.0, 1.0, 0.5));
        samples.extend(sine(440.0, 0.05, 1.0));
        let (out, measured) = limited(&samples);
        assert_eq!(out.len(), samples.len(), "every sample, in order");
        let highest = out.iter().fold(0f32, |m, s| m.max(s.abs()));
        assert!(
            f64::from(highest) <= 10f64.powf(CEILING_DBTP / 20.0) + 1e-3,
            "{highest}"
        );
        assert!(measured.true_peak_dbtp.unwrap() <= MAX_TRUE_PEAK_DBTP);
        // The quiet start, far from the burst, is untouched.
        assert_eq!(out[..BLOCK * 10], samples[..BLOCK * 10]);
    }

    #[test]
    fn silence_measures_as_none_and_is_given_no_gain() {
        let (out, measured) = limited(&vec![0.0; RATE as usize]);
        assert!(out.iter().all(|s| *s == 0.0));
        assert_eq!(measured.integrated_lufs, None);
        assert_eq!(measured.true_peak_dbtp, None);
        let mut meter = Meter::new(RATE, false).unwrap();
        assert_eq!(meter.gain_to(-14.0).unwrap(), 1.0);
    }
}
