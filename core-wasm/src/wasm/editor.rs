//! The root of the sequence editor's wasm (built with the `sequence-editor` feature in place of
//! the studio's `wasm/mod.rs`): the browser's platform and the `SequenceEditor` handle.

pub mod browser;
mod listeners;
mod sequence;

pub use sequence::SequenceEditor;
