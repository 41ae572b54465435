//! What a hosted job is made from besides its prompt, ready to send: its first and last frames
//! already fitted to the job's size (so every provider's aspect, side and size limits hold by
//! construction) and encoded as JPEG, the provider's own id of a video to remix, and the seed.

use base64::Engine;
use image::RgbImage;

/// JPEG quality of the frames sent: visually lossless, and a 1920x1080 frame stays well under
/// every provider's inline limit (Runway's data URIs take 5 MB).
const QUALITY: u8 = 92;
/// The longest side a reference image is sent at.
pub const REFERENCE_SIDE: u32 = 1280;

/// One picture as sent, and the cast member it pictures when a prompt's `@Name` brought it.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    jpeg: Vec<u8>,
    member: Option<String>,
}

impl Picture {
    pub const CONTENT_TYPE: &'static str = "image/jpeg";

    /// `image` as a JPEG (of the size it already has).
    pub fn encode(image: &RgbImage) -> Result<Picture, String> {
        let (width, height) = image.dimensions();
        let (width, height) = (
            u16::try_from(width).map_err(|_| format!("a {width} px wide frame"))?,
            u16::try_from(height).map_err(|_| format!("a {height} px high frame"))?,
        );
        let mut jpeg = Vec::new();
        jpeg_encoder::Encoder::new(&mut jpeg, QUALITY)
            .encode(image.as_raw(), width, height, jpeg_encoder::ColorType::Rgb)
            .map_err(|e| e.to_string())?;
        Ok(Picture { jpeg, member: None })
    }

    /// A reference image as sent: its whole picture, scaled down to [`REFERENCE_SIDE`].
    pub fn reference(image: &RgbImage) -> Result<Picture, String> {
        let (width, height) = image.dimensions();
        let longest = width.max(height);
        if longest <= REFERENCE_SIDE {
            return Picture::encode(image);
        }
        let scale = |side: u32| {
            ((u64::from(side) * u64::from(REFERENCE_SIDE)) / u64::from(longest)).max(1) as u32
        };
        let scaled = image::imageops::resize(
            image,
            scale(width),
            scale(height),
            image::imageops::FilterType::Triangle,
        );
        Picture::encode(&scaled)
    }

    /// The picture as a picture of the cast member `member`.
    pub fn of_member(self, member: Option<String>) -> Picture {
        Picture { member, ..self }
    }

    /// The cast member it pictures, if any.
    pub fn member(&self) -> Option<&str> {
        self.member.as_deref()
    }

    pub fn bytes(&self) -> &[u8] {
        &self.jpeg
    }

    /// The bytes as plain base64, without a `data:` prefix.
    pub fn base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.jpeg)
    }

    /// A `data:image/jpeg;base64,...` URI.
    pub fn data_uri(&self) -> String {
        format!("data:{};base64,{}", Self::CONTENT_TYPE, self.base64())
    }
}

/// A hosted job's pictures and remix source; `Pictures::default()` is a prompt alone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pictures {
    pub first: Option<Picture>,
    pub last: Option<Picture>,
    /// Style and subject references, each kept whole (scaled to at most
    /// [`REFERENCE_SIDE`] pixels on its longer side).
    pub references: Vec<Picture>,
    /// The provider's id of the video this job remixes.
    pub remix_of: Option<String>,
    /// The provider's id of the video this job continues from its last frame.
    pub extend_of: Option<String>,
    /// The take's seed, for a model that takes one.
    pub seed: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_are_jpeg_inline() {
        let picture =
            Picture::encode(&RgbImage::from_pixel(64, 36, image::Rgb([10, 200, 30]))).unwrap();
        assert!(picture.bytes().starts_with(&[0xff, 0xd8, 0xff]));
        assert!(picture
            .data_uri()
            .starts_with("data:image/jpeg;base64,/9j/"));
        assert_eq!(imagesize::blob_size(picture.bytes()).unwrap().width, 64);
    }
}
