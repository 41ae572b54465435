//! A poster from an H.264 MP4: its first frame decoded with OpenH264, scaled down and written
//! as a JPEG.

use std::io::{Read, Seek};

use openh264::decoder::{DecodedYUV, Decoder};
use openh264::formats::YUVSource;

use super::PosterError;

/// Poster width in pixels: a card is about 300 CSS pixels wide, so this is sharp at 1.5x.
pub const WIDTH: usize = 480;
const QUALITY: u8 = 78;
/// The largest frame decoded (8K UHD): its RGB copy stays under 100 MB.
const MAX_PIXELS: u64 = 7680 * 4320;

fn unsupported(e: mp4::Error) -> PosterError {
    PosterError::Unsupported(e.to_string())
}

/// The MP4's header and the id of its H.264 track.
fn open<R: Read + Seek>(video: R, size: u64) -> Result<(mp4::Mp4Reader<R>, u32), PosterError> {
    let reader = mp4::Mp4Reader::read_header(video, size).map_err(unsupported)?;
    let track = reader
        .tracks()
        .values()
        .find(|t| matches!(t.media_type(), Ok(mp4::MediaType::H264)))
        .ok_or_else(|| PosterError::Unsupported("no H.264 video track".into()))?
        .track_id();
    Ok((reader, track))
}

/// Where the first frame's bytes are: offset and length (the first sample of the first chunk).
pub fn first_frame(video: impl Read + Seek, size: u64) -> Result<(u64, u64), PosterError> {
    let (reader, track) = open(video, size)?;
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
pub fn poster(video: impl Read + Seek, size: u64) -> Result<Vec<u8>, PosterError> {
    let (mut reader, track_id) = open(video, size)?;
    let track = &reader.tracks()[&track_id];
    if u64::from(track.width()) * u64::from(track.height()) > MAX_PIXELS {
        return Err(PosterError::Unsupported(format!(
            "a {}x{} frame",
            track.width(),
            track.height()
        )));
    }
    let avcc = &track
        .trak
        .mdia
        .minf
        .stbl
        .stsd
        .avc1
        .as_ref()
        .ok_or_else(|| PosterError::Unsupported("no avc1 sample entry".into()))?
        .avcc;
    let length_size = usize::from(avcc.length_size_minus_one & 3) + 1;
    let mut stream = Vec::new();
    for set in avcc
        .sequence_parameter_sets
        .iter()
        .chain(&avcc.picture_parameter_sets)
    {
        stream.extend_from_slice(&[0, 0, 0, 1]);
        stream.extend_from_slice(&set.bytes);
    }
    let sample = reader
        .read_sample(track_id, 1)
        .map_err(unsupported)?
        .ok_or_else(|| PosterError::Unsupported("the video track has no frames".into()))?;
    annex_b(&sample.bytes, length_size, &mut stream)?;

    let decode = |e: openh264::Error| PosterError::Decode(e.to_string());
    let mut decoder = Decoder::new().map_err(decode)?;
    let first = decoder.decode(&stream).map_err(decode)?.map(|f| rgb(&f));
    let (width, height, pixels) = match first {
        Some(frame) => frame,
        None => decoder
            .flush_remaining()
            .map_err(decode)?
            .first()
            .map(rgb)
            .ok_or_else(|| PosterError::Decode("no picture in the first frame".into()))?,
    };
    let (width, height, pixels) = shrink(width, height, &pixels);
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

fn rgb(frame: &DecodedYUV<'_>) -> (usize, usize, Vec<u8>) {
    let (width, height) = frame.dimensions();
    let mut pixels = vec![0; width * height * 3];
    frame.write_rgb8(&mut pixels);
    (width, height, pixels)
}

/// Length-prefixed NAL units (as MP4 keeps them) to start-code separated ones.
fn annex_b(sample: &[u8], length_size: usize, out: &mut Vec<u8>) -> Result<(), PosterError> {
    let mut rest = sample;
    while !rest.is_empty() {
        let (head, tail) = rest
            .split_at_checked(length_size)
            .ok_or_else(|| PosterError::Decode("a NAL length is cut off".into()))?;
        let length = head.iter().fold(0usize, |n, b| (n << 8) | usize::from(*b));
        let (nal, tail) = tail
            .split_at_checked(length)
            .ok_or_else(|| PosterError::Decode("a NAL unit is cut off".into()))?;
        out.extend_from_slice(&[0, 0, 0, 1]);
        out.extend_from_slice(nal);
        rest = tail;
    }
    Ok(())
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
    fn length_prefixed_units_get_start_codes() {
        let mut out = Vec::new();
        annex_b(&[0, 0, 0, 2, 0x65, 0xaa, 0, 0, 0, 1, 0x06], 4, &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 1, 0x65, 0xaa, 0, 0, 0, 1, 0x06]);
        assert!(annex_b(&[0, 0, 0, 9, 0x65], 4, &mut Vec::new()).is_err());
        assert!(annex_b(&[0, 0], 4, &mut Vec::new()).is_err());
    }

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
