//! A shot's caption: its text, and where it starts and ends on the take, so that a trim keeps a
//! line on the words it captions. The server keeps the same text this cleans, and shows only
//! the part of the range the shot shows.

use serde::Serialize;

/// The longest caption, in characters.
pub const MAX_CAPTION: usize = 500;

/// A shot's caption, its points on the take in frames (the shot's own points when `None`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Caption {
    pub text: String,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub in_frame: Option<u64>,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub out_frame: Option<u64>,
}

/// A caption over `MAX_CAPTION` characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("A caption is at most {MAX_CAPTION} characters")]
pub struct LongCaption;

/// A caption's text as kept: each line trimmed, blank lines and control characters dropped
/// (a blank line would end a SubRip or WebVTT cue), `-->` spelled `->` (it marks a cue's
/// times); `None` when nothing is left.
pub fn clean(text: &str) -> Result<Option<String>, LongCaption> {
    if text.chars().count() > MAX_CAPTION {
        return Err(LongCaption);
    }
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            line.chars()
                .filter(|c| !c.is_control())
                .collect::<String>()
                .replace("-->", "->")
                .trim()
                .to_owned()
        })
        .filter(|line| !line.is_empty())
        .collect();
    Ok((!lines.is_empty()).then(|| lines.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caption_s_text_is_kept_clean() {
        assert_eq!(
            clean("  one \n\n\t two\u{7} --> three \r\n"),
            Ok(Some("one\ntwo -> three".into()))
        );
        assert_eq!(clean(" \n "), Ok(None));
        assert_eq!(
            clean(&"é".repeat(MAX_CAPTION)).map(|t| t.is_some()),
            Ok(true)
        );
        assert_eq!(clean(&"x".repeat(MAX_CAPTION + 1)), Err(LongCaption));
    }
}
