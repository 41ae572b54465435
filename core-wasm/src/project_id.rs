//! Project ids (spec section 5): the one definition of a valid id, used by the picker, the
//! router, local storage and the server alike, and the cleaning of a typed id.

/// The longest project id, in characters.
pub const MAX_CHARS: usize = 100;

/// Whether `id` names a project: not blank after trimming, at most [`MAX_CHARS`] characters,
/// no control characters. A recent project is opened as it is stored, so this is all an id
/// must be; the cleaned form is only what Open Project makes of typed text.
pub fn is_valid(id: &str) -> bool {
    !id.trim().is_empty() && id.chars().count() <= MAX_CHARS && !id.chars().any(char::is_control)
}

/// Whether `id` is already in the cleaned form (a-z, 0-9 and '-').
pub fn is_clean(id: &str) -> bool {
    is_valid(id)
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Cleans what the user typed into a project id: trims, lowercases and replaces every
/// character other than `a-z`, `0-9` or `-` with `-`. `None` when the result is not a valid
/// id (blank, or longer than [`MAX_CHARS`]).
pub fn clean(raw: &str) -> Option<String> {
    let trimmed = raw.trim();
    let mut id = String::with_capacity(trimmed.len());
    for c in trimmed.chars() {
        match c {
            'a'..='z' | '0'..='9' | '-' => id.push(c),
            'A'..='Z' => id.push(c.to_ascii_lowercase()),
            // The only characters outside ASCII whose lowercase holds an ASCII letter: full
            // Unicode lowercasing would cost its tables in the wasm for these two.
            '\u{212A}' => id.push('k'),
            '\u{130}' => id.push_str("i-"),
            _ => id.push('-'),
        }
    }
    is_valid(&id).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_and_replaces_everything_else_with_hyphens() {
        assert_eq!(clean("My Project_1!").as_deref(), Some("my-project-1-"));
        assert_eq!(clean("  Trailer v2  ").as_deref(), Some("trailer-v2"));
        assert_eq!(clean("a/../b").as_deref(), Some("a----b"));
        assert_eq!(clean("Été").as_deref(), Some("-t-"));
        assert_eq!(
            clean("\u{212A}elvin \u{130}stanbul").as_deref(),
            Some("kelvin-i-stanbul")
        );
        assert_eq!(clean("🎬 Reel").as_deref(), Some("--reel"));
    }

    #[test]
    fn keeps_an_already_clean_id() {
        assert_eq!(clean("summer-ads-2026").as_deref(), Some("summer-ads-2026"));
        assert!(is_clean("summer-ads-2026"));
    }

    #[test]
    fn rejects_blank_and_overlong_input() {
        assert_eq!(clean(""), None);
        assert_eq!(clean("   \t\n"), None);
        assert_eq!(clean(&"a".repeat(MAX_CHARS + 1)), None);
        assert!(clean(&"a".repeat(MAX_CHARS)).is_some());
    }

    #[test]
    fn a_recent_id_needs_no_cleaning_to_be_valid() {
        for id in [
            "My Project",
            "a/b",
            "Été",
            " x ",
            "..",
            &"é".repeat(MAX_CHARS),
        ] {
            assert!(is_valid(id), "{id}");
            assert!(!is_clean(id), "{id}");
        }
        for id in ["", "  ", "a\nb", "\u{7f}", &"x".repeat(MAX_CHARS + 1)] {
            assert!(!is_valid(id), "{id:?}");
        }
    }
}
