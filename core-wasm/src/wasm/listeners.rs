//! Who listens to a wasm handle, and how they are told: one way for the studio, the sequence
//! editor and the review page.
//!
//! - `subscribe` answers the function that unsubscribes (loro's rule); once the handle is gone,
//!   calling it does nothing.
//! - A change is told once its state is written and no borrow of it is held, so a listener may
//!   read the handle's view at once.
//! - A change made while listeners are being told (a listener that changes the state again)
//!   is queued and told after every listener has heard the one before: no listener is called
//!   from inside another's call.
//! - A listener that throws is logged; the others are still told.
//!
//! Each handle keeps its views in a [`Views`]: the same JS object until the state's version
//! moves, as `useSyncExternalStore` wants.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What a change is about, and what a listener may ask to hear of: `()` where a handle has one
/// state, a part of it where listeners choose.
pub trait Topic: Copy + 'static {
    /// Whether a listener that asked for `wanted` hears of a change of `self`.
    fn heard_by(self, wanted: Self) -> bool;
}

impl Topic for () {
    fn heard_by(self, _wanted: ()) -> bool {
        true
    }
}

/// A listener of a part hears of its own changes and, for `cards`, of the library's.
impl Topic for crate::part::Part {
    fn heard_by(self, wanted: Self) -> bool {
        wanted.hears(self)
    }
}

struct Listener<T> {
    id: u32,
    /// What it asked to hear of; everything when `None`.
    wants: Option<T>,
    function: Function,
}

struct Shared<T> {
    list: RefCell<Vec<Listener<T>>>,
    next_id: Cell<u32>,
    queue: RefCell<Vec<T>>,
    telling: Cell<bool>,
}

/// A handle's listeners; clones share them.
pub struct Listeners<T: Topic> {
    shared: Rc<Shared<T>>,
}

impl<T: Topic> Clone for Listeners<T> {
    fn clone(&self) -> Self {
        Listeners {
            shared: Rc::clone(&self.shared),
        }
    }
}

impl<T: Topic> Default for Listeners<T> {
    fn default() -> Self {
        Listeners {
            shared: Rc::new(Shared {
                list: RefCell::default(),
                next_id: Cell::new(0),
                queue: RefCell::default(),
                telling: Cell::new(false),
            }),
        }
    }
}

impl<T: Topic> Listeners<T> {
    /// Adds `function`, told of the changes `wants` hears of (all when `None`); answers the
    /// function that removes it.
    pub fn subscribe(&self, function: Function, wants: Option<T>) -> Function {
        let id = self.shared.next_id.get();
        self.shared.next_id.set(id + 1);
        self.shared.list.borrow_mut().push(Listener {
            id,
            wants,
            function,
        });
        let shared = Rc::downgrade(&self.shared);
        Closure::once_into_js(move || {
            if let Some(shared) = shared.upgrade() {
                shared.list.borrow_mut().retain(|l| l.id != id);
            }
        })
        .unchecked_into()
    }

    /// Tells the listeners that hear of `change`. Call it with no borrow of the state held.
    pub fn tell(&self, change: T) {
        self.shared.queue.borrow_mut().push(change);
        if self.shared.telling.replace(true) {
            return;
        }
        loop {
            let changes = std::mem::take(&mut *self.shared.queue.borrow_mut());
            if changes.is_empty() {
                break;
            }
            for change in changes {
                let hearing: Vec<Function> = self
                    .shared
                    .list
                    .borrow()
                    .iter()
                    .filter(|l| l.wants.is_none_or(|wants| change.heard_by(wants)))
                    .map(|l| l.function.clone())
                    .collect();
                for function in hearing {
                    if let Err(error) = function.call0(&JsValue::NULL) {
                        web_sys::console::error_1(&error);
                    }
                }
            }
        }
        self.shared.telling.set(false);
    }
}

/// A handle's views, each kept with the version it was made at.
pub struct Views<const N: usize> {
    kept: RefCell<[Option<(u64, JsValue)>; N]>,
}

impl<const N: usize> Default for Views<N> {
    fn default() -> Self {
        Views {
            kept: RefCell::new(std::array::from_fn(|_| None)),
        }
    }
}

impl<const N: usize> Views<N> {
    /// View `index` at `version`: the object kept for it, or a new one from `make`.
    pub fn at(&self, index: usize, version: u64, make: impl FnOnce() -> JsValue) -> JsValue {
        if let Some((seen, view)) = &self.kept.borrow()[index] {
            if *seen == version {
                return view.clone();
            }
        }
        let view = make();
        self.kept.borrow_mut()[index] = Some((version, view.clone()));
        view
    }
}
