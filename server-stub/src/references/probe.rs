//! Checks an uploaded picture: its format by its bytes, its size from its header before any
//! decoding (a 100,000 x 100,000 PNG of a few KB is refused at once), then one full decode
//! within a memory cap, so a truncated or corrupt file is refused too.

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits, RgbImage};
use thiserror::Error;

/// The largest upload, in bytes.
pub const MAX_BYTES: usize = 20_000_000;
pub const MIN_SIDE: u32 = 64;
pub const MAX_SIDE: u32 = 8192;
pub const MAX_PIXELS: u64 = 40_000_000;
/// What one decode may allocate (a 40-megapixel RGBA picture is 160 MB).
const MAX_ALLOC: u64 = 400 * 1024 * 1024;

#[derive(Debug, Error, PartialEq)]
pub enum ProbeError {
    #[error("The body is not a PNG, JPEG or WebP image")]
    NotAnImage,
    #[error("The image is larger than {MAX_BYTES} bytes")]
    TooLarge,
    #[error("{0}")]
    Refused(String),
}

/// A format accepted for reference images, told by its first bytes.
pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(ImageFormat::Png)
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some(ImageFormat::Jpeg)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(ImageFormat::WebP)
    } else {
        None
    }
}

pub fn content_type(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::WebP => "image/webp",
        _ => "image/png",
    }
}

/// Whether a picture of `width` x `height` is within the limits; the error names the limit.
pub fn check_size(width: u32, height: u32) -> Result<(), ProbeError> {
    if width < MIN_SIDE || height < MIN_SIDE {
        return Err(ProbeError::Refused(format!(
            "The image is {width}x{height}; each side must be at least {MIN_SIDE} px"
        )));
    }
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(ProbeError::Refused(format!(
            "The image is {width}x{height}; each side must be at most {MAX_SIDE} px"
        )));
    }
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ProbeError::Refused(format!(
            "The image is {width}x{height}; at most 40 megapixels are taken"
        )));
    }
    Ok(())
}

fn reader(bytes: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    reader
}

/// The format and size of an acceptable picture, decoded once to be sure it is whole.
pub fn probe(bytes: &[u8]) -> Result<(ImageFormat, u32, u32), ProbeError> {
    let format = sniff(bytes).ok_or(ProbeError::NotAnImage)?;
    if bytes.len() > MAX_BYTES {
        return Err(ProbeError::TooLarge);
    }
    // The header alone, read without a decoder: a decoder may look further than the header.
    let size = imagesize::blob_size(bytes)
        .map_err(|e| ProbeError::Refused(format!("The image's header cannot be read: {e}")))?;
    let side = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let (width, height) = (side(size.width), side(size.height));
    check_size(width, height)?;
    decode(bytes)?;
    Ok((format, width, height))
}

/// The picture as RGB.
pub fn decode(bytes: &[u8]) -> Result<RgbImage, ProbeError> {
    let format = sniff(bytes).ok_or(ProbeError::NotAnImage)?;
    let image = reader(bytes, format)
        .decode()
        .map_err(|e| ProbeError::Refused(format!("The image is damaged or cut short: {e}")))?;
    Ok(image.to_rgb8())
}

/// An RGB picture as PNG bytes.
pub fn png(image: &RgbImage) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    // Writing to memory cannot fail but for a bug in the encoder: an empty file then.
    let _ = image.write_to(&mut out, ImageFormat::Png);
    out.into_inner()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn png_of(width: u32, height: u32) -> Vec<u8> {
        png(&RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        }))
    }

    /// A PNG whose header claims `width` x `height`, with no pixel data behind it.
    pub fn claimed_png(width: u32, height: u32) -> Vec<u8> {
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend(width.to_be_bytes());
        ihdr.extend(height.to_be_bytes());
        ihdr.extend([8, 2, 0, 0, 0]);
        let crc = crc32fast::hash(&ihdr);
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        out.extend(13u32.to_be_bytes());
        out.extend(&ihdr);
        out.extend(crc.to_be_bytes());
        out.extend(vec![0; 2000]);
        out
    }

    #[test]
    fn formats_are_told_by_their_bytes() {
        assert_eq!(sniff(&png_of(64, 64)), Some(ImageFormat::Png));
        assert_eq!(sniff(b"\xff\xd8\xff\xe0rest"), Some(ImageFormat::Jpeg));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some(ImageFormat::WebP));
        assert_eq!(sniff(b"GIF89a"), None);
        assert_eq!(probe(b"<svg/>"), Err(ProbeError::NotAnImage));
    }

    #[test]
    fn a_good_png_is_measured() {
        let (format, w, h) = probe(&png_of(200, 100)).unwrap();
        assert_eq!((format, w, h), (ImageFormat::Png, 200, 100));
    }

    #[test]
    fn sizes_outside_the_limits_are_refused_from_the_header() {
        let err = probe(&claimed_png(100_000, 100_000)).unwrap_err();
        assert!(
            matches!(&err, ProbeError::Refused(m) if m.contains("8192")),
            "{err}"
        );
        let err = probe(&png_of(63, 100)).unwrap_err();
        assert!(
            matches!(&err, ProbeError::Refused(m) if m.contains("64")),
            "{err}"
        );
        let err = check_size(8000, 8000).unwrap_err();
        assert!(matches!(&err, ProbeError::Refused(m) if m.contains("40 megapixels")));
    }

    #[test]
    fn a_cut_short_image_is_refused() {
        let whole = png_of(300, 300);
        let err = probe(&whole[..whole.len() / 2]).unwrap_err();
        assert!(matches!(err, ProbeError::Refused(_)), "{err}");
        let err = probe(&claimed_png(100, 100)).unwrap_err();
        assert!(matches!(err, ProbeError::Refused(_)), "{err}");
    }
}
