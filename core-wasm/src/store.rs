//! Lists kept in local storage as JSON arrays. An unreadable value never crashes anything and
//! is never silently dropped: the valid entries are kept and the raw text is moved aside.

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use crate::constants::BACKUP_KEY_PREFIX;
use crate::platform::Platform;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("Could not write to local storage: {0}")]
pub struct StoreError(pub String);

/// A list read from storage.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded<T> {
    pub items: Vec<T>,
    /// The raw text now stored under the key (after any repair).
    pub raw: Option<String>,
    /// What went wrong while reading, in words for the banner: where the unreadable text was
    /// kept, or why it could not be kept.
    pub problem: Option<String>,
}

/// Parses the text stored under a key into the entries `read` takes (it answers `None` for an
/// entry that is not valid), reporting whether any were not. Entries are read by hand, never
/// by serde: its type errors would bring its float formatting into the wasm.
pub fn parse<T>(raw: Option<&str>, read: impl Fn(Value) -> Option<T>) -> (Vec<T>, bool) {
    let Some(raw) = raw else {
        return (Vec::new(), false);
    };
    match crate::json::parse(raw) {
        Some(Value::Array(values)) => {
            let total = values.len();
            let items: Vec<T> = values.into_iter().filter_map(&read).collect();
            let damaged = items.len() != total;
            (items, damaged)
        }
        _ => (Vec::new(), true),
    }
}

/// Backups kept of one key: the newest.
pub const BACKUPS_KEPT: usize = 3;

/// Loads the list under `key`, repairing it when damaged: the original text goes to
/// `backup:{key}:{now}` (the newest `BACKUPS_KEPT` are kept) and the key is rewritten with
/// the valid entries, only once the backup is written. Never fails: when storage refuses the
/// repair, the valid entries still come back with the reason.
pub fn load<T: Serialize>(
    platform: &impl Platform,
    key: &str,
    what: &str,
    read: impl Fn(Value) -> Option<T>,
) -> Loaded<T> {
    let raw = platform.get_item(key);
    let (items, damaged) = parse(raw.as_deref(), read);
    if !damaged {
        return Loaded {
            items,
            raw,
            problem: None,
        };
    }
    let backup_key = format!("{BACKUP_KEY_PREFIX}{key}:{}", platform.now_iso());
    let repaired = platform
        .set_item(&backup_key, raw.as_deref().unwrap_or_default())
        .map_err(StoreError)
        .and_then(|()| {
            // Backup keys end with the time they were made, which sorts as text.
            platform.keep_last(&format!("{BACKUP_KEY_PREFIX}{key}:"), BACKUPS_KEPT);
            save(platform, key, &items)
        });
    match repaired {
        Ok(repaired) => Loaded {
            items,
            raw: Some(repaired),
            problem: Some(format!(
                "Some {what} could not be read; the original text is kept under {backup_key}"
            )),
        },
        Err(e) => Loaded {
            items,
            raw,
            problem: Some(format!("Some {what} could not be read. {e}")),
        },
    }
}

/// Writes the list under `key` and returns the text written.
pub fn save<T: Serialize>(
    platform: &impl Platform,
    key: &str,
    items: &[T],
) -> Result<String, StoreError> {
    let raw = serde_json::to_value(items)
        .map(|value| crate::json::text(&value))
        .map_err(|e| StoreError(e.to_string()))?;
    platform.set_item(key, &raw).map_err(StoreError)?;
    Ok(raw)
}
