//! Where a shot's crop window sits in its take when an export crops it to another shape: a 16:9
//! take in a 9:16 cut keeps the column its subject stands in. The server keeps the same point,
//! and places each take by `placed`, the rule the editor draws the window by.

use serde::{Deserialize, Serialize};

/// A point of a picture, each side from 0 to 1: (0.5, 0.5) is its centre.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Reframe {
    /// 0 (left) to 1 (right).
    pub x: f64,
    /// 0 (top) to 1 (bottom).
    pub y: f64,
}

/// A point outside the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("reframe's x and y must be 0 to 1")]
pub struct OutsideThePicture;

impl Reframe {
    pub const CENTRE: Reframe = Reframe { x: 0.5, y: 0.5 };

    /// The point when it is inside the picture; `None` for the centre, which is what a shot
    /// with no point is cropped around.
    pub fn checked(x: f64, y: f64) -> Result<Option<Reframe>, OutsideThePicture> {
        let inside = |v: f64| (0.0..=1.0).contains(&v);
        let point = Reframe { x, y };
        if !inside(x) || !inside(y) {
            Err(OutsideThePicture)
        } else if point == Reframe::CENTRE {
            Ok(None)
        } else {
            Ok(Some(point))
        }
    }
}

/// Where a picture `scaled` long on one axis is placed in an output `out` long (its offset in
/// whole pixels, negative when cropped), its point `at` (0 to 1) brought as near the output's
/// middle as the picture still covers the output: centred when it fits inside; even, so that
/// chroma at half size starts on a whole pixel too. The export places each take by this, and
/// the editor draws the crop window by it.
pub fn placed(out: i64, scaled: i64, at: f64) -> i64 {
    if scaled <= out {
        return (out - scaled) / 2;
    }
    let wanted = (out as f64 / 2.0 - at.clamp(0.0, 1.0) * scaled as f64).round() as i64;
    wanted.clamp(out - scaled, 0) & !1
}

/// The size a picture `take` (width, height) is scaled to for an output of size `out`, in
/// whole pixels: to cover it when `crop`, else to fit inside it.
pub fn scaled(take: (u32, u32), out: (u32, u32), crop: bool) -> (i64, i64) {
    let (w, h) = (f64::from(take.0), f64::from(take.1));
    let (sx, sy) = (f64::from(out.0) / w, f64::from(out.1) / h);
    let scale = if crop { sx.max(sy) } else { sx.min(sy) };
    (
        ((w * scale).round() as i64).max(2),
        ((h * scale).round() as i64).max(2),
    )
}

/// The part of a take an export keeps, as fractions of the take from its left and top.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CropWindow {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

/// The window of a `take` (width, height) that a cropped export of size `out` keeps, its
/// centre at `point` as far as it stays inside; `None` when it keeps the whole take (the same
/// shape).
pub fn window(take: (u32, u32), out: (u32, u32), point: Reframe) -> Option<CropWindow> {
    let scaled = scaled(take, out, true);
    let out = (i64::from(out.0), i64::from(out.1));
    if scaled.0 <= out.0 && scaled.1 <= out.1 {
        return None;
    }
    let part = |out: i64, scaled: i64, at: f64| {
        let offset = placed(out, scaled, at).min(0);
        (
            -offset as f64 / scaled as f64,
            (out as f64 / scaled as f64).min(1.0),
        )
    };
    let (left, width) = part(out.0, scaled.0, point.x);
    let (top, height) = part(out.1, scaled.1, point.y);
    Some(CropWindow {
        left,
        top,
        width,
        height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_is_kept_inside_the_picture_and_the_centre_is_none() {
        assert_eq!(
            Reframe::checked(0.0, 1.0),
            Ok(Some(Reframe { x: 0.0, y: 1.0 }))
        );
        assert_eq!(Reframe::checked(0.5, 0.5), Ok(None));
        for (x, y) in [(-0.1, 0.5), (0.5, 1.5), (f64::NAN, 0.5)] {
            assert_eq!(Reframe::checked(x, y), Err(OutsideThePicture));
        }
    }

    #[test]
    fn a_wide_take_in_a_tall_cut_keeps_the_column_asked_for() {
        // 1280x720 into 720x1280: scaled to 2276x1280, the window is 720 of its 2276 columns.
        let width = 720.0 / 2276.0;
        let left = window((1280, 720), (720, 1280), Reframe { x: 0.0, y: 0.5 }).unwrap();
        assert_eq!((left.left, left.top, left.height), (0.0, 0.0, 1.0));
        assert!((left.width - width).abs() < 1e-9);
        let right = window((1280, 720), (720, 1280), Reframe { x: 1.0, y: 0.5 }).unwrap();
        assert!((right.left + right.width - 1.0).abs() < 1e-3, "{right:?}");
        let centre = window((1280, 720), (720, 1280), Reframe::CENTRE).unwrap();
        assert!(
            (centre.left + centre.width / 2.0 - 0.5).abs() < 1e-3,
            "{centre:?}"
        );
        // The same shape keeps the whole take.
        assert_eq!(window((1920, 1080), (1280, 720), Reframe::CENTRE), None);
    }
}
