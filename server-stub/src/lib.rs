//! server-stub: Studio's /api with an embedded video engine and local storage, serving the app.
//! The binary (`main.rs`) wires these together; the tests drive them directly.

pub mod config;
pub mod engine;
pub mod http;
pub mod jobs;
pub mod storage;
