//! Times as the server's records keep them: RFC 3339 text, in UTC.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// `at` as RFC 3339 text.
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).unwrap_or_default()
}

/// Now, as RFC 3339 text.
pub fn now() -> String {
    rfc3339(OffsetDateTime::now_utc())
}

/// Now, in unix seconds.
pub fn unix_now() -> i64 {
    OffsetDateTime::now_utc().unix_timestamp()
}

/// Unix seconds `unix` as RFC 3339 text (none before year -9999 or after 9999).
pub fn rfc3339_of_unix(unix: i64) -> Option<String> {
    OffsetDateTime::from_unix_timestamp(unix).ok().map(rfc3339)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_back_as_they_were() {
        assert_eq!(
            rfc3339_of_unix(1_795_000_000).as_deref(),
            Some("2026-11-18T11:06:40Z")
        );
        let now = now();
        assert!(OffsetDateTime::parse(&now, &Rfc3339).is_ok(), "{now}");
    }
}
