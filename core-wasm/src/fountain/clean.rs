//! What a Fountain reader takes out before it reads elements: the boneyard (`/* ... */`) and
//! notes (`[[ ... ]]`), which may span lines, and the emphasis marks (`*`, `**`, `_`) of text.

/// `text` without its boneyard and notes. A note or boneyard that fills whole lines leaves no
/// line behind, so the paragraphs around it stay as they were; an unclosed one runs to the end.
pub fn without_notes(text: &str) -> String {
    let text = cut(text, "/*", "*/");
    cut(&text, "[[", "]]")
}

/// `text` without every span from `open` to `close`. A line the spans touched and left blank
/// goes; lines blank before stay, one for each run of them.
fn cut(text: &str, open: &str, close: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut inside = false;
    for line in text.split('\n') {
        let mut kept = String::new();
        let mut touched = inside;
        let mut rest = line;
        loop {
            if inside {
                match rest.find(close) {
                    Some(end) => {
                        rest = &rest[end + close.len()..];
                        inside = false;
                    }
                    None => break,
                }
            } else {
                match rest.find(open) {
                    Some(at) => {
                        kept.push_str(&rest[..at]);
                        rest = &rest[at + open.len()..];
                        inside = true;
                        touched = true;
                    }
                    None => {
                        kept.push_str(rest);
                        break;
                    }
                }
            }
        }
        let blank = kept.trim().is_empty();
        let after_blank = lines.last().is_some_and(|l| l.trim().is_empty());
        if blank && (touched || after_blank) {
            continue;
        }
        lines.push(kept);
    }
    lines.join("\n")
}

/// `text` without emphasis marks: unescaped `*` and `_` go, `\*` and `\_` become the mark.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some('*' | '_')) => out.extend(chars.next()),
            '*' | '_' => {}
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_and_boneyard_go_and_leave_paragraphs_as_they_were() {
        assert_eq!(without_notes("She runs. [[fix]] Fast."), "She runs.  Fast.");
        assert_eq!(
            without_notes("One.\n[[a note\nover lines]]\nTwo."),
            "One.\nTwo."
        );
        assert_eq!(
            without_notes("One.\n\n/* cut\n\nscene */\n\nTwo."),
            "One.\n\nTwo."
        );
        assert_eq!(without_notes("Keep. /* never closed\n\nGone."), "Keep. ");
        assert_eq!(without_notes("No notes here."), "No notes here.");
    }

    #[test]
    fn emphasis_marks_go_unless_escaped() {
        assert_eq!(
            plain("**Bold** and *it* and _under_"),
            "Bold and it and under"
        );
        assert_eq!(plain(r"2 \* 3 \_x"), "2 * 3 _x");
    }
}
