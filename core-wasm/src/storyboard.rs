//! A screenplay made into a storyboard's shots: each action paragraph a shot, labelled with its
//! scene and prompted with the scene's setting and the action, the characters it names in
//! capitals (and those who speak over it) mentioned as `@Name`; each dialogue block the caption
//! of the shot before it, or of a shot of its own when its scene has no action before it.

use crate::cast::{self, same_name};
use crate::fountain::{Element, Script};

/// The longest label, prompt and caption a shot takes (the sequence's and job's own limits).
pub const MAX_LABEL: usize = 200;
pub const MAX_PROMPT: usize = 4000;
pub const MAX_CAPTION: usize = 500;
/// How fast a shot's words are read or played out: about 2.5 a second.
pub const WORDS_PER_SECOND: f64 = 2.5;
/// The shortest shot planned, in seconds.
pub const MIN_SECONDS: u32 = 2;

/// One shot as the script plans it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedShot {
    /// `Scene N: HEADING` (`Opening` before the first heading).
    pub label: String,
    pub prompt: String,
    /// `NAME: line`, a block to a line.
    pub caption: Option<String>,
    /// The words of its action and dialogue.
    pub words: usize,
}

impl PlannedShot {
    /// How long the shot's words take, in whole seconds, at least [`MIN_SECONDS`].
    pub fn seconds(&self) -> u32 {
        let seconds = (self.words as f64 / WORDS_PER_SECOND).round() as u32;
        seconds.max(MIN_SECONDS)
    }
}

/// A script's shots and the characters they name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Storyboard {
    pub title: Option<String>,
    pub shots: Vec<PlannedShot>,
    /// Characters who speak or are named and are not in the cast, as member names, in the
    /// order they first appear.
    pub characters: Vec<String>,
}

/// A shot being made: the setting, action and speakers its prompt is made of at the end.
struct Draft {
    label: String,
    setting: Option<String>,
    action: Option<String>,
    speakers: Vec<String>,
    caption: Option<String>,
    words: usize,
}

impl Draft {
    fn finish(self) -> PlannedShot {
        let mut prompt = String::new();
        if let Some(setting) = &self.setting {
            prompt.push_str(setting.trim_end_matches('.'));
            prompt.push('.');
        }
        if let Some(action) = &self.action {
            push_sentence(&mut prompt, action);
        }
        let unnamed: Vec<String> = self
            .speakers
            .iter()
            .filter(|s| !cast::mentioned(&prompt).iter().any(|m| same_name(m, s)))
            .map(|s| format!("@{s}"))
            .collect();
        if !unnamed.is_empty() {
            push_sentence(&mut prompt, &format!("Speaking: {}.", unnamed.join(", ")));
        }
        if prompt.is_empty() {
            prompt.push_str(&self.label);
        }
        PlannedShot {
            label: cut(&self.label, MAX_LABEL),
            prompt: cut(&prompt, MAX_PROMPT),
            caption: self.caption.map(|c| cut(&c, MAX_CAPTION)),
            words: self.words,
        }
    }
}

fn push_sentence(prompt: &mut String, sentence: &str) {
    if !prompt.is_empty() {
        prompt.push(' ');
    }
    prompt.push_str(sentence);
}

/// `text` cut to `most` characters, ending `…` when it was longer.
fn cut(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(most - 1).collect();
    cut.push('…');
    cut
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The cast's names and the script's, each with the capitals a script writes it in, the
/// longest first (so `MARY JANE` is found before `MARY`).
struct Names {
    known: Vec<(String, String)>,
}

impl Names {
    fn new(script: &Script, cast: &[&str]) -> Names {
        let mut known: Vec<(String, String)> = Vec::new();
        let mut add = |written: String, name: String| {
            if !known.iter().any(|(w, _)| *w == written) {
                known.push((written, name));
            }
        };
        for member in cast {
            add(
                member.replace(['_', '-'], " ").to_uppercase(),
                (*member).to_owned(),
            );
        }
        for element in &script.elements {
            if let Element::Dialogue { character, .. } = element {
                if let Some(name) = cast::name_of(character) {
                    let name = cast
                        .iter()
                        .find(|m| same_name(m, &name))
                        .map_or(name, |m| (*m).to_owned());
                    add(character.to_uppercase(), name);
                }
            }
        }
        known.sort_by_key(|(written, _)| std::cmp::Reverse(written.chars().count()));
        Names { known }
    }

    /// The member name of a cue.
    fn of_cue(&self, cue: &str) -> Option<String> {
        let written = cue.to_uppercase();
        self.known
            .iter()
            .find(|(w, _)| *w == written)
            .map(|(_, name)| name.clone())
    }

    /// `action` with each known name written in capitals as a whole word made `@Name`.
    fn mention(&self, action: &str) -> String {
        let mut text = action.to_owned();
        for (written, name) in &self.known {
            let mut out = String::with_capacity(text.len());
            let mut rest = text.as_str();
            while let Some(at) = rest.find(written.as_str()) {
                let end = at + written.len();
                let before = rest[..at].chars().next_back();
                let after = rest[end..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '@');
                out.push_str(&rest[..at]);
                if word(before) || word(after) {
                    out.push_str(written);
                } else {
                    out.push('@');
                    out.push_str(name);
                }
                rest = &rest[end..];
            }
            out.push_str(rest);
            text = out;
        }
        text
    }
}

/// The storyboard of `script` for a project whose cast has the names `cast`.
pub fn plan(script: &Script, cast: &[&str]) -> Storyboard {
    let names = Names::new(script, cast);
    let mut drafts: Vec<Draft> = Vec::new();
    let mut scene = 0;
    let mut setting: Option<String> = None;
    // The shot a dialogue block joins: the last one of the scene, if it has one.
    let mut open: Option<usize> = None;
    for element in &script.elements {
        match element {
            Element::Heading(heading) => {
                scene += 1;
                setting = Some(heading.clone());
                open = None;
            }
            Element::Action(action) => {
                drafts.push(Draft {
                    label: label(scene, setting.as_deref()),
                    setting: setting.clone(),
                    action: Some(names.mention(&action.replace('\n', " "))),
                    speakers: Vec::new(),
                    caption: None,
                    words: words(action),
                });
                open = Some(drafts.len() - 1);
            }
            Element::Dialogue { character, lines } => {
                let line = format!("{}: {}", character.to_uppercase(), lines.join(" "));
                let joins = open.filter(|&at| {
                    drafts[at]
                        .caption
                        .as_ref()
                        .is_none_or(|c| c.chars().count() + 1 + line.chars().count() <= MAX_CAPTION)
                });
                let at = match joins {
                    Some(at) => at,
                    None => {
                        drafts.push(Draft {
                            label: label(scene, setting.as_deref()),
                            setting: setting.clone(),
                            action: None,
                            speakers: Vec::new(),
                            caption: None,
                            words: 0,
                        });
                        drafts.len() - 1
                    }
                };
                open = Some(at);
                let draft = &mut drafts[at];
                draft.words += lines.iter().map(|l| words(l)).sum::<usize>();
                draft.caption = Some(match draft.caption.take() {
                    Some(caption) => format!("{caption}\n{line}"),
                    None => line,
                });
                if let Some(name) = names.of_cue(character) {
                    if !draft.speakers.contains(&name) {
                        draft.speakers.push(name);
                    }
                }
            }
            _ => {}
        }
    }
    let shots: Vec<PlannedShot> = drafts.into_iter().map(Draft::finish).collect();
    let mut characters: Vec<String> = Vec::new();
    for shot in &shots {
        for name in cast::mentioned(&shot.prompt) {
            let known = cast.iter().any(|m| same_name(m, name))
                || characters.iter().any(|c| same_name(c, name));
            if !known {
                characters.push(name.to_owned());
            }
        }
    }
    Storyboard {
        title: script.title.clone(),
        shots,
        characters,
    }
}

fn label(scene: usize, heading: Option<&str>) -> String {
    match heading {
        Some(heading) => format!("Scene {scene}: {heading}"),
        None => "Opening".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fountain::read;

    const SCRIPT: &str = "Title: The Key\n\nINT. KITCHEN - NIGHT\n\nMARA enters. She sees LEO by the sink.\n\nMARA\n(whispers)\nWhere were you?\n\nLEO\nOut.\n\nEXT. ROAD - DAY\n\nMARA (V.O.)\nI never asked again.\n\nA CAR passes. MARAH waves at @Dog.";

    #[test]
    fn each_action_is_a_shot_with_its_setting_mentions_and_dialogue() {
        let board = plan(&read(SCRIPT), &["Dog"]);
        assert_eq!(board.title.as_deref(), Some("The Key"));
        let shot = &board.shots[0];
        assert_eq!(shot.label, "Scene 1: INT. KITCHEN - NIGHT");
        assert_eq!(
            shot.prompt,
            "INT. KITCHEN - NIGHT. @Mara enters. She sees @Leo by the sink."
        );
        assert_eq!(
            shot.caption.as_deref(),
            Some("MARA: Where were you?\nLEO: Out.")
        );
        assert_eq!(shot.words, 8 + 3 + 1);
        assert_eq!(shot.seconds(), 5);
        assert_eq!(board.characters, ["Mara", "Leo"]);
    }

    #[test]
    fn dialogue_before_any_action_gets_a_shot_of_its_own() {
        let board = plan(&read(SCRIPT), &["Dog"]);
        assert_eq!(board.shots.len(), 3);
        let spoken = &board.shots[1];
        assert_eq!(spoken.label, "Scene 2: EXT. ROAD - DAY");
        assert_eq!(spoken.prompt, "EXT. ROAD - DAY. Speaking: @Mara.");
        assert_eq!(
            spoken.caption.as_deref(),
            Some("MARA: I never asked again.")
        );
        assert_eq!(spoken.seconds(), MIN_SECONDS);
        // MARAH is not MARA, and a mention already made stays as it is.
        assert_eq!(
            board.shots[2].prompt,
            "EXT. ROAD - DAY. A CAR passes. MARAH waves at @Dog."
        );
    }

    #[test]
    fn a_cast_member_is_found_in_capitals_and_not_added_again() {
        let board = plan(
            &read("INT. LAB\n\nMARY JANE drops the key.\n\nMARY\nOops."),
            &["mary_jane"],
        );
        assert_eq!(
            board.shots[0].prompt,
            "INT. LAB. @mary_jane drops the key. Speaking: @Mary."
        );
        assert_eq!(board.characters, ["Mary"]);
    }

    #[test]
    fn long_text_is_cut_to_the_limits() {
        let long = "word ".repeat(1000);
        let board = plan(&read(&format!("{long}\n\nMARA\n{long}")), &[]);
        let shot = &board.shots[0];
        assert_eq!(shot.label, "Opening");
        assert_eq!(shot.prompt.chars().count(), MAX_PROMPT);
        assert!(shot.prompt.ends_with('…'));
        // A block longer than a caption is cut to fit.
        assert_eq!(board.shots.len(), 1);
        assert_eq!(shot.caption.as_ref().unwrap().chars().count(), MAX_CAPTION);
    }
}
