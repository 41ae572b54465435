//! Sound of another shape than the cut's track, made into the track's: a shot's AAC frames
//! decoded, made stereo, resampled to the track's rate (rubato) and encoded again as AAC-LC
//! stereo. Copying frames cannot change a rate or a channel count; this is the road for the
//! takes whose sound differs from the track's, and only for them. The codec is rusty_aac, in
//! Rust: FDK AAC's C++ had been the longest step of a first start's server build.

use bytes::Bytes;
use mp4::ChannelConfig;
use rubato::{
    Resampler, SincFixedIn, SincInterpolationParameters, SincInterpolationType, WindowFunction,
};
use rusty_aac::{AacDecoder, AacEncoder, AacEncoderConfig, AudioSpecificConfig, Error};

use super::audio::{Shape, FRAME};
use crate::engine::EngineError;

const CHANNELS: usize = 2;
const FRAME_LEN: usize = FRAME as usize;
/// AAC-LC's object type in an `AudioSpecificConfig`.
const AAC_LC: u8 = 2;

fn failed(what: &str, e: impl std::fmt::Display) -> EngineError {
    EngineError::Encode(format!("the sound could not be {what}: {e}"))
}

/// The frames decoded as two channels of samples (mono heard on both); a frame that cannot
/// be decoded is silence.
fn decode(shape: Shape, frames: &[Bytes]) -> [Vec<f32>; CHANNELS] {
    let mut decoder = AacDecoder::with_config(AudioSpecificConfig {
        object_type: AAC_LC,
        sample_rate: shape.rate() as u32,
        channels: match shape.channels {
            ChannelConfig::Mono => 1,
            _ => 2,
        },
    });
    let mut out = [Vec::new(), Vec::new()];
    for frame in frames {
        let decoded = decoder.decode(frame, None).ok();
        let (samples, channels) = decoded.as_ref().map_or((&[][..], 1), |d| {
            (&d.samples[..], usize::from(d.channels.max(1)))
        });
        for (channel, wave) in out.iter_mut().enumerate() {
            let mut these: Vec<f32> = samples
                .iter()
                .skip(channel.min(channels - 1))
                .step_by(channels)
                .copied()
                .collect();
            these.resize(FRAME_LEN, 0.0);
            wave.extend(these);
        }
    }
    out
}

/// `wave` at `from` Hz made `to` Hz, `wanted` samples of it, aligned (the resampler's delay
/// taken off).
fn resample(
    wave: [Vec<f32>; CHANNELS],
    from: usize,
    to: usize,
    wanted: usize,
) -> Result<[Vec<f32>; CHANNELS], EngineError> {
    if from == to {
        return Ok(wave.map(|mut w| {
            w.resize(wanted, 0.0);
            w
        }));
    }
    // Windowed sinc, with rubato's suggested starting parameters: not its FFT resampler,
    // which brings rustfft, a long build, into every first start.
    let parameters = SincInterpolationParameters {
        sinc_len: 256,
        f_cutoff: 0.95,
        oversampling_factor: 128,
        interpolation: SincInterpolationType::Linear,
        window: WindowFunction::BlackmanHarris2,
    };
    let ratio = to as f64 / from as f64;
    let mut resampler = SincFixedIn::<f32>::new(ratio, 1.0, parameters, FRAME_LEN, CHANNELS)
        .map_err(|e| failed("resampled", e))?;
    let delay = resampler.output_delay();
    let [left, right] = wave;
    let mut out = [Vec::new(), Vec::new()];
    let mut at = 0;
    while out[0].len() < delay + wanted {
        let take = resampler.input_frames_next();
        let chunk = |w: &[f32]| {
            let mut part: Vec<f32> = w.iter().skip(at).take(take).copied().collect();
            part.resize(take, 0.0);
            part
        };
        let done = resampler
            .process(&[chunk(&left), chunk(&right)], None)
            .map_err(|e| failed("resampled", e))?;
        for (all, part) in out.iter_mut().zip(done) {
            all.extend(part);
        }
        at += take;
    }
    Ok(out.map(|w| w[delay..delay + wanted].to_vec()))
}

/// Two channels of samples encoded as `count` AAC-LC stereo frames at `rate`. The encoder's
/// first frame is its priming (a decoder's first output is the frame before the sound), so
/// frame n + 1 holds samples n * 1024 onwards and the first is dropped.
fn encode(wave: &[Vec<f32>; CHANNELS], rate: u32, count: usize) -> Result<Vec<Bytes>, EngineError> {
    let mut encoder = AacEncoder::new(AacEncoderConfig {
        bitrate_bps: 128_000,
        ..AacEncoderConfig::default()
    });
    let planes: Vec<&[f32]> = wave.iter().map(|w| &w[..count * FRAME_LEN]).collect();
    encoder
        .push_pcm_planar(&planes, rate)
        .map_err(|e| failed("encoded", e))?;
    encoder.finish();
    let mut frames = Vec::with_capacity(count + 1);
    loop {
        match encoder.next_packet() {
            Ok(packet) => frames.push(Bytes::from(packet.data)),
            Err(Error::Eof) => break,
            Err(e) => return Err(failed("encoded", e)),
        }
    }
    Ok(frames.into_iter().skip(1).take(count).collect())
}

/// `count` frames of the `track`'s shape made from a take's `frames` of shape `take` (the
/// first `warm` of them only prime the decoder).
pub fn into_track(
    frames: &[Bytes],
    warm: usize,
    take: Shape,
    track: Shape,
    count: usize,
) -> Result<Vec<Bytes>, EngineError> {
    let [mut left, mut right] = decode(take, frames);
    let primed = (warm * FRAME_LEN).min(left.len());
    left.drain(..primed);
    right.drain(..primed);
    let wanted = count * FRAME_LEN;
    let wave = resample(
        [left, right],
        take.rate() as usize,
        track.rate() as usize,
        wanted,
    )?;
    encode(&wave, track.rate() as u32, count)
}
