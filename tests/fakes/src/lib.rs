//! Local fakes of the hosted video APIs, one server for all three, each under its own prefix:
//! `/openai/v1` (OpenAI-compatible Videos), `/runway` (Runway), `/fal` (fal.ai's queue),
//! `/gemini` (the Gemini API: Veo's models and the Interactions API's Omni), `/luma` (Luma's Agents API), `/kling` (Kling's
//! official API), `/ark` (Seedance on BytePlus ModelArk), `/replicate` (Replicate), `/xai`
//! (xAI's Grok Imagine) and `/vertex` (Veo on Vertex AI, with Google's OAuth token endpoint).
//! They follow the published contracts, including 429 with Retry-After, 5xx, failed and
//! moderated jobs, content that expires, and callbacks where a create names an address
//! (Kling's `callback_url`, Replicate's signed `webhook`). A prompt containing `moderated` is blocked by
//! moderation, one containing `fails` fails; `Fakes::fail_next` injects error answers.

mod ark;
mod callbacks;
mod content;
mod control;
mod fal;
mod gemini;
mod gemini_interactions;
mod images;
mod job;
mod kling;
mod kling_elements;
mod luma;
mod openai;
mod replicate;
mod runway;
mod state;
mod vertex;
mod xai;

use std::net::SocketAddr;

use axum::Router;

pub use callbacks::Sent;
pub use content::byte_at;
pub use job::Job;
pub use state::{Fakes, Gate, Settings};
pub use vertex::key_file as vertex_key_file;

/// The router serving every fake.
pub fn router(fakes: Fakes) -> Router {
    Router::new()
        .nest("/openai/v1", openai::router(&fakes))
        .nest("/runway", runway::router(&fakes))
        .nest("/fal", fal::router(&fakes))
        .nest("/gemini", gemini::router(&fakes))
        .nest("/luma", luma::router(&fakes))
        .nest("/kling", kling::router(&fakes))
        .nest("/ark", ark::router(&fakes))
        .nest("/replicate", replicate::router(&fakes))
        .nest("/xai", xai::router(&fakes))
        .nest("/vertex", vertex::router(&fakes))
        .merge(content::router(&fakes))
        .merge(control::control_router())
        .with_state(fakes)
}

/// Serves the fakes on `127.0.0.1:port` (0 picks one) in the background; answers the address.
pub async fn serve(fakes: Fakes, port: u16) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, router(fakes)).await;
    });
    Ok(address)
}
