//! The parts of the core's state, each with its own view and version: what the core tells the
//! host changed, and what the host subscribes to. Below both the core and the platform.

use serde::Serialize;

/// The parts of the state the UI renders, each with its own view and version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Recent,
    Banner,
    Console,
    Jobs,
    Library,
    /// The library with only the grid's window of matching videos.
    Cards,
    Metadata,
    Shot,
    Compare,
    Shares,
    Spend,
}

impl Part {
    pub const ALL: [Part; 11] = [
        Part::Recent,
        Part::Banner,
        Part::Console,
        Part::Jobs,
        Part::Library,
        Part::Cards,
        Part::Metadata,
        Part::Shot,
        Part::Compare,
        Part::Shares,
        Part::Spend,
    ];

    /// The part's name, as in the snapshot's keys.
    pub fn name(self) -> &'static str {
        match self {
            Part::Recent => "recent",
            Part::Banner => "banner",
            Part::Console => "console",
            Part::Jobs => "jobs",
            Part::Library => "library",
            Part::Cards => "cards",
            Part::Metadata => "metadata",
            Part::Shot => "shot",
            Part::Compare => "compare",
            Part::Shares => "shares",
            Part::Spend => "spend",
        }
    }

    pub fn from_name(name: &str) -> Option<Part> {
        Part::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether a subscriber to this part hears of a change of `changed`: its own, and for
    /// `cards`, a window on the library, the library's too.
    pub fn hears(self, changed: Part) -> bool {
        self == changed || (self, changed) == (Part::Cards, Part::Library)
    }

    pub fn index(self) -> usize {
        self as usize
    }
}
