//! A reader of Fountain, the plain-text screenplay format (fountain.io): the title page's title,
//! then the elements a storyboard is made from (scene headings, action paragraphs, dialogue
//! blocks) and the ones it leaves out (transitions, centred text, sections, synopses, lyrics,
//! page breaks). Notes, the boneyard and emphasis marks are taken out first (`clean.rs`).

mod clean;
#[cfg(test)]
mod tests;

/// A screenplay, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// The title page's `Title:`, emphasis taken out and lines joined by a space.
    pub title: Option<String>,
    pub elements: Vec<Element>,
}

/// One element of a screenplay's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element {
    /// A scene heading, as written (a forced heading without its `.`, a scene number `#1#`
    /// taken off).
    Heading(String),
    /// An action paragraph: its lines, trimmed, joined by `\n`.
    Action(String),
    /// A character's lines: the name as the cue writes it, without its extension (`(V.O.)`,
    /// `(CONT'D)`) or the `^` of dual dialogue; the spoken lines without parentheticals.
    Dialogue {
        character: String,
        lines: Vec<String>,
    },
    Transition(String),
    Centered(String),
    Section(String),
    Synopsis(String),
    Lyrics(String),
    PageBreak,
}

impl Script {
    /// The scenes' headings, in order.
    pub fn headings(&self) -> impl Iterator<Item = &str> {
        self.elements.iter().filter_map(|e| match e {
            Element::Heading(h) => Some(h.as_str()),
            _ => None,
        })
    }
}

/// Reads `text` as Fountain. Every text reads as something: what is not another element is
/// action.
pub fn read(text: &str) -> Script {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let text = clean::without_notes(&text);
    let lines: Vec<&str> = text.split('\n').collect();
    let (title, body) = title_page(&lines);
    Script {
        title,
        elements: Reader::new(&lines[body..]).elements(),
    }
}

/// The title page's title, and the index of the first line of the body. A title page is
/// `Key: value` lines at the very start, values may continue on indented lines, and it ends at
/// the first blank line.
fn title_page(lines: &[&str]) -> (Option<String>, usize) {
    let is_key = |line: &str| {
        line.split_once(':').is_some_and(|(key, _)| {
            !key.is_empty()
                && !key.starts_with(char::is_whitespace)
                && key.chars().all(|c| c.is_alphanumeric() || c == ' ')
        })
    };
    if !lines.first().is_some_and(|l| is_key(l)) {
        return (None, 0);
    }
    let end = lines
        .iter()
        .position(|l| l.trim().is_empty())
        .unwrap_or(lines.len());
    let mut title: Option<Vec<String>> = None;
    let mut in_title = false;
    for line in &lines[..end] {
        let indented = line.starts_with("   ") || line.starts_with('\t');
        if !indented && is_key(line) {
            let (key, value) = line.split_once(':').unwrap_or_default();
            in_title = key.trim().eq_ignore_ascii_case("title");
            if in_title {
                title = Some(Vec::new());
            }
            if in_title && !value.trim().is_empty() {
                title
                    .get_or_insert_with(Vec::new)
                    .push(value.trim().to_owned());
            }
        } else if in_title {
            title
                .get_or_insert_with(Vec::new)
                .push(line.trim().to_owned());
        }
    }
    let title = title
        .map(|parts| clean::plain(&parts.join(" ")).trim().to_owned())
        .filter(|t| !t.is_empty());
    (title, end)
}

/// Whether `line` is a scene heading (`INT.`, `EXT.`, `EST.`, `INT./EXT.`, `INT/EXT`, `I/E`,
/// case aside, then a `.` or a space), and the heading without a forcing `.`.
fn heading(line: &str) -> Option<String> {
    let trimmed = line.trim();
    if let Some(forced) = trimmed.strip_prefix('.') {
        let starts_word = forced.chars().next().is_some_and(char::is_alphanumeric);
        return starts_word.then(|| without_scene_number(forced));
    }
    let upper = trimmed.to_uppercase();
    let prefixed = ["INT./EXT", "INT/EXT", "I/E", "INT", "EXT", "EST"]
        .iter()
        .any(|prefix| {
            upper.strip_prefix(prefix).is_some_and(|rest| {
                rest.starts_with(". ") || rest.starts_with(' ') || rest.starts_with('.')
            })
        });
    prefixed.then(|| without_scene_number(trimmed))
}

/// A heading without a trailing scene number (`#1A#`).
fn without_scene_number(heading: &str) -> String {
    let heading = heading.trim();
    if let Some(open) = heading.strip_suffix('#').and_then(|h| h.rfind('#')) {
        return heading[..open].trim().to_owned();
    }
    heading.to_owned()
}

/// Whether `line` could be a character cue: forced with `@`, or in capitals (a letter at
/// least) with an optional extension in parentheses after the name.
fn cue(line: &str) -> Option<String> {
    let trimmed = line.trim();
    let forced = trimmed.strip_prefix('@');
    let line = forced.unwrap_or(trimmed).trim_end_matches('^').trim_end();
    let name = match line.find('(') {
        Some(open) => line[..open].trim(),
        None => line,
    };
    let capitals = name.chars().any(char::is_alphabetic) && !name.chars().any(char::is_lowercase);
    (!name.is_empty() && (forced.is_some() || capitals)).then(|| name.to_owned())
}

/// A transition: a line in capitals ending `TO:`, or forced with `>` (and not centred).
fn transition(line: &str) -> Option<String> {
    let trimmed = line.trim();
    if let Some(forced) = trimmed.strip_prefix('>') {
        return (!trimmed.ends_with('<')).then(|| forced.trim().to_owned());
    }
    let capitals = !trimmed.chars().any(char::is_lowercase);
    (capitals && trimmed.ends_with("TO:")).then(|| trimmed.to_owned())
}

/// Reads a body's lines, paragraph by paragraph.
struct Reader<'a> {
    lines: &'a [&'a str],
    at: usize,
    elements: Vec<Element>,
}

impl<'a> Reader<'a> {
    fn new(lines: &'a [&'a str]) -> Self {
        Reader {
            lines,
            at: 0,
            elements: Vec::new(),
        }
    }

    fn blank(&self, at: usize) -> bool {
        self.lines.get(at).is_none_or(|l| l.trim().is_empty())
    }

    fn elements(mut self) -> Vec<Element> {
        while self.at < self.lines.len() {
            if self.blank(self.at) {
                self.at += 1;
                continue;
            }
            self.paragraph();
        }
        self.elements
    }

    /// Reads the paragraph starting at a non-blank line after a blank one (or the start).
    fn paragraph(&mut self) {
        let line = self.lines[self.at];
        let trimmed = line.trim();
        let alone = self.blank(self.at + 1);
        if trimmed.starts_with('!') {
            return self.action();
        }
        if trimmed.starts_with("===") && trimmed.chars().all(|c| c == '=') {
            self.at += 1;
            return self.elements.push(Element::PageBreak);
        }
        if let Some(section) = trimmed.strip_prefix('#') {
            self.at += 1;
            let title = section.trim_start_matches('#').trim();
            return self.elements.push(Element::Section(title.to_owned()));
        }
        if let Some(synopsis) = trimmed.strip_prefix('=') {
            self.at += 1;
            return self
                .elements
                .push(Element::Synopsis(synopsis.trim().to_owned()));
        }
        if let Some(lyric) = trimmed.strip_prefix('~') {
            self.at += 1;
            let lyric = clean::plain(lyric.trim());
            return self.elements.push(Element::Lyrics(lyric));
        }
        if trimmed.starts_with('>') && trimmed.ends_with('<') && trimmed.len() > 1 {
            self.at += 1;
            let inner = trimmed[1..trimmed.len() - 1].trim();
            return self.elements.push(Element::Centered(clean::plain(inner)));
        }
        if let Some(heading) = heading(line) {
            self.at += 1;
            return self.elements.push(Element::Heading(clean::plain(&heading)));
        }
        if let (Some(transition), true) = (transition(line), alone) {
            self.at += 1;
            return self.elements.push(Element::Transition(transition));
        }
        if let (Some(character), false) = (cue(line), alone) {
            return self.dialogue(character);
        }
        self.action()
    }

    /// An action paragraph: lines up to the next blank one (a forcing `!` taken off).
    fn action(&mut self) {
        let mut lines = Vec::new();
        while !self.blank(self.at) {
            let line = self.lines[self.at].trim();
            let line = line.strip_prefix('!').unwrap_or(line);
            lines.push(clean::plain(line).trim().to_owned());
            self.at += 1;
        }
        self.elements.push(Element::Action(lines.join("\n")));
    }

    /// A dialogue block: the cue, then lines up to the next blank one; parentheticals go.
    fn dialogue(&mut self, character: String) {
        self.at += 1;
        let mut lines = Vec::new();
        while !self.blank(self.at) {
            let line = self.lines[self.at].trim();
            self.at += 1;
            if line.starts_with('(') && line.ends_with(')') {
                continue;
            }
            lines.push(clean::plain(line).trim().to_owned());
        }
        self.elements.push(Element::Dialogue {
            character: clean::plain(&character),
            lines,
        });
    }
}
