//! server-stub: Studio's /api with an embedded video engine or hosted providers, local or S3 storage, serving the app.
//! The binary (`main.rs`) wires these together; the tests drive them directly.

pub mod callbacks;
pub mod cast;
pub mod clock;
pub mod config;
pub mod credentials;
pub mod database;
pub mod durable;
pub mod engine;
pub mod frames;
pub mod http;
pub mod job_status;
pub mod jobs;
pub mod keyed_lock;
pub mod memory;
pub mod metrics;
pub mod picks;
pub mod poster;
pub mod prices;
pub mod project;
pub mod project_events;
pub mod prompts;
pub mod providers;
pub mod references;
pub mod reviews;
pub mod sequences;
pub mod serve;
pub mod sounds;
pub mod storage;
pub mod tls;
pub mod zip;
