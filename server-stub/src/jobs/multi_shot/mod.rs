//! Several shots of a sequence made in one call, by a model that makes shots (Kling 3.0): the
//! job asks for each shot's prompt and length, and when its video is done, each shot's part of
//! it is cut out (the export's own road: decoded, encoded again, with its sound) and saved to
//! the library as a take of its own, which joins its shot.

mod cut;
mod plan;

pub use plan::{check, grouped};

use crate::project::ProjectFolder;

/// Where the take of a multi-shot job's `index`th shot (from 1) is kept in `project`'s library.
pub fn part_key(project: &str, id: &str, index: usize) -> String {
    ProjectFolder::of(project).file(&format!("{id}-shot{index}.mp4"))
}
