//! Sound at another rate, a block at a time: windowed-sinc resampling (rubato), the
//! resampler's delay taken off so that the first sample out is the first sample in.

use rubato::{
    Resampler, SincFixedIn, SincInterpolationParameters, SincInterpolationType, WindowFunction,
};

use super::{failed, FRAME_LEN};
use crate::engine::EngineError;

/// Where samples come from: the next block of two channels, until `None`.
pub type Blocks = Box<dyn FnMut() -> Option<[Vec<f32>; 2]>>;

/// A take's sound at another rate, a block at a time (the resampler's delay taken off).
pub struct Resampled {
    source: Blocks,
    resampler: SincFixedIn<f32>,
    /// Input waiting for a whole block.
    input: [Vec<f32>; 2],
    /// Output samples still to drop (the resampler's delay).
    delay: usize,
    ended: bool,
}

impl Resampled {
    pub fn new(source: Blocks, from: u64, to: u64) -> Result<Resampled, EngineError> {
        // Windowed sinc with rubato's suggested parameters: not its FFT resampler, which
        // brings rustfft, a long build, into every first start.
        let parameters = SincInterpolationParameters {
            sinc_len: 256,
            f_cutoff: 0.95,
            oversampling_factor: 128,
            interpolation: SincInterpolationType::Linear,
            window: WindowFunction::BlackmanHarris2,
        };
        let resampler =
            SincFixedIn::<f32>::new(to as f64 / from as f64, 1.0, parameters, FRAME_LEN, 2)
                .map_err(|e| failed("resampled", e))?;
        Ok(Resampled {
            delay: resampler.output_delay(),
            source,
            resampler,
            input: [Vec::new(), Vec::new()],
            ended: false,
        })
    }

    pub fn next(&mut self) -> Result<Option<[Vec<f32>; 2]>, EngineError> {
        loop {
            let wanted = self.resampler.input_frames_next();
            while !self.ended && self.input[0].len() < wanted {
                match (self.source)() {
                    Some([left, right]) => {
                        self.input[0].extend(left);
                        self.input[1].extend(right);
                    }
                    None => self.ended = true,
                }
            }
            if self.input[0].is_empty() {
                return Ok(None);
            }
            let block: Vec<Vec<f32>> = self
                .input
                .iter_mut()
                .map(|channel| {
                    let take = wanted.min(channel.len());
                    let mut part: Vec<f32> = channel.drain(..take).collect();
                    part.resize(wanted, 0.0);
                    part
                })
                .collect();
            let mut out = self
                .resampler
                .process(&block, None)
                .map_err(|e| failed("resampled", e))?;
            let drop = self.delay.min(out[0].len());
            self.delay -= drop;
            for channel in &mut out {
                channel.drain(..drop);
            }
            if !out[0].is_empty() {
                let right = out.pop().unwrap_or_default();
                let left = out.pop().unwrap_or_default();
                return Ok(Some([left, right]));
            }
        }
    }
}
