//! Sound files read with symphonia, a packet at a time: what a file is (`probe`, which decodes
//! it whole to know it plays to its end), and its samples from a point on as two channels at
//! its own rate (`Decoded`), for the export's lanes. Memory does not grow with a file's length.

use std::io::ErrorKind;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{Decoder, DecoderOptions, CODEC_TYPE_NULL, CODEC_TYPE_OPUS};
use symphonia::core::errors::Error;
use symphonia::core::formats::{FormatOptions, FormatReader, SeekMode, SeekTo};
use symphonia::core::io::{MediaSource, MediaSourceStream};
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;
use symphonia::core::units::Time;

/// Why a file is not a sound this server keeps.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not a sound file it reads (415).
    #[error("Not a sound file this server reads (WAV, FLAC, MP3, AAC/M4A or Ogg Vorbis): {0}")]
    NotSound(String),
    /// A sound file that does not decode (422).
    #[error("The sound file is damaged: {0}")]
    Damaged(String),
}

/// What a sound file is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probed {
    pub duration_s: f64,
    pub sample_rate: u32,
    pub channels: u16,
}

/// A file's format and its first audio track's decoder.
struct Opened {
    format: Box<dyn FormatReader>,
    decoder: Box<dyn Decoder>,
    track: u32,
    rate: u32,
}

fn open(source: Box<dyn MediaSource>) -> Result<Opened, DecodeError> {
    let stream = MediaSourceStream::new(source, Default::default());
    let probed = symphonia::default::get_probe()
        .format(
            &Hint::new(),
            stream,
            &FormatOptions::default(),
            &MetadataOptions::default(),
        )
        .map_err(|e| match e {
            // A format it knows that stops before its sound does.
            Error::IoError(e) => DecodeError::Damaged(format!("it ends early ({e})")),
            e => DecodeError::NotSound(e.to_string()),
        })?;
    let format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or_else(|| DecodeError::NotSound("it holds no sound".into()))?;
    if track.codec_params.codec == CODEC_TYPE_OPUS {
        return Err(DecodeError::NotSound(
            "Opus is not decoded here; send it as Ogg Vorbis, FLAC or WAV".into(),
        ));
    }
    let rate = track
        .codec_params
        .sample_rate
        .ok_or_else(|| DecodeError::Damaged("it names no sample rate".into()))?;
    let decoder = symphonia::default::get_codecs()
        .make(&track.codec_params, &DecoderOptions::default())
        .map_err(|e| DecodeError::NotSound(e.to_string()))?;
    Ok(Opened {
        track: track.id,
        format,
        decoder,
        rate,
    })
}

/// The next packet of `opened`'s track decoded as interleaved samples and their channel count;
/// `None` at the end.
fn next(opened: &mut Opened) -> Result<Option<(Vec<f32>, usize)>, DecodeError> {
    loop {
        let packet = match opened.format.next_packet() {
            Ok(packet) => packet,
            Err(Error::IoError(e)) if e.kind() == ErrorKind::UnexpectedEof => return Ok(None),
            Err(Error::ResetRequired) => return Ok(None),
            Err(e) => return Err(DecodeError::Damaged(e.to_string())),
        };
        if packet.track_id() != opened.track {
            continue;
        }
        let decoded = opened
            .decoder
            .decode(&packet)
            .map_err(|e| DecodeError::Damaged(e.to_string()))?;
        let spec = *decoded.spec();
        let mut samples = SampleBuffer::<f32>::new(decoded.capacity() as u64, spec);
        samples.copy_interleaved_ref(decoded);
        return Ok(Some((samples.samples().to_vec(), spec.channels.count())));
    }
}

/// What `source` is, decoded to its end: refused when it is not a sound or does not decode.
pub fn probe(source: Box<dyn MediaSource>) -> Result<Probed, DecodeError> {
    let mut opened = open(source)?;
    let (mut frames, mut channels) = (0u64, 0usize);
    while let Some((samples, count)) = next(&mut opened)? {
        channels = channels.max(count);
        frames += (samples.len() / count.max(1)) as u64;
    }
    if frames == 0 {
        return Err(DecodeError::Damaged("it holds no samples".into()));
    }
    Ok(Probed {
        duration_s: frames as f64 / f64::from(opened.rate),
        sample_rate: opened.rate,
        channels: channels as u16,
    })
}

/// A sound's samples from a point on, two channels at its own rate (mono heard on both, more
/// than two: the first two), a packet at a time.
pub struct Decoded {
    opened: Opened,
    /// Samples of the next packets still to pass over (from the seek to the point).
    skip: u64,
}

impl Decoded {
    /// `source` from `from_s` seconds on.
    pub fn open(source: Box<dyn MediaSource>, from_s: f64) -> Result<Decoded, DecodeError> {
        let mut opened = open(source)?;
        let wanted = (from_s * f64::from(opened.rate)).round() as u64;
        let mut skip = wanted;
        if wanted > 0 {
            let to = SeekTo::Time {
                time: Time::from(from_s),
                track_id: Some(opened.track),
            };
            // A file that cannot seek is read from its start.
            if let Ok(seeked) = opened.format.seek(SeekMode::Accurate, to) {
                opened.decoder.reset();
                skip = seeked.required_ts.saturating_sub(seeked.actual_ts);
            }
        }
        Ok(Decoded { opened, skip })
    }

    pub fn rate(&self) -> u32 {
        self.opened.rate
    }

    /// The next samples as two channels; `None` at the end (or where the file stops decoding).
    pub fn next_block(&mut self) -> Option<[Vec<f32>; 2]> {
        loop {
            let (samples, count) = next(&mut self.opened).ok()??;
            let count = count.max(1);
            let frames = samples.len() / count;
            let skip = self.skip.min(frames as u64) as usize;
            self.skip -= skip as u64;
            if skip == frames {
                continue;
            }
            let channel = |c: usize| -> Vec<f32> {
                (skip..frames)
                    .map(|i| samples[i * count + c.min(count - 1)])
                    .collect()
            };
            return Some([channel(0), channel(1)]);
        }
    }
}
