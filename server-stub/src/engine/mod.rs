//! The embedded local video engine (`local-1`): a scene from the prompt, rendered and encoded
//! to an H.264 MP4, starting from the shot's pictures when it has some. Deterministic for the
//! same prompt, pictures and settings.

mod encode;
mod render;
mod scene;
mod shot;

use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use encode::{encode_frames, Output};
pub use render::Frame;
pub use scene::{fnv1a, Scene};
pub use shot::{fit_image, Fit, Shot};

/// The model name of the embedded engine.
pub const LOCAL_MODEL: &str = "local-1";

#[derive(Debug, Error)]
pub enum EngineError {
    #[error("encoder: {0}")]
    Encode(String),
    #[error("muxer: {0}")]
    Mux(String),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("cancelled")]
    Cancelled,
    /// The shot's pictures could not be read.
    #[error("{0}")]
    Inputs(String),
}

/// What to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoSpec {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub seconds: u32,
}

impl Default for VideoSpec {
    fn default() -> Self {
        VideoSpec {
            width: 1280,
            height: 720,
            fps: 24,
            seconds: 10,
        }
    }
}

impl VideoSpec {
    pub fn frames(&self) -> u32 {
        self.fps * self.seconds
    }

    pub fn size(&self) -> String {
        format!("{}x{}", self.width, self.height)
    }

    /// Parses `WxH`: both even, 128 to 1920 (the rule the app shares, in `studio-core`).
    pub fn parse_size(size: &str) -> Option<(u32, u32)> {
        studio_core::video_size::parse(size)
    }
}

/// Renders the prompt's video from `shot` into `out` (an MP4), calling `progress(done, total)`
/// per frame. The shot's first and last frames are fitted to the spec's size.
pub fn render_video(
    prompt: &str,
    spec: &VideoSpec,
    shot: &Shot,
    out: &Path,
    cancel: &AtomicBool,
    progress: impl FnMut(u32, u32),
) -> Result<(), EngineError> {
    let scene = shot.scene(prompt);
    let fitted = |image: &Option<image::RgbImage>| {
        image
            .as_ref()
            .map(|i| fit_image(i, spec.width, spec.height, shot.fit))
    };
    let end = (spec.frames().max(1) - 1) as f32 / spec.fps as f32;
    let renderer = render::Renderer::new(&scene, spec.width as usize, spec.height as usize)
        .with_stills(
            fitted(&shot.first).as_ref(),
            fitted(&shot.last).as_ref(),
            end,
        );
    encode::encode(&renderer, spec, out, cancel, progress)
}

/// Renders a whole clip at once: not cancellable, no progress (the `studio-render` tool, and
/// tests that need a real video).
pub fn render_clip(prompt: &str, spec: &VideoSpec, out: &Path) -> Result<(), EngineError> {
    render_video(
        prompt,
        spec,
        &Shot::default(),
        out,
        &AtomicBool::new(false),
        |_, _| {},
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_validated() {
        assert_eq!(VideoSpec::parse_size("1280x720"), Some((1280, 720)));
        assert_eq!(VideoSpec::parse_size("720x1280"), Some((720, 1280)));
        for bad in ["1281x720", "64x64", "4000x720", "x", "1280", "axb"] {
            assert_eq!(VideoSpec::parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn renders_a_playable_fast_start_mp4() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("v.mp4");
        let spec = VideoSpec {
            width: 320,
            height: 180,
            fps: 12,
            seconds: 2,
        };
        let mut seen = Vec::new();
        render_video(
            "a blue ball bouncing",
            &spec,
            &Shot::default(),
            &out,
            &AtomicBool::new(false),
            |d, t| seen.push((d, t)),
        )
        .unwrap();
        assert_eq!(seen.len(), 24);
        assert_eq!(seen.last(), Some(&(24, 24)));
        let bytes = std::fs::read(&out).unwrap();
        let moov = bytes.windows(4).position(|w| w == b"moov").unwrap();
        let mdat = bytes.windows(4).position(|w| w == b"mdat").unwrap();
        assert!(moov < mdat, "moov before mdat");
        assert_eq!(&bytes[4..8], b"ftyp");
    }

    #[test]
    fn a_cancelled_render_stops() {
        let dir = tempfile::tempdir().unwrap();
        let spec = VideoSpec {
            width: 320,
            height: 180,
            fps: 12,
            seconds: 2,
        };
        let err = render_video(
            "x",
            &spec,
            &Shot::default(),
            &dir.path().join("v.mp4"),
            &AtomicBool::new(true),
            |_, _| {},
        )
        .unwrap_err();
        assert!(matches!(err, EngineError::Cancelled));
    }

    /// A photograph-like test picture: smooth gradients, a sun and a horizon.
    fn picture(width: u32, height: u32) -> image::RgbImage {
        image::RgbImage::from_fn(width, height, |x, y| {
            let (fx, fy) = (x as f32 / width as f32, y as f32 / height as f32);
            let sun = ((fx - 0.7).powi(2) + (fy - 0.3).powi(2)).sqrt() < 0.12;
            if sun {
                image::Rgb([250, 220, 90])
            } else if fy > 0.6 {
                image::Rgb([(30.0 + 60.0 * fx) as u8, (90.0 + 80.0 * fy) as u8, 40])
            } else {
                image::Rgb([(90.0 + 120.0 * fy) as u8, (140.0 + 60.0 * fx) as u8, 230])
            }
        })
    }

    #[test]
    fn the_same_shot_gives_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let spec = VideoSpec {
            width: 160,
            height: 128,
            fps: 6,
            seconds: 1,
        };
        let shot = Shot {
            first: Some(picture(300, 200)),
            ..Shot::default()
        };
        let (a, b) = (dir.path().join("a.mp4"), dir.path().join("b.mp4"));
        for out in [&a, &b] {
            render_video(
                "a kite",
                &spec,
                &shot,
                out,
                &AtomicBool::new(false),
                |_, _| {},
            )
            .unwrap();
        }
        assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    }
}
