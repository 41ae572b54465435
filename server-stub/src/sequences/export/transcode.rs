//! Sound of another shape than the cut's track, made into the track's: a shot's AAC frames
//! decoded (FDK AAC), made stereo, resampled to the track's rate (rubato) and encoded again as
//! AAC-LC stereo (FDK AAC). Copying frames cannot change a rate or a channel count; this is
//! the road for the takes whose sound differs from the track's, and only for them.

use bytes::Bytes;
use fdk_aac::dec::{Decoder, Transport as DecoderTransport};
use fdk_aac::enc::{BitRate, Encoder, EncoderParams, Transport};
use rubato::{
    Resampler, SincFixedIn, SincInterpolationParameters, SincInterpolationType, WindowFunction,
};

use super::audio::{Shape, FRAME};
use crate::engine::EngineError;

const CHANNELS: usize = 2;
const FRAME_LEN: usize = FRAME as usize;

fn failed(what: &str, e: impl std::fmt::Debug) -> EngineError {
    EngineError::Encode(format!("the sound could not be {what}: {e:?}"))
}

/// An ADTS header for one raw AAC-LC frame of `shape` (what the FDK decoder reads).
fn adts(shape: Shape, frame: &[u8]) -> Vec<u8> {
    let length = frame.len() + 7;
    let index = shape.freq_index as u8;
    let channels = shape.channels as u8;
    let mut out = vec![
        0xff,
        0xf1,
        (1 << 6) | (index << 2) | (channels >> 2),
        ((channels & 3) << 6) | ((length >> 11) as u8 & 3),
        (length >> 3) as u8,
        (((length & 7) as u8) << 5) | 0x1f,
        0xfc,
    ];
    out.extend_from_slice(frame);
    out
}

/// The frames decoded as two channels of samples; a frame that cannot be decoded is silence.
fn decode(shape: Shape, frames: &[Bytes]) -> Result<[Vec<f32>; CHANNELS], EngineError> {
    let mut decoder = Decoder::new(DecoderTransport::Adts);
    decoder
        .set_min_output_channels(CHANNELS)
        .and_then(|()| decoder.set_max_output_channels(CHANNELS))
        .map_err(|e| failed("decoded", e))?;
    let mut pcm = vec![0i16; FRAME_LEN * CHANNELS * 2];
    let mut out = [Vec::new(), Vec::new()];
    for frame in frames {
        let decoded = decoder
            .fill(&adts(shape, frame))
            .and_then(|_| decoder.decode_frame(&mut pcm));
        let samples = match decoded {
            Ok(()) => &pcm[..decoder.decoded_frame_size().min(pcm.len())],
            Err(_) => &[][..],
        };
        for (channel, wave) in out.iter_mut().enumerate() {
            let mut these: Vec<f32> = samples
                .iter()
                .skip(channel)
                .step_by(CHANNELS)
                .map(|&s| f32::from(s) / 32768.0)
                .collect();
            these.resize(FRAME_LEN, 0.0);
            wave.extend(these);
        }
    }
    Ok(out)
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

/// Two channels of samples encoded as `count` AAC-LC stereo frames at `rate`, the encoder's
/// delay taken off so that frame n holds samples n * 1024 onwards.
fn encode(wave: &[Vec<f32>; CHANNELS], rate: u32, count: usize) -> Result<Vec<Bytes>, EngineError> {
    let encoder = Encoder::new(EncoderParams {
        bit_rate: BitRate::Cbr(128_000),
        sample_rate: rate,
        transport: Transport::Raw,
    })
    .map_err(|e| failed("encoded", e))?;
    let delay = encoder.info().map_err(|e| failed("encoded", e))?.nDelay as usize;
    // Silence before, so that the delay ends on a frame's start and whole frames are dropped.
    let lead = (FRAME_LEN - delay % FRAME_LEN) % FRAME_LEN;
    let dropped = (delay + lead) / FRAME_LEN;
    let total = lead + (count + dropped + 1) * FRAME_LEN;
    let mut interleaved = Vec::with_capacity(total * CHANNELS);
    for n in 0..total {
        let sample = |c: usize| {
            let s = n
                .checked_sub(lead)
                .and_then(|i| wave[c].get(i))
                .copied()
                .unwrap_or(0.0);
            (s * 32767.0).clamp(-32768.0, 32767.0) as i16
        };
        interleaved.extend([sample(0), sample(1)]);
    }
    let mut frames = Vec::with_capacity(count + dropped);
    let mut output = vec![0u8; 8192];
    let mut input = &interleaved[..];
    while frames.len() < count + dropped && !input.is_empty() {
        let info = encoder
            .encode(input, &mut output)
            .map_err(|e| failed("encoded", e))?;
        input = &input[info.input_consumed.min(input.len())..];
        if info.output_size > 0 {
            frames.push(Bytes::copy_from_slice(&output[..info.output_size]));
        }
        if info.input_consumed == 0 && info.output_size == 0 {
            break;
        }
    }
    Ok(frames.into_iter().skip(dropped).take(count).collect())
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
    let [mut left, mut right] = decode(take, frames)?;
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
