//! A video's size as `WxH`, read by one rule for the server (a job's `size`) and the app (the
//! Size control and its estimate).

/// The sizes an export may ask for other than its sequence's: landscape, the portrait frame
/// phones and their platforms play, and square.
pub const EXPORT_SIZES: [&str; 5] = [
    "1920x1080",
    "1280x720",
    "1080x1920",
    "720x1280",
    "1080x1080",
];

/// The sides a size may have, in pixels (each even).
const SIDES: std::ops::RangeInclusive<u32> = 128..=1920;

/// A number written plainly: digits only, no sign, no leading zero, at most 9 digits.
pub fn strict_number(text: &str) -> Option<u32> {
    let plain = (1..=9).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_digit())
        && !text.starts_with('0');
    plain.then(|| text.parse().ok()).flatten()
}

/// Parses `WxH`: both even, 128 to 1920; width and height.
pub fn parse(size: &str) -> Option<(u32, u32)> {
    let (w, h) = size.split_once('x')?;
    let (w, h) = (strict_number(w)?, strict_number(h)?);
    let ok = |v: u32| SIDES.contains(&v) && v.is_multiple_of(2);
    (ok(w) && ok(h)).then_some((w, h))
}
