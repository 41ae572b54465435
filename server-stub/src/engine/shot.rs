//! What a shot starts from besides its prompt: a first and a last frame, reference images whose
//! colours the scene takes, and the prompt of a clip it remixes. Images are fitted to the
//! job's size by centre crop or by padding.

use image::imageops::{self, FilterType};
use image::{Rgb, RgbImage};
use serde::{Deserialize, Serialize};

use super::scene::Scene;

/// How an image of another aspect is fitted to the video's size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fit {
    /// Scaled to cover the frame, the overflow cut equally from both sides.
    #[default]
    Crop,
    /// Scaled to fit inside the frame, on black bars.
    Pad,
}

/// The pictures a render starts from; `Shot::default()` is a prompt alone.
#[derive(Debug, Clone, Default)]
pub struct Shot {
    pub first: Option<RgbImage>,
    pub last: Option<RgbImage>,
    pub references: Vec<RgbImage>,
    /// The prompt of the clip this one remixes: its motion and layout are kept.
    pub layout_prompt: Option<String>,
    pub fit: Fit,
    /// The take: 0 is the prompt's own scene, any other seed a different one.
    pub seed: u32,
}

impl Shot {
    /// The scene of `prompt` as this shot changes it.
    pub fn scene(&self, prompt: &str) -> Scene {
        let mut scene = match &self.layout_prompt {
            Some(source) => Scene::remix(source, prompt, self.seed),
            None => Scene::seeded(prompt, self.seed),
        };
        if let Some((top, bottom, accent)) = palette(&self.references) {
            (scene.top, scene.bottom, scene.accent) = (top, bottom, accent);
        }
        scene
    }
}

/// `image` fitted to exactly `width` x `height` as `fit` says.
pub fn fit_image(image: &RgbImage, width: u32, height: u32, fit: Fit) -> RgbImage {
    let (w, h) = (f64::from(image.width()), f64::from(image.height()));
    if image.dimensions() == (width, height) {
        return image.clone();
    }
    let (sx, sy) = (f64::from(width) / w, f64::from(height) / h);
    let scale = match fit {
        Fit::Crop => sx.max(sy),
        Fit::Pad => sx.min(sy),
    };
    let scaled_w = ((w * scale).round() as u32).max(1);
    let scaled_h = ((h * scale).round() as u32).max(1);
    let scaled = imageops::resize(image, scaled_w, scaled_h, FilterType::CatmullRom);
    let mut out = RgbImage::from_pixel(width, height, Rgb([0, 0, 0]));
    let dx = (i64::from(width) - i64::from(scaled_w)) / 2;
    let dy = (i64::from(height) - i64::from(scaled_h)) / 2;
    imageops::replace(&mut out, &scaled, dx, dy);
    out
}

/// Sky, ground and accent colours from reference images: the mean of the first image's top
/// and bottom thirds, and the most saturated colour seen in any of them.
fn palette(images: &[RgbImage]) -> Option<([u8; 3], [u8; 3], [u8; 3])> {
    let first = images.first()?;
    let mean = |rows: std::ops::Range<u32>| {
        let mut sum = [0u64; 3];
        let mut count = 0u64;
        for y in rows.step_by(4) {
            for x in (0..first.width()).step_by(4) {
                let p = first.get_pixel(x, y).0;
                for (s, v) in sum.iter_mut().zip(p) {
                    *s += u64::from(v);
                }
                count += 1;
            }
        }
        sum.map(|s| (s / count.max(1)) as u8)
    };
    let third = (first.height() / 3).max(1);
    let top = mean(0..third);
    let bottom = mean(first.height() - third..first.height());
    let saturation = |p: [u8; 3]| {
        let (max, min) = (p.iter().max().copied(), p.iter().min().copied());
        u16::from(max.unwrap_or(0)) - u16::from(min.unwrap_or(0))
    };
    let accent = images
        .iter()
        .flat_map(|image| {
            let (sx, sy) = ((image.width() / 32).max(1), (image.height() / 32).max(1));
            (0..image.height())
                .step_by(sy as usize)
                .flat_map(move |y| (0..image.width()).step_by(sx as usize).map(move |x| (x, y)))
                .map(|(x, y)| image.get_pixel(x, y).0)
        })
        .max_by_key(|&p| saturation(p))
        .unwrap_or(top);
    Some((top, bottom, accent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crop_covers_and_pad_fits_inside() {
        // A 200x100 image: left half red, right half blue, into a square.
        let image = RgbImage::from_fn(200, 100, |x, _| {
            if x < 100 {
                Rgb([255, 0, 0])
            } else {
                Rgb([0, 0, 255])
            }
        });
        let crop = fit_image(&image, 100, 100, Fit::Crop);
        assert_eq!(crop.dimensions(), (100, 100));
        assert_eq!(crop.get_pixel(0, 50).0, [255, 0, 0]);
        assert_eq!(crop.get_pixel(99, 50).0, [0, 0, 255]);
        let pad = fit_image(&image, 100, 100, Fit::Pad);
        assert_eq!(pad.get_pixel(50, 0).0, [0, 0, 0], "a bar above");
        assert_eq!(pad.get_pixel(10, 50).0, [255, 0, 0]);
        assert_eq!(
            fit_image(&image, 200, 100, Fit::Pad),
            image,
            "same size: as is"
        );
    }

    #[test]
    fn references_set_the_colours() {
        let image = RgbImage::from_fn(90, 90, |_, y| {
            if y < 30 {
                Rgb([200, 200, 210])
            } else if y < 60 {
                Rgb([250, 20, 20])
            } else {
                Rgb([10, 60, 10])
            }
        });
        let shot = Shot {
            references: vec![image],
            ..Shot::default()
        };
        let scene = shot.scene("anything at all");
        assert_eq!(scene.top, [200, 200, 210]);
        assert_eq!(scene.bottom, [10, 60, 10]);
        assert_eq!(scene.accent, [250, 20, 20]);
    }
}
