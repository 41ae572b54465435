//! One part of the state with its own version, so a view is rebuilt only when its part changed.

use std::cell::{Cell, RefCell};

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
    Metadata,
    Shot,
    Compare,
}

impl Part {
    pub const ALL: [Part; 8] = [
        Part::Recent,
        Part::Banner,
        Part::Console,
        Part::Jobs,
        Part::Library,
        Part::Metadata,
        Part::Shot,
        Part::Compare,
    ];

    /// The part's name, as in the snapshot's keys.
    pub fn name(self) -> &'static str {
        match self {
            Part::Recent => "recent",
            Part::Banner => "banner",
            Part::Console => "console",
            Part::Jobs => "jobs",
            Part::Library => "library",
            Part::Metadata => "metadata",
            Part::Shot => "shot",
            Part::Compare => "compare",
        }
    }

    pub fn from_name(name: &str) -> Option<Part> {
        Part::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

pub struct Slice<S> {
    pub part: Part,
    state: RefCell<S>,
    version: Cell<u64>,
}

impl<S: Default> Slice<S> {
    pub fn new(part: Part) -> Self {
        Slice {
            part,
            state: RefCell::default(),
            version: Cell::new(0),
        }
    }
}

impl<S> Slice<S> {
    #[inline(always)]
    pub fn read<R>(&self, f: impl FnOnce(&S) -> R) -> R {
        f(&self.state.borrow())
    }

    /// Changes the state and bumps the version; the borrow ends before this returns.
    #[inline(always)]
    pub(super) fn write<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        let result = f(&mut self.state.borrow_mut());
        self.version.set(self.version.get() + 1);
        result
    }

    pub fn version(&self) -> u64 {
        self.version.get()
    }
}
