//! Completion callbacks from providers. With `--public-url` set, a job at a provider that can
//! call back is sent with the address `{public_url}/callbacks/{provider}/{job}/{token}`, where
//! the token is an HMAC of the provider and job under a key derived from the API token: a call
//! to any other address is refused (401). A call that passes is only a wake-up: the job's
//! poller asks the provider at once, by its own authenticated API, and the call's body is never
//! taken for the job's state. Where the provider signs its calls (Replicate by Standard
//! Webhooks, fal with ED25519), the signature is checked too; a delivery already taken (the same id) is refused as replayed.
//! Polling goes on at a slower pace meanwhile, so a lost call never loses a job.

pub mod fal_signature;
pub mod standard_webhooks;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How long a delivery id is remembered: the tolerance a signed call's time is held to, after
/// which a replay is refused by its time.
pub const TOLERANCE: Duration = Duration::from_secs(5 * 60);
/// With a callback registered, polling goes on this many times slower than the provider's pace.
pub const SLOWER: u32 = 6;

/// Why a callback is refused (401: it changes nothing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("this callback address was not made by this server")]
    Unsigned,
    #[error("the callback's signature does not match: {0}")]
    BadSignature(String),
    #[error("the callback's time is more than five minutes away from now")]
    Stale,
    #[error("this callback was already taken")]
    Replayed,
    #[error("the callback is about another job")]
    OtherJob,
    #[error("the callback's body is not what its provider sends: {0}")]
    Malformed(String),
    /// Not the caller's fault: the provider's signing key could not be had (503, so the
    /// provider calls again).
    #[error("the provider's signing key could not be fetched to check this callback: {0}")]
    Unverifiable(String),
}

/// The addresses this server hands to providers, and the deliveries it has taken.
pub struct Callbacks {
    base: String,
    key: Vec<u8>,
    taken: Mutex<HashMap<String, Instant>>,
}

impl std::fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callbacks")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl Callbacks {
    /// Callbacks to `public_url`, their tokens keyed from `api_token` (the same on every
    /// replica, so any of them takes a call).
    pub fn new(public_url: &str, api_token: &str) -> Callbacks {
        let mut mac = Hmac::<Sha256>::new_from_slice(api_token.as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(b"studio provider callbacks");
        Callbacks {
            base: public_url.trim_end_matches('/').to_owned(),
            key: mac.finalize().into_bytes().to_vec(),
            taken: Mutex::new(HashMap::new()),
        }
    }

    fn token(&self, provider: &str, job: &str) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        mac.update(provider.as_bytes());
        mac.update(b"/");
        mac.update(job.as_bytes());
        mac
    }

    /// The address `provider` calls when job `job` is done.
    pub fn url(&self, provider: &str, job: &str) -> String {
        let token = URL_SAFE_NO_PAD.encode(self.token(provider, job).finalize().into_bytes());
        // A job id (`{model}:task_{id}`) is made of characters a path segment takes as they are.
        format!("{}/callbacks/{provider}/{job}/{token}", self.base)
    }

    /// Whether `token` is the one this server made for `provider` and `job` (in constant time).
    pub fn check(&self, provider: &str, job: &str, token: &str) -> Result<(), Refusal> {
        let given = URL_SAFE_NO_PAD
            .decode(token)
            .map_err(|_| Refusal::Unsigned)?;
        self.token(provider, job)
            .verify_slice(&given)
            .map_err(|_| Refusal::Unsigned)
    }

    /// Takes delivery `id` of `provider`: `Replayed` when it was taken before.
    pub fn take(&self, provider: &str, id: &str) -> Result<(), Refusal> {
        let mut taken = self.taken.lock().unwrap();
        taken.retain(|_, at| at.elapsed() < TOLERANCE * 2);
        match taken.entry(format!("{provider}/{id}")) {
            std::collections::hash_map::Entry::Occupied(_) => Err(Refusal::Replayed),
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(Instant::now());
                Ok(())
            }
        }
    }
}

/// An unsigned provider's call (Kling, ModelArk): the task object, whose `id_field`, its
/// `status_field` and `updated_at` make the delivery's id, so the same call twice is a replay
/// and each change of the task a new delivery. Answers the task's id and the delivery's.
pub fn task_delivery(
    body: &[u8],
    id_field: &str,
    status_field: &str,
) -> Result<(String, String), Refusal> {
    let task: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| Refusal::Malformed(e.to_string()))?;
    let text = |field: &str| {
        task.get(field)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| Refusal::Malformed(format!("no {field}")))
    };
    let updated = task
        .get("updated_at")
        .and_then(serde_json::Value::as_i64)
        .ok_or_else(|| Refusal::Malformed("no updated_at".into()))?;
    let id = text(id_field)?;
    let delivery = format!("{id}/{}/{updated}", text(status_field)?);
    Ok((id.to_owned(), delivery))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_good_for_its_own_provider_and_job_only() {
        let callbacks = Callbacks::new("https://studio.example/", "token");
        let url = callbacks.url("kling", "kling-v3:task_1");
        let prefix = "https://studio.example/callbacks/kling/kling-v3:task_1/";
        assert!(url.starts_with(prefix), "{url}");
        let token = &url[prefix.len()..];
        assert_eq!(callbacks.check("kling", "kling-v3:task_1", token), Ok(()));
        assert_eq!(
            callbacks.check("kling", "kling-v3:task_2", token),
            Err(Refusal::Unsigned)
        );
        assert_eq!(
            callbacks.check("replicate", "kling-v3:task_1", token),
            Err(Refusal::Unsigned)
        );
        assert_eq!(
            Callbacks::new("https://studio.example", "other").check(
                "kling",
                "kling-v3:task_1",
                token
            ),
            Err(Refusal::Unsigned),
            "another API token makes other addresses"
        );
        assert_eq!(
            callbacks.check("kling", "kling-v3:task_1", "%%"),
            Err(Refusal::Unsigned)
        );
    }

    #[test]
    fn a_delivery_is_taken_once() {
        let callbacks = Callbacks::new("https://studio.example", "token");
        assert_eq!(callbacks.take("replicate", "msg_1"), Ok(()));
        assert_eq!(callbacks.take("replicate", "msg_1"), Err(Refusal::Replayed));
        assert_eq!(
            callbacks.take("kling", "msg_1"),
            Ok(()),
            "ids are per provider"
        );
    }
}
