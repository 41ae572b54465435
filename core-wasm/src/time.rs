//! ISO-8601 timestamps: parsing to Unix milliseconds (for order and display), and display.
//! Both are the platform's in the browser (`Date.parse`, `Intl.DateTimeFormat`); natively (the
//! server, the tests) the parse is done here and the display is a fixed format.

/// Parses `YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)` (or a bare date) into Unix milliseconds.
pub fn parse_iso_millis(s: &str) -> Option<i64> {
    platform::parse(s.trim())
}

/// In the browser, `Date.parse` reads the time (it is the same instant everywhere for what
/// the server writes: RFC 3339, with an offset). The date must lead in ISO 8601's form, since
/// `Date.parse` also reads forms of each browser's own.
#[cfg(target_arch = "wasm32")]
mod platform {
    pub fn parse(s: &str) -> Option<i64> {
        let b = s.as_bytes();
        let iso_date = b.len() >= 10
            && b[4] == b'-'
            && b[7] == b'-'
            && [0, 1, 2, 3, 5, 6, 8, 9]
                .iter()
                .all(|&i| b[i].is_ascii_digit());
        let millis = js_sys::Date::parse(s);
        (iso_date && millis.is_finite()).then_some(millis as i64)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod platform {
    pub fn parse(s: &str) -> Option<i64> {
        let num = |a: usize, b: usize| -> Option<i64> {
            let part = s.get(a..b)?;
            part.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| part.parse().ok())?
        };
        let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
        if s.get(4..5)? != "-"
            || s.get(7..8)? != "-"
            || !(1..=12).contains(&month)
            || !(1..=31).contains(&day)
        {
            return None;
        }
        let days = days_from_civil(year, month, day);
        if s.len() == 10 {
            return Some(days * 86_400_000);
        }
        if !matches!(s.get(10..11)?, "T" | "t" | " ") || s.get(13..14)? != ":" {
            return None;
        }
        let (hour, minute) = (num(11, 13)?, num(14, 16)?);
        // Slices by `get`, never by index: an index's panic path would bring a formatter of its
        // own into the wasm.
        let mut rest = s.get(16..)?;
        let mut second = 0;
        let mut millis = 0;
        if let Some(r) = rest.strip_prefix(':') {
            second = r.get(0..2)?.parse().ok()?;
            rest = r.get(2..)?;
            if let Some(r) = rest.strip_prefix('.') {
                let digits = r.bytes().take_while(u8::is_ascii_digit).count();
                // The first three digits, padded with zeros: ".5" is 500 ms.
                let padded = r.bytes().take(digits.min(3)).chain([b'0'; 3]).take(3);
                millis = padded.fold(0, |m, d| m * 10 + i64::from(d - b'0'));
                rest = r.get(digits..)?;
            }
        }
        let offset_minutes = match rest {
            "Z" | "z" | "" => 0,
            _ => {
                let sign = match rest.get(0..1)? {
                    "+" => 1,
                    "-" => -1,
                    _ => return None,
                };
                let hh: i64 = rest.get(1..3)?.parse().ok()?;
                let mm: i64 = rest.get(rest.len() - 2..)?.parse().ok()?;
                sign * (hh * 60 + mm)
            }
        };
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        Some(((days * 24 + hour) * 60 + minute - offset_minutes) * 60_000 + second * 1000 + millis)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

/// How much of a moment a label shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeStyle {
    Date,
    DateTime,
}

/// The label of an ISO timestamp, by `format` (the browser's `Intl.DateTimeFormat`, in the
/// viewer's locale and time zone as it was at that moment); the input itself when it is not a
/// timestamp, so nothing is hidden.
pub fn label(iso: &str, style: TimeStyle, format: impl Fn(i64, TimeStyle) -> String) -> String {
    parse_iso_millis(iso).map_or_else(|| iso.to_owned(), |millis| format(millis, style))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_browsers_and_servers_write() {
        assert_eq!(parse_iso_millis("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_iso_millis("2026-11-21T18:25:07.123Z"),
            Some(1_795_285_507_123)
        );
        assert_eq!(
            parse_iso_millis("2026-11-21T19:25:07.123+01:00"),
            Some(1_795_285_507_123)
        );
        assert_eq!(
            parse_iso_millis("2026-11-21T18:25:07Z"),
            Some(1_795_285_507_000)
        );
        assert_eq!(
            parse_iso_millis("2026-11-21T18:25:07.123456Z"),
            Some(1_795_285_507_123)
        );
        assert_eq!(parse_iso_millis("2026-11-21"), Some(1_795_219_200_000));
    }

    #[test]
    fn rejects_what_is_not_a_timestamp() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-11-21T25:00Z",
            "2026/11/21",
            "2026-11-21Tab:cdZ",
        ] {
            assert_eq!(parse_iso_millis(bad), None, "{bad}");
        }
    }

    #[test]
    fn labels_readable_times_and_show_the_rest_as_they_are() {
        let format = |millis: i64, style: TimeStyle| format!("{millis} {style:?}");
        assert_eq!(
            label("1970-01-01T00:00:01Z", TimeStyle::Date, format),
            "1000 Date"
        );
        assert_eq!(label("soon", TimeStyle::DateTime, format), "soon");
    }
}
