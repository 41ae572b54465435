//! Studio's client core. The rules of the specification live in plain Rust modules that are
//! tested natively; the `wasm` module is the only code that touches the browser.

pub mod api;
pub mod asset;
pub mod constants;
pub mod core;
pub mod error;
pub mod inputs;
pub mod job;
pub mod part;
pub mod platform;
pub mod price;
pub mod project_id;
pub mod recent;
pub mod review;
pub mod sequence;
pub mod snapshot;
pub mod sse;
pub mod store;
pub mod time;
pub mod video_size;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
