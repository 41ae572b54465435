//! A project's cast: the characters, props and locations that keep their look from shot to
//! shot. The rule of a member's name and the `@Name` mentions a prompt makes of them, shared by
//! the server (which resolves mentions into reference images) and the client (which offers the
//! names as a prompt is typed).

use serde::{Deserialize, Serialize};

use crate::letters;

/// The longest name, in characters.
pub const MAX_NAME: usize = 40;
/// The most reference images one member has.
pub const MAX_REFERENCES: usize = 8;

/// What a cast member is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Character,
    Prop,
    Location,
}

/// Whether `c` may be part of a name: a letter, a digit, `-` or `_`.
fn name_char(c: char) -> bool {
    letters::is_letter_or_digit(c) || c == '-' || c == '_'
}

/// Whether `name` is a member's name: one word of 1 to [`MAX_NAME`] letters, digits, `-` or
/// `_`.
pub fn is_valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.chars().count()) && name.chars().all(name_char)
}

/// Whether two names are the same member's (case does not count).
pub fn same_name(a: &str, b: &str) -> bool {
    letters::lower(a) == letters::lower(b)
}

/// One `@Name` in a prompt: the name, and where the mention starts and ends (byte offsets,
/// the `@` included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention<'a> {
    pub name: &'a str,
    pub start: usize,
    pub end: usize,
}

/// The mentions of `prompt`, in order: an `@` at the start or after a character that cannot
/// be part of a name (so `ana@example.com` mentions no one), then 1 to [`MAX_NAME`] name
/// characters. A longer run is no mention.
pub fn mentions(prompt: &str) -> Vec<Mention<'_>> {
    let mut found = Vec::new();
    let mut previous: Option<char> = None;
    for (at, c) in prompt.char_indices() {
        let after_boundary = previous.is_none_or(|p| !name_char(p) && p != '@');
        previous = Some(c);
        if c != '@' || !after_boundary {
            continue;
        }
        let rest = &prompt[at + 1..];
        let length = rest.find(|c: char| !name_char(c)).unwrap_or(rest.len());
        let name = &rest[..length];
        if is_valid_name(name) {
            found.push(Mention {
                name,
                start: at,
                end: at + 1 + length,
            });
        }
    }
    found
}

/// The names `prompt` mentions, each once (the first spelling), in the order first mentioned.
pub fn mentioned(prompt: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for mention in mentions(prompt) {
        if !names.iter().any(|n| same_name(n, mention.name)) {
            names.push(mention.name);
        }
    }
    names
}

/// A mention being typed: where its `@` is and what follows it up to the caret, both counted
/// in UTF-16 code units, as a text field's `selectionStart` counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typing {
    pub start: usize,
    pub partial: String,
}

/// The mention being typed in `text` with the caret at `caret` (UTF-16): an `@` that could
/// start a mention, then only name characters up to the caret.
pub fn typing_at(text: &str, caret: usize) -> Option<Typing> {
    let mut at_utf16 = 0;
    let mut before = String::new();
    for c in text.chars() {
        if at_utf16 >= caret {
            break;
        }
        at_utf16 += c.len_utf16();
        before.push(c);
    }
    let at = before.rfind('@')?;
    let partial = &before[at + 1..];
    let boundary = before[..at]
        .chars()
        .next_back()
        .is_none_or(|p| !name_char(p) && p != '@');
    let name_so_far = partial.chars().count() < MAX_NAME && partial.chars().all(name_char);
    (boundary && name_so_far).then(|| Typing {
        start: before[..at].encode_utf16().count(),
        partial: partial.to_owned(),
    })
}

/// The cast names offered for the mention typed at a prompt box's caret.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MentionOffer {
    /// Where the mention's `@` is, in UTF-16 code units.
    pub start: u32,
    pub names: Vec<String>,
}

impl MentionOffer {
    /// The names of `names` that the mention typed at `caret` in `text` could be (at most 8).
    pub fn of(names: &[&str], text: &str, caret: usize) -> Option<MentionOffer> {
        let typing = typing_at(text, caret)?;
        let offered = suggestions(names, &typing.partial, 8);
        (!offered.is_empty()).then(|| MentionOffer {
            start: u32::try_from(typing.start).unwrap_or(u32::MAX),
            names: offered.into_iter().map(str::to_owned).collect(),
        })
    }
}

/// Of `names`, the ones that start with `partial` (case aside), at most `most`, in order.
pub fn suggestions<'a>(names: &[&'a str], partial: &str, most: usize) -> Vec<&'a str> {
    let partial = letters::lower(partial);
    names
        .iter()
        .filter(|n| letters::lower(n).starts_with(&partial))
        .take(most)
        .copied()
        .collect()
}

/// A name made of what a script calls someone (`MARY JANE (V.O.)` is `Mary_Jane`): its words
/// of letters and digits, each capitalised, joined by `_`, cut to [`MAX_NAME`]; `None` when
/// it has no letter or digit.
pub fn name_of(words: &str) -> Option<String> {
    let mut name = String::new();
    for word in words
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .map(|w| w.replace(['\'', '’'], ""))
        .filter(|w| !w.is_empty())
    {
        if !name.is_empty() {
            name.push('_');
        }
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            name.extend(first.to_uppercase());
            name.extend(chars.flat_map(char::to_lowercase));
        }
    }
    let name: String = name.chars().take(MAX_NAME).collect();
    let name = name.trim_end_matches('_').to_owned();
    is_valid_name(&name).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_word_of_letters_digits_dashes_and_underscores() {
        for good in ["Mara", "R2-D2", "old_car", "José", &"x".repeat(40)] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "Mary Jane", "a.b", "@Mara", &"x".repeat(41), "tab\t"] {
            assert!(!is_valid_name(bad), "{bad}");
        }
        assert!(same_name("MARA", "mara"));
        assert!(!same_name("Mara", "Marah"));
    }

    #[test]
    fn mentions_are_found_in_order_with_their_places() {
        let prompt = "@Mara hands @the_Key to @Leo, then @mara smiles.";
        let found = mentions(prompt);
        let names: Vec<&str> = found.iter().map(|m| m.name).collect();
        assert_eq!(names, ["Mara", "the_Key", "Leo", "mara"]);
        assert_eq!(&prompt[found[2].start..found[2].end], "@Leo");
        assert_eq!(mentioned(prompt), ["Mara", "the_Key", "Leo"]);
    }

    #[test]
    fn an_address_a_lone_at_or_a_run_too_long_mentions_no_one() {
        assert!(mentions("write to ana@example.com").is_empty());
        assert!(mentions("meet @ noon, @@Mara").is_empty());
        assert!(mentions(&format!("@{}", "x".repeat(41))).is_empty());
        assert_eq!(mentioned("(@Mara)"), ["Mara"]);
        assert_eq!(mentioned("«@José»"), ["José"]);
    }

    #[test]
    fn the_mention_being_typed_is_found_at_the_caret() {
        let text = "é @Ma and more";
        assert_eq!(
            typing_at(text, 5),
            Some(Typing {
                start: 2,
                partial: "Ma".into()
            })
        );
        assert_eq!(typing_at(text, 3).map(|t| t.partial), Some(String::new()));
        assert_eq!(typing_at(text, 6), None, "a space ends it");
        assert_eq!(typing_at("ana@ex", 6), None, "an address is no mention");
        assert_eq!(typing_at("no at", 5), None);
        assert_eq!(typing_at("😀@L", 4).map(|t| t.start), Some(2));
        let names = ["Mara", "mark", "Leo", "Marta"];
        assert_eq!(suggestions(&names, "MAR", 2), ["Mara", "mark"]);
        assert_eq!(suggestions(&names, "", 8), names);
    }

    #[test]
    fn a_script_name_becomes_a_member_name() {
        assert_eq!(name_of("MARA").as_deref(), Some("Mara"));
        assert_eq!(name_of("MARY JANE").as_deref(), Some("Mary_Jane"));
        assert_eq!(name_of("DR. O'BRIEN").as_deref(), Some("Dr_Obrien"));
        assert_eq!(name_of("JOSÉ").as_deref(), Some("José"));
        assert_eq!(name_of("...").as_deref(), None);
        assert_eq!(name_of(&"ABC ".repeat(20)).unwrap().chars().count(), 39);
    }
}
