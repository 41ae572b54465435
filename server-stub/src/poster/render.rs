//! A poster from an H.264 MP4: its first frame (decoded through `frames`), scaled down and
//! written as a JPEG.

use std::io::{Read, Seek};

use super::PosterError;
use crate::frames::{open, FrameError, FrameReader};

/// Poster width in pixels: a card is about 300 CSS pixels wide, so this is sharp at 1.5x.
pub const WIDTH: usize = 480;
const QUALITY: u8 = 78;

impl From<FrameError> for PosterError {
    fn from(e: FrameError) -> Self {
        match e {
            FrameError::Unsupported(m) => PosterError::Unsupported(m),
            other => PosterError::Decode(other.to_string()),
        }
    }
}

/// Where the first frame's bytes are: offset and length (the first sample of the first chunk).
pub fn first_frame(video: impl Read + Seek + Send, size: u64) -> Result<(u64, u64), PosterError> {
    let (reader, track) = open(Box::new(video), size)?;
    let stbl = &reader.tracks()[&track].trak.mdia.minf.stbl;
    let offset = match (&stbl.co64, &stbl.stco) {
        (Some(co64), _) => co64.entries.first().copied(),
        (None, Some(stco)) => stco.entries.first().map(|&o| u64::from(o)),
        (None, None) => None,
    };
    let length = match stbl.stsz.sample_size {
        0 => stbl.stsz.sample_sizes.first().copied(),
        fixed => Some(fixed),
    };
    offset
        .zip(length)
        .map(|(o, l)| (o, u64::from(l)))
        .ok_or_else(|| PosterError::Unsupported("the video track has no frames".into()))
}

/// The first frame of an H.264 MP4 as a JPEG at most [`WIDTH`] pixels wide; `video` needs
/// its boxes and the first frame's bytes (see [`first_frame`]).
pub fn poster(video: impl Read + Seek + Send, size: u64) -> Result<Vec<u8>, PosterError> {
    let mut frames = FrameReader::new(video, size)?;
    if frames.samples() == 0 {
        return Err(PosterError::Unsupported(
            "the video track has no frames".into(),
        ));
    }
    let picture = frames
        .first_picture()?
        .ok_or_else(|| PosterError::Decode("no picture in the first frame".into()))?;
    let (width, height) = (picture.width() as usize, picture.height() as usize);
    let (width, height, pixels) = shrink(width, height, picture.as_raw());
    let mut jpeg = Vec::new();
    jpeg_encoder::Encoder::new(&mut jpeg, QUALITY)
        .encode(
            &pixels,
            u16::try_from(width).unwrap_or(u16::MAX),
            u16::try_from(height).unwrap_or(u16::MAX),
            jpeg_encoder::ColorType::Rgb,
        )
        .map_err(|e| PosterError::Decode(e.to_string()))?;
    Ok(jpeg)
}

/// Scales RGB pixels down to at most [`WIDTH`] wide, each output pixel the mean of the block
/// of input pixels it covers (no aliasing from skipped pixels).
fn shrink(width: usize, height: usize, pixels: &[u8]) -> (usize, usize, Vec<u8>) {
    if width <= WIDTH || width == 0 {
        return (width, height, pixels.to_vec());
    }
    let (out_w, out_h) = (WIDTH, (height * WIDTH / width).max(1));
    let mut out = Vec::with_capacity(out_w * out_h * 3);
    for oy in 0..out_h {
        let (y0, y1) = (
            oy * height / out_h,
            ((oy + 1) * height / out_h).max(oy * height / out_h + 1),
        );
        for ox in 0..out_w {
            let (x0, x1) = (
                ox * width / out_w,
                ((ox + 1) * width / out_w).max(ox * width / out_w + 1),
            );
            let mut sum = [0usize; 3];
            for y in y0..y1 {
                let row = &pixels[(y * width + x0) * 3..(y * width + x1) * 3];
                for px in row.chunks_exact(3) {
                    for (s, v) in sum.iter_mut().zip(px) {
                        *s += usize::from(*v);
                    }
                }
            }
            let count = (y1 - y0) * (x1 - x0);
            out.extend(sum.iter().map(|s| ((s + count / 2) / count) as u8));
        }
    }
    (out_w, out_h, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_averages_blocks_and_keeps_the_aspect() {
        let (w, h) = (WIDTH * 2, 4);
        let pixels: Vec<u8> = (0..w * h)
            .flat_map(|i| {
                if i % 2 == 0 {
                    [0, 0, 0]
                } else {
                    [200, 100, 50]
                }
            })
            .collect();
        let (ow, oh, out) = shrink(w, h, &pixels);
        assert_eq!((ow, oh), (WIDTH, 2));
        assert_eq!(&out[..3], &[100, 50, 25]);
        assert_eq!(shrink(4, 2, &[7; 24]), (4, 2, vec![7; 24]));
    }

    #[test]
    fn junk_is_unsupported_not_a_panic() {
        let junk = b"not a video at all";
        assert!(matches!(
            poster(std::io::Cursor::new(junk), junk.len() as u64),
            Err(PosterError::Unsupported(_))
        ));
    }

    #[test]
    fn an_engine_video_gets_a_jpeg_poster() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("v.mp4");
        let spec = crate::engine::VideoSpec {
            seconds: 1,
            width: 1280,
            height: 720,
            fps: 4,
        };
        crate::engine::render_clip("a lighthouse at dusk", &spec, &out).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        let size = bytes.len() as u64;
        let (offset, length) = first_frame(std::io::Cursor::new(&bytes), size).unwrap();
        assert!(offset > 0 && length > 100 && offset + length <= size);
        let jpeg = poster(std::io::Cursor::new(&bytes), size).unwrap();
        assert_eq!(&jpeg[..2], &[0xff, 0xd8], "a JPEG");
        assert!(jpeg.len() < 60_000, "{} bytes", jpeg.len());
    }
}
