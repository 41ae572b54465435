//! Locks by name: work on one thing (a video's pick, a project's references, a review link's
//! notes, a poster) waits only for other work on the same thing, never for the whole server.
//! A name's lock lives while someone holds or waits for it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::OwnedMutexGuard;

#[derive(Default)]
pub struct KeyedLocks(Mutex<BTreeMap<String, Weak<tokio::sync::Mutex<()>>>>);

impl KeyedLocks {
    pub const fn new() -> KeyedLocks {
        KeyedLocks(Mutex::new(BTreeMap::new()))
    }

    /// Waits for the lock of `name`; it is held until the guard is dropped.
    pub async fn lock(&self, name: &str) -> OwnedMutexGuard<()> {
        let lock = {
            let mut locks = self.0.lock().unwrap();
            locks.retain(|_, lock| lock.strong_count() > 0);
            match locks.get(name).and_then(Weak::upgrade) {
                Some(lock) => lock,
                None => {
                    let lock = Arc::new(tokio::sync::Mutex::new(()));
                    locks.insert(name.to_owned(), Arc::downgrade(&lock));
                    lock
                }
            }
        };
        lock.lock_owned().await
    }

    /// How many names have a lock now (held or waited for).
    #[cfg(test)]
    fn len(&self) -> usize {
        let mut locks = self.0.lock().unwrap();
        locks.retain(|_, lock| lock.strong_count() > 0);
        locks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_name_waits_for_itself_only() {
        let locks = KeyedLocks::new();
        let a = locks.lock("a").await;
        // Another name is free while "a" is held.
        let b = locks.lock("b").await;
        drop(b);
        let mut second = std::pin::pin!(locks.lock("a"));
        assert!(
            futures_util::poll!(second.as_mut()).is_pending(),
            "a second holder of \"a\" waits"
        );
        drop(a);
        let again = second.await;
        drop(again);
        assert_eq!(locks.len(), 0, "no lock is kept for a name nobody holds");
    }
}
