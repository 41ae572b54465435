//! What a Kling model name asks for: its mode, its lengths and whether it makes sound.

use crate::engine::VideoSpec;
use crate::providers::{full, hd, nearest};

/// The lengths of Kling's 1.x and 2.x models.
const SECONDS: [u32; 2] = [5, 10];
/// Kling 3.0 makes any whole length in this range.
const V3_SECONDS: std::ops::RangeInclusive<u32> = 3..=15;

/// What a model name asks Kling for: Studio's `{model_name}-pro` is Kling's `model_name` in
/// `pro` mode (1080p), any other name its own model in `std` mode (720p).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Variant<'a> {
    pub(super) model_name: &'a str,
    pro: bool,
}

impl<'a> Variant<'a> {
    pub(super) fn of(model: &'a str) -> Variant<'a> {
        match model.strip_suffix("-pro") {
            Some(model_name) => Variant {
                model_name,
                pro: true,
            },
            None => Variant {
                model_name: model,
                pro: false,
            },
        }
    }

    /// Kling 3.0 (`kling-v3`, and any later 3.x name).
    pub(super) fn v3(&self) -> bool {
        self.model_name == "kling-v3" || self.model_name.starts_with("kling-v3-")
    }

    /// Whether its video comes with sound: Kling 3.0 always, 2.6 in pro mode (the only
    /// models whose contract takes `sound`).
    pub(super) fn sound(&self) -> bool {
        self.v3() || (self.pro && self.model_name.starts_with("kling-v2-6"))
    }

    pub(super) fn mode(&self) -> &'static str {
        if self.pro {
            "pro"
        } else {
            "std"
        }
    }

    /// Kling 3.0: 3 to 15 s; earlier models 5 or 10 s. 720p in `std` mode, 1080p in `pro`.
    pub(super) fn fit(&self, spec: &VideoSpec) -> VideoSpec {
        let seconds = if self.v3() {
            spec.seconds.clamp(*V3_SECONDS.start(), *V3_SECONDS.end())
        } else {
            nearest(&SECONDS, spec.seconds)
        };
        if self.pro {
            full(spec, seconds)
        } else {
            hd(spec, seconds)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_models_name_says_its_mode_lengths_and_sound() {
        let asked = |seconds, width, height| VideoSpec {
            seconds,
            width,
            height,
            ..VideoSpec::default()
        };
        let fitted = |model: &str, spec: VideoSpec| {
            let fit = Variant::of(model).fit(&spec);
            (fit.seconds, fit.width, fit.height)
        };
        assert_eq!(fitted("kling-v3", asked(12, 1280, 720)), (12, 1280, 720));
        assert_eq!(fitted("kling-v3", asked(1, 720, 1280)), (3, 720, 1280));
        assert_eq!(
            fitted("kling-v3-pro", asked(20, 1280, 720)),
            (15, 1920, 1080)
        );
        assert_eq!(fitted("kling-v2-1", asked(12, 1280, 720)), (10, 1280, 720));
        assert_eq!(
            Variant::of("kling-v3-pro"),
            Variant {
                model_name: "kling-v3",
                pro: true
            }
        );
        assert!(Variant::of("kling-v3").sound());
        assert!(Variant::of("kling-v2-6-pro").sound());
        assert!(
            !Variant::of("kling-v2-6").sound(),
            "2.6 makes sound in pro mode only"
        );
        assert!(!Variant::of("kling-v2-1-pro").sound());
    }
}
