//! Turns for one kind of work in the single-threaded core: each call waits for those made
//! before it, in the order they were made, instead of being refused while one is in flight.
//! Three pictures chosen at once become three uploads, one after another.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

#[derive(Debug, Default)]
pub struct Turns {
    /// The ticket the next caller takes.
    next: Cell<u64>,
    /// The ticket whose turn it is.
    serving: Cell<u64>,
    waiting: RefCell<Vec<Waker>>,
}

impl Turns {
    /// Waits for this caller's turn; it lasts until the returned guard is dropped.
    pub fn take(&self) -> impl Future<Output = Turn<'_>> {
        let ticket = self.next.get();
        self.next.set(ticket + 1);
        Waiting {
            turns: self,
            ticket,
        }
    }
}

struct Waiting<'a> {
    turns: &'a Turns,
    ticket: u64,
}

impl<'a> Future for Waiting<'a> {
    type Output = Turn<'a>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Turn<'a>> {
        if self.turns.serving.get() == self.ticket {
            return Poll::Ready(Turn { turns: self.turns });
        }
        self.turns.waiting.borrow_mut().push(cx.waker().clone());
        Poll::Pending
    }
}

/// A caller's turn, passed on when dropped.
pub struct Turn<'a> {
    turns: &'a Turns,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.turns.serving.set(self.turns.serving.get() + 1);
        // Woken with no borrow held: a waker may run its task at once.
        let waiting = self.turns.waiting.take();
        for waker in waiting {
            waker.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready<T>(future: &mut Pin<Box<impl Future<Output = T>>>) -> Option<T> {
        let waker = Waker::noop();
        match future.as_mut().poll(&mut Context::from_waker(waker)) {
            Poll::Ready(value) => Some(value),
            Poll::Pending => None,
        }
    }

    #[test]
    fn callers_take_turns_in_the_order_they_came() {
        let turns = Turns::default();
        let mut first = Box::pin(turns.take());
        let mut second = Box::pin(turns.take());
        let mut third = Box::pin(turns.take());
        assert!(ready(&mut second).is_none(), "the second waits");
        let turn = ready(&mut first).expect("the first goes at once");
        assert!(ready(&mut third).is_none());
        drop(turn);
        assert!(
            ready(&mut third).is_none(),
            "the third waits for the second"
        );
        drop(ready(&mut second).expect("then the second"));
        drop(ready(&mut third).expect("then the third"));
        let mut later = Box::pin(turns.take());
        assert!(
            ready(&mut later).is_some(),
            "a caller after them all goes at once"
        );
    }
}
