//! One part of the state with its own version, so a view is rebuilt only when its part changed.

use std::cell::{Cell, RefCell};

use crate::part::Part;

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
