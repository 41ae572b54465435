//! Review links as the server answers them: a link with the comments and decisions reviewers
//! left, the page a link opens, and one note as the event stream pushes it.

use serde::Serialize;
use serde_json::Value;

/// Whether `c` may not stand in a reviewer's name: a control character or a line or paragraph
/// separator (a line break would forge a second line under the name, such as "Approved by
/// Client Director") or a bidirectional control (which reorders the text after it).
pub fn breaks_a_name(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// A reviewer's name as shown: on one line, with nothing that breaks or reorders it (the
/// server refuses such names; one kept from before is shown without them).
pub fn shown_name(name: &str) -> String {
    name.chars().filter(|&c| !breaks_a_name(c)).collect()
}

/// A reviewer's comment at a moment of a video.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewComment {
    pub id: String,
    pub video: String,
    pub at_seconds: f64,
    pub name: String,
    pub text: String,
    pub created_at: String,
}

/// What a reviewer decided of a video.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approved,
    ChangesRequested,
}

impl Verdict {
    pub fn from_name(name: &str) -> Option<Verdict> {
        match name {
            "approved" => Some(Verdict::Approved),
            "changes_requested" => Some(Verdict::ChangesRequested),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::ChangesRequested => "changes_requested",
        }
    }

    /// As the review page's buttons say it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Approved => "Approved",
            Verdict::ChangesRequested => "Changes requested",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReviewDecision {
    pub id: String,
    pub video: String,
    pub decision: Verdict,
    pub name: String,
    pub created_at: String,
}

/// One note, as the `review` event carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    Comment(ReviewComment),
    Decision(ReviewDecision),
}

/// The `review` event: a note left on one of the project's links.
#[derive(Debug, Clone, PartialEq)]
pub struct PushedNote {
    pub share_id: String,
    pub note: Note,
}

/// A link as the studio lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    pub id: String,
    pub videos: Vec<String>,
    pub comments_enabled: bool,
    pub created_at: String,
    pub expires_at: String,
    pub expired: bool,
    pub comments: Vec<ReviewComment>,
    pub decisions: Vec<ReviewDecision>,
}

impl Share {
    /// Keeps a pushed note (once: the stream and a reload may both bring it).
    pub fn add(&mut self, note: Note) {
        match note {
            Note::Comment(c) if !self.comments.iter().any(|o| o.id == c.id) => {
                self.comments.push(c)
            }
            Note::Decision(d) if !self.decisions.iter().any(|o| o.id == d.id) => {
                self.decisions.push(d)
            }
            _ => {}
        }
    }
}

/// A link just made: its `url` is shown only now.
#[derive(Debug, Clone, PartialEq)]
pub struct Created {
    pub id: String,
    pub url: String,
    pub expires_at: String,
}

/// One video of a review page.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewVideo {
    pub file_name: String,
    /// What it shows: its prompt, or an exported cut's sequence name.
    pub title: Option<String>,
    pub public_url: String,
    pub poster_url: String,
    pub comments: Vec<ReviewComment>,
    pub decisions: Vec<ReviewDecision>,
}

/// What a review link opens.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewPage {
    /// The link's title.
    pub title: Option<String>,
    pub videos: Vec<ReviewVideo>,
    pub expires_at: String,
    pub comments_enabled: bool,
}

// Read field by field from JSON values, as `asset` reads videos: a derived deserializer costs
// the wasm its visitor code for every field of every type.

fn text(v: &Value, field: &str) -> Option<String> {
    v.get(field)?.as_str().map(str::to_owned)
}

fn each<T>(v: &Value, field: &str, read: impl Fn(&Value) -> Option<T>) -> Vec<T> {
    v.get(field)
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(read).collect())
        .unwrap_or_default()
}

impl ReviewComment {
    pub fn from_value(v: &Value) -> Option<ReviewComment> {
        Some(ReviewComment {
            id: text(v, "id")?,
            video: text(v, "video")?,
            at_seconds: v.get("at_seconds")?.as_f64()?,
            name: text(v, "name")?,
            text: text(v, "text")?,
            created_at: text(v, "created_at").unwrap_or_default(),
        })
    }
}

impl ReviewDecision {
    pub fn from_value(v: &Value) -> Option<ReviewDecision> {
        Some(ReviewDecision {
            id: text(v, "id")?,
            video: text(v, "video")?,
            decision: Verdict::from_name(v.get("decision")?.as_str()?)?,
            name: text(v, "name")?,
            created_at: text(v, "created_at").unwrap_or_default(),
        })
    }
}

impl PushedNote {
    /// `{share_id, note: {kind: "comment" | "decision", ...}}`.
    pub fn from_value(v: &Value) -> Option<PushedNote> {
        let note = v.get("note")?;
        Some(PushedNote {
            share_id: text(v, "share_id")?,
            note: match note.get("kind")?.as_str()? {
                "comment" => Note::Comment(ReviewComment::from_value(note)?),
                "decision" => Note::Decision(ReviewDecision::from_value(note)?),
                _ => return None,
            },
        })
    }
}

impl Share {
    pub fn from_value(v: &Value) -> Option<Share> {
        Some(Share {
            id: text(v, "id")?,
            videos: each(v, "videos", |n| n.as_str().map(str::to_owned)),
            comments_enabled: v
                .get("comments_enabled")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            created_at: text(v, "created_at").unwrap_or_default(),
            expires_at: text(v, "expires_at").unwrap_or_default(),
            expired: v.get("expired").and_then(Value::as_bool).unwrap_or(false),
            comments: each(v, "comments", ReviewComment::from_value),
            decisions: each(v, "decisions", ReviewDecision::from_value),
        })
    }

    /// The `shares` of a list answer.
    pub fn list(v: &Value) -> Option<Vec<Share>> {
        v.get("shares")?.as_array()?;
        Some(each(v, "shares", Share::from_value))
    }
}

impl Created {
    pub fn from_value(v: &Value) -> Option<Created> {
        Some(Created {
            id: text(v, "id")?,
            url: text(v, "url")?,
            expires_at: text(v, "expires_at").unwrap_or_default(),
        })
    }
}

impl ReviewPage {
    pub fn from_value(v: &Value) -> Option<ReviewPage> {
        v.get("videos")?.as_array()?;
        Some(ReviewPage {
            title: text(v, "title"),
            videos: each(v, "videos", |video| {
                Some(ReviewVideo {
                    file_name: text(video, "file_name")?,
                    title: text(video, "title"),
                    public_url: text(video, "public_url")?,
                    poster_url: text(video, "poster_url").unwrap_or_default(),
                    comments: each(video, "comments", ReviewComment::from_value),
                    decisions: each(video, "decisions", ReviewDecision::from_value),
                })
            }),
            expires_at: text(v, "expires_at").unwrap_or_default(),
            comments_enabled: v
                .get("comments_enabled")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// A moment of a video as the comments show it: `m:ss.s`.
pub fn moment(seconds: f64) -> String {
    let tenths = (seconds.max(0.0) * 10.0).round() as u64;
    format!("{}:{:02}.{}", tenths / 600, (tenths / 10) % 60, tenths % 10)
}

/// The token of a review page's path `/review/<token>`.
pub fn token_of(path: &str) -> Option<&str> {
    let token = path.strip_prefix("/review/")?.trim_end_matches('/');
    let formed = !token.is_empty()
        && token.len() <= 64
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
    formed.then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails on showing a name as it was sent: "Ann\nApproved by Client Director" read as a
    /// second line, a decision nobody made.
    #[test]
    fn a_name_is_shown_on_one_line_and_in_its_own_order() {
        assert_eq!(
            shown_name("Ann\nApproved by Client Director"),
            "AnnApproved by Client Director"
        );
        assert_eq!(shown_name("Ann\u{2028}Approved"), "AnnApproved");
        assert_eq!(shown_name("\u{202E}nnA"), "nnA");
        assert_eq!(shown_name("Zoë Ångström"), "Zoë Ångström");
        assert!(breaks_a_name('\u{2066}') && breaks_a_name('\r') && !breaks_a_name(' '));
    }

    #[test]
    fn moments_read_as_minutes_seconds_and_tenths() {
        assert_eq!(moment(0.0), "0:00.0");
        assert_eq!(moment(1.26), "0:01.3");
        assert_eq!(moment(61.0), "1:01.0");
        assert_eq!(moment(-3.0), "0:00.0");
    }

    #[test]
    fn a_review_path_gives_its_token() {
        assert_eq!(token_of("/review/abc_DEF-1"), Some("abc_DEF-1"));
        assert_eq!(token_of("/review/abc/"), Some("abc"));
        for bad in ["/review/", "/review/a/b", "/review/a%20b", "/p1", "/review"] {
            assert_eq!(token_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_pushed_note_is_kept_once() {
        let text = r#"{"share_id":"s","note":{"kind":"comment","id":"1","video":"a.mp4","at_seconds":1.5,"name":"Ana","text":"<b>hi</b>","created_at":"2026-11-25T10:00:00Z"}}"#;
        let pushed = PushedNote::from_value(&serde_json::from_str(text).unwrap()).unwrap();
        let mut share = Share {
            id: "s".into(),
            videos: vec!["a.mp4".into()],
            comments_enabled: true,
            created_at: String::new(),
            expires_at: String::new(),
            expired: false,
            comments: vec![],
            decisions: vec![],
        };
        share.add(pushed.note.clone());
        share.add(pushed.note);
        assert_eq!(share.comments.len(), 1);
        assert_eq!(share.comments[0].text, "<b>hi</b>");
    }
}
