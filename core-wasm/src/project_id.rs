//! Project-id cleaning and validation (spec section 5).

/// Cleans what the user typed into a project id: trims, lowercases and replaces every
/// character other than `a-z`, `0-9` or `-` with `-`. Blank input gives `None`.
pub fn clean(raw: &str) -> Option<String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return None;
    }
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
    Some(id)
}

/// Whether Open Project may be pressed for this input.
pub fn can_open(raw: &str) -> bool {
    !raw.trim().is_empty()
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
    }

    #[test]
    fn rejects_blank_input() {
        assert_eq!(clean(""), None);
        assert_eq!(clean("   \t\n"), None);
        assert!(!can_open("  "));
        assert!(can_open(" x "));
    }
}
