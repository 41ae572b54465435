//! Studio's client core. The rules of the specification live in plain Rust modules that are
//! tested natively; the `wasm` module is the only code that touches the browser.

pub mod api;
pub mod asset;
pub mod cast;
pub mod constants;
pub mod core;
pub mod error;
/// Read by the server only: the browser sends a script as it is.
#[cfg(not(target_arch = "wasm32"))]
pub mod fountain;
pub mod inputs;
pub mod job;
pub mod json;
pub mod letters;
pub mod part;
pub mod platform;
pub mod price;
pub mod project_id;
pub mod recent;
pub mod review;
pub mod review_page;
pub mod sequence;
pub mod snapshot;
pub mod sse;
pub mod store;
#[cfg(not(target_arch = "wasm32"))]
pub mod storyboard;
pub mod time;
pub mod video_size;

/// The studio's wasm surface; or built with the `sequence-editor` feature, the sequence
/// editor's (the page loads that one the first time a sequence is opened); or with the
/// `review-page` feature, the review page's (all a review link's page loads).
#[cfg(all(
    target_arch = "wasm32",
    not(any(feature = "sequence-editor", feature = "review-page"))
))]
pub mod wasm;
#[cfg(all(target_arch = "wasm32", feature = "sequence-editor"))]
#[path = "wasm/editor.rs"]
pub mod wasm;
#[cfg(all(target_arch = "wasm32", feature = "review-page"))]
#[path = "wasm/review_page.rs"]
pub mod wasm;

/// The wasm's allocator: talc, smaller in the module and faster than the standard dlmalloc.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
