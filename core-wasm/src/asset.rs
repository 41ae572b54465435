//! Saved videos (spec section 3) and the presentation rules for them (spec section 9).

use serde_json::Value;

use crate::constants::TITLE_MAX_CHARS;

#[derive(Debug, Clone, PartialEq)]
pub struct Asset {
    pub key: String,
    pub size_bytes: u64,
    pub last_modified: String,
    pub public_url: Option<String>,
    /// A small JPEG of the first frame (beyond the spec's fields).
    pub poster_url: Option<String>,
    /// The prompt from the video's metadata, when the server has read it.
    pub prompt: Option<String>,
    /// The library file name or job id it extends or remixes, from its metadata.
    pub parent: Option<String>,
    /// Starred in the library.
    pub favourite: bool,
    pub decision: Option<Decision>,
    /// When the server read this pick back after a change (Unix ms; picks answered or pushed):
    /// a pick heard of later but read earlier is older, and is not shown.
    pub picked_at: Option<i64>,
}

/// What the studio decided of a video.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approved,
    Rejected,
}

impl Decision {
    pub fn from_name(name: &str) -> Option<Decision> {
        match name {
            "approved" => Some(Decision::Approved),
            "rejected" => Some(Decision::Rejected),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Decision::Approved => "approved",
            Decision::Rejected => "rejected",
        }
    }
}

/// Reads one video of an assets answer (or a PATCH answer); `None` without a string `key`.
pub fn parse_asset(v: &Value) -> Option<Asset> {
    let text = |field: &str| v.get(field).and_then(Value::as_str).map(str::to_owned);
    let url = |field: &str| text(field).filter(|u| !u.is_empty());
    Some(Asset {
        key: v.get("key")?.as_str()?.to_owned(),
        size_bytes: v.get("size_bytes").and_then(Value::as_u64).unwrap_or(0),
        last_modified: text("last_modified").unwrap_or_default(),
        public_url: url("public_url"),
        poster_url: url("poster_url"),
        prompt: text("prompt"),
        parent: text("parent"),
        favourite: v.get("favourite").and_then(Value::as_bool).unwrap_or(false),
        decision: text("decision").as_deref().and_then(Decision::from_name),
        picked_at: v.get("picked_at").and_then(Value::as_i64),
    })
}

/// Reads the `videos` array of an assets answer; entries without a string `key` are skipped,
/// missing or malformed other fields are left empty (read field by field: a derived
/// deserializer costs the wasm its visitor code for every field).
pub fn parse_assets(answer: &Value) -> Option<Vec<Asset>> {
    let videos = answer.get("videos")?.as_array()?;
    Some(videos.iter().filter_map(parse_asset).collect())
}

/// The last segment of a storage key.
pub fn file_name(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

/// The card title: the file name without its `{model}:task_` prefix (for example
/// `sora-2:task_`) and `.mp4` extension, cut to 20 characters.
pub fn title(key: &str) -> String {
    let name = file_name(key);
    // Found as bytes and cut with `get`: a text pattern's searcher and an index's panic path
    // would each bring code of their own into the review page's wasm.
    const TASK: &[u8] = b":task_";
    let at = name.as_bytes().windows(TASK.len()).position(|w| w == TASK);
    let parts = at.and_then(|at| Some((name.get(..at)?, name.get(at + TASK.len()..)?)));
    let name = match parts {
        Some((model, task)) if is_model_name(model) => task,
        _ => name,
    };
    let name = name.strip_suffix(".mp4").unwrap_or(name);
    name.chars().take(TITLE_MAX_CHARS).collect()
}

fn is_model_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// Size in MB (2^20 bytes) with two decimals, rounded half up (integer arithmetic keeps
/// the float formatter out of the wasm).
pub fn size_mb(size_bytes: u64) -> String {
    const MB: u64 = 1_048_576;
    // Whole megabytes and the rounded hundredths of the rest: no overflow up to u64::MAX.
    let hundredths = size_bytes / MB * 100 + (size_bytes % MB * 100 + MB / 2) / MB;
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

/// Longest download name, in characters, before `.mp4`.
const DOWNLOAD_NAME_MAX_CHARS: usize = 60;

/// A readable file name for a download: the prompt's words joined by `-` (ASCII punctuation,
/// spaces and control characters are separators; letters of any script stay as written), cut
/// at a word to 60 characters; the file name when there is no prompt.
pub fn download_name(key: &str, prompt: Option<&str>) -> String {
    let mut name = String::new();
    let separator = |c: char| {
        (c.is_ascii() && !c.is_ascii_alphanumeric()) || c.is_whitespace() || c.is_control()
    };
    let words = prompt
        .unwrap_or_default()
        .split(separator)
        .filter(|w| !w.is_empty());
    for word in words {
        let grown = name.chars().count() + usize::from(!name.is_empty()) + word.chars().count();
        if grown > DOWNLOAD_NAME_MAX_CHARS {
            if name.is_empty() {
                name = word.chars().take(DOWNLOAD_NAME_MAX_CHARS).collect();
            }
            break;
        }
        if !name.is_empty() {
            name.push('-');
        }
        name.push_str(word);
    }
    if name.is_empty() {
        return file_name(key).to_owned();
    }
    format!("{name}.mp4")
}

/// The companion metadata address: the public URL with `.mp4` replaced by `.json`.
pub fn metadata_url(public_url: &str) -> String {
    match public_url.rsplit_once(".mp4") {
        Some((before, after)) => format!("{before}.json{after}"),
        None => format!("{public_url}.json"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn title_drops_prefix_and_extension_and_cuts_to_twenty() {
        assert_eq!(
            title("projects/p/sora-2:task_01k7yhn8abcdefghijklmnop.mp4"),
            "01k7yhn8abcdefghijkl"
        );
        assert_eq!(title("projects/p/local-1:task_abc.mp4"), "abc");
        assert_eq!(title("projects/p/holiday.mp4"), "holiday");
        assert_eq!(title("a.mp4.mp4"), "a.mp4");
        assert_eq!(
            title("x/ünïcödé-ünïcödé-ünïcödé.mp4"),
            "ünïcödé-ünïcödé-ünïc"
        );
    }

    #[test]
    fn file_name_is_the_last_segment() {
        assert_eq!(file_name("projects/p/v.mp4"), "v.mp4");
        assert_eq!(file_name("v.mp4"), "v.mp4");
    }

    #[test]
    fn size_is_in_mb_with_two_decimals() {
        assert_eq!(size_mb(0), "0.00");
        assert_eq!(size_mb(1_048_576), "1.00");
        assert_eq!(size_mb(5_347_737), "5.10");
        assert_eq!(size_mb(5_242), "0.00");
        assert_eq!(size_mb(5_243), "0.01");
        assert_eq!(size_mb(u64::MAX), "17592186044416.00");
    }

    #[test]
    fn downloads_are_named_after_the_prompt() {
        let key = "projects/p/local-1:task_01.mp4";
        assert_eq!(
            download_name(key, Some("A red kite, in the wind!")),
            "A-red-kite-in-the-wind.mp4"
        );
        assert_eq!(
            download_name(key, Some("Ünïcödé café\u{3000}東京/x")),
            "Ünïcödé-café-東京-x.mp4"
        );
        let long = "word ".repeat(30);
        let name = download_name(key, Some(&long));
        assert!(name.len() <= 64 && name.ends_with("word.mp4"), "{name}");
        assert_eq!(
            download_name(key, Some(&"x".repeat(100))),
            format!("{}.mp4", "x".repeat(60))
        );
        assert_eq!(download_name(key, Some("  ?! ")), "local-1:task_01.mp4");
        assert_eq!(download_name(key, None), "local-1:task_01.mp4");
    }

    #[test]
    fn metadata_sits_beside_the_video() {
        assert_eq!(
            metadata_url("http://h/media/p/a.mp4"),
            "http://h/media/p/a.json"
        );
        assert_eq!(
            metadata_url("http://h/a.mp4?sig=1"),
            "http://h/a.json?sig=1"
        );
        assert_eq!(metadata_url("http://h/a.mp4.mp4"), "http://h/a.mp4.json");
    }

    #[test]
    fn parses_the_videos_array_and_skips_junk() {
        let answer = json!({"videos": [
            {"key": "k1", "size_bytes": 10, "last_modified": "2026-01-01T00:00:00Z", "public_url": "u"},
            {"key": "k2", "public_url": ""},
            {"nokey": true},
            7
        ]});
        let assets = parse_assets(&answer).unwrap();
        assert_eq!(assets.len(), 2);
        assert_eq!(assets[1].public_url, None);
        assert!(parse_assets(&json!({"items": []})).is_none());
    }
}
