//! Where a shot's crop window sits in its take when an export crops it to another shape: a 16:9
//! take in a 9:16 cut keeps the column its subject stands in. The server keeps the same point
//! and the same rule.

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
}
