//! Seconds to whole frames of a sequence's rate and back: a point is kept as a frame count,
//! so adding 500 shots adds integers, and a length in seconds is one division at the end.

/// The frame nearest `seconds` at `fps` frames a second; `None` for a negative, infinite or
/// absurd time (past a day).
pub fn of_seconds(seconds: f64, fps: u32) -> Option<u64> {
    let frames = (seconds * f64::from(fps)).round();
    (seconds.is_finite() && (0.0..=86_400.0 * f64::from(fps)).contains(&frames))
        .then_some(frames as u64)
}

/// `frames` at `fps` frames a second, in seconds.
pub fn seconds(frames: u64, fps: u32) -> f64 {
    frames as f64 / f64::from(fps)
}

/// The last out point a take `length` seconds long allows at `fps`: a frame that starts within
/// half a frame of its end, as the server rules.
pub fn last_out(length: f64, fps: u32) -> u64 {
    (length * f64::from(fps) + 0.5).floor().max(0.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_round_to_the_nearest_frame_and_back() {
        assert_eq!(of_seconds(1.0, 24), Some(24));
        assert_eq!(of_seconds(0.02, 24), Some(0));
        assert_eq!(of_seconds(0.03, 24), Some(1));
        assert_eq!(of_seconds(-0.5, 24), None);
        assert_eq!(of_seconds(f64::NAN, 24), None);
        assert_eq!(of_seconds(f64::INFINITY, 25), None);
        assert_eq!(seconds(36, 24), 1.5);
    }

    #[test]
    fn the_last_out_point_is_within_half_a_frame_of_the_end() {
        assert_eq!(last_out(4.0, 24), 96);
        assert_eq!(
            last_out(4.02, 24),
            96,
            "96.48 frames: the 97th starts past the end"
        );
        assert_eq!(last_out(4.021, 24), 97);
        assert_eq!(last_out(0.0, 24), 0);
    }

    #[test]
    fn five_hundred_shots_of_a_third_of_a_second_add_up_with_no_drift() {
        // 1/3 s is not a whole number of frames at 25 fps, nor a float that adds exactly.
        let shot = of_seconds(1.0 / 3.0, 30).unwrap();
        let total: u64 = (0..500).map(|_| shot).sum();
        assert_eq!(seconds(total, 30), 500.0 / 3.0);
        let drifting: f64 = (0..500).map(|_| 1.0 / 3.0).sum();
        assert_ne!(drifting, 500.0 / 3.0, "seconds added as floats drift");
    }
}
