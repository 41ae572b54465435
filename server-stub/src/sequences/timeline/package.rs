//! The names source files get under `media/` in a package: portable (`:`, in every job id, is
//! not allowed in Windows file names, so it becomes `_`) and unique, so that `a:b.mp4` and
//! `a_b.mp4` are two files, never one name for two entries (the second is `a_b-2.mp4`).

use std::collections::{HashMap, HashSet};

/// The names given so far, for the files of one package.
#[derive(Debug, Default)]
pub struct Names {
    given: HashMap<String, String>,
    taken: HashSet<String>,
}

impl Names {
    /// The name of `file` in the package: the same each time it is asked for.
    pub fn name(&mut self, file: &str) -> String {
        if let Some(name) = self.given.get(file) {
            return name.clone();
        }
        let portable = crate::zip::portable(file);
        let (stem, extension) = match portable.rsplit_once('.') {
            Some((stem, extension)) if !stem.is_empty() => {
                (stem.to_owned(), format!(".{extension}"))
            }
            _ => (portable.clone(), String::new()),
        };
        let name = std::iter::once(portable)
            .chain((2..).map(|n| format!("{stem}-{n}{extension}")))
            .find(|candidate| !self.taken.contains(&candidate.to_ascii_lowercase()))
            .expect("an unused name among infinitely many");
        self.taken.insert(name.to_ascii_lowercase());
        self.given.insert(file.to_owned(), name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails on naming files by swapping `:` for `_` alone: two entries, one name.
    #[test]
    fn names_are_portable_and_unique() {
        let mut names = Names::default();
        assert_eq!(names.name("local-1:task_a.mp4"), "local-1_task_a.mp4");
        assert_eq!(names.name("a:b.mp4"), "a_b.mp4");
        assert_eq!(names.name("a_b.mp4"), "a_b-2.mp4");
        assert_eq!(
            names.name("a:b.mp4"),
            "a_b.mp4",
            "the same file, the same name"
        );
        assert_eq!(
            names.name("A_B.mp4"),
            "A_B-3.mp4",
            "names differing in case only collide on some disks"
        );
        assert_eq!(names.name("a_b-2.mp4"), "a_b-2-2.mp4");
    }
}
