//! Calls back as the providers do when a job is done: a POST of the job's final state to the
//! address its create named, once the job has finished. Each call is kept (address, headers,
//! body and the answer's status) for a test to read, or to send again as a replay.

use std::time::Duration;

use crate::state::Fakes;

/// One call made.
#[derive(Debug, Clone)]
pub struct Sent {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The answer's status; 0 when the address could not be reached.
    pub status: u16,
}

/// After `after`, POSTs to `url` what `call` makes then (headers and body).
pub fn call_back(
    fakes: &Fakes,
    url: String,
    after: Duration,
    call: impl FnOnce(&Fakes) -> (Vec<(String, String)>, Vec<u8>) + Send + 'static,
) {
    let fakes = fakes.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        let (headers, body) = call(&fakes);
        let mut request = reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .body(body.clone());
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        let status = match request.send().await {
            Ok(answer) => answer.status().as_u16(),
            Err(_) => 0,
        };
        fakes.keep_call(Sent {
            url,
            headers,
            body,
            status,
        });
    });
}
