//! The `@` mentions of the console's prompt: the open project's cast names (read with the
//! shot strip's references, `shot.rs`), and the names offered for the mention typed at the
//! prompt's caret.

use super::Core;
use crate::api::ApiError;
use crate::cast::MentionOffer;
use crate::platform::{LogLevel, Platform};

impl<P: Platform> Core<P> {
    /// Keeps the cast names read. A failed read keeps the names read before and is logged:
    /// suggestions are a help, never a blocker, so it raises no banner.
    pub(super) fn keep_cast(&self, names: Result<Vec<String>, ApiError>) {
        match names {
            Ok(names) => {
                if self.console.read(|c| c.cast != names) {
                    self.write(&self.console, |c| c.cast = names);
                }
            }
            Err(e) => self.log(LogLevel::Warn, &e.to_string()),
        }
    }

    /// The cast names offered for the mention typed at `caret` (UTF-16) in `text`, or `None`.
    pub fn mention_at(&self, text: &str, caret: usize) -> Option<MentionOffer> {
        self.console.read(|c| {
            let names: Vec<&str> = c.cast.iter().map(String::as_str).collect();
            MentionOffer::of(&names, text, caret)
        })
    }
}
