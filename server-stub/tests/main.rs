//! server-stub's tests through its real router, storage and database, one module per
//! resource or concern, in one binary: `cargo test -p server-stub --test server storyboard::`
//! runs one module's.

#[path = "common/harness.rs"]
mod harness;
#[path = "common/independent.rs"]
mod independent;
#[path = "common/listening.rs"]
mod listening;
#[path = "common/moto.rs"]
mod moto;
#[path = "common/postgres.rs"]
mod postgres;

mod archive;
mod budgets;
mod callbacks;
mod captions;
mod credentials;
mod http;
mod kling_elements;
mod media;
mod picks;
mod providers;
mod references;
mod replicas;
mod reviews;
mod s3;
mod sequences;
mod serve;
mod sounds;
mod storyboard;
mod takes;
