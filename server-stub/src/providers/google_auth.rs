//! A Google Cloud access token from a service account's key file, as Google's OAuth 2.0 for
//! server-to-server applications describes it: a JWT (`RS256`, `kid` the key's id) whose
//! `iss` is the account's email, `scope` cloud-platform, `aud` the key file's `token_uri`,
//! valid for an hour, exchanged at `token_uri` for `{access_token, expires_in}` with the grant
//! type `urn:ietf:params:oauth:grant-type:jwt-bearer`. The token is kept and a new one asked
//! for five minutes before it expires. The signature is RustCrypto's `rsa` (PKCS #1 v1.5 with
//! SHA-256), already in the server for Content Credentials.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::DecodePrivateKey;
use rsa::signature::{SignatureEncoding, Signer};
use rsa::RsaPrivateKey;
use serde::Deserialize;
use serde_json::json;
use sha2::Sha256;
use tokio::sync::Mutex;

use super::{Client, ProviderError};

const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
const GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// How long an assertion is valid (Google takes at most an hour).
const ASSERTION_LIFE: u64 = 3600;
/// A new token is asked for when the kept one has less than this left.
const MARGIN: Duration = Duration::from_secs(5 * 60);

/// The fields of a service account's key file that a token needs.
#[derive(Deserialize)]
pub struct KeyFile {
    pub project_id: Option<String>,
    private_key_id: String,
    private_key: String,
    client_email: String,
    token_uri: String,
}

#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("cannot read the service account key file {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path} is not a service account key file: {error}")]
    Parse { path: String, error: String },
}

impl KeyFile {
    pub fn read(path: &Path) -> Result<KeyFile, KeyFileError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| KeyFileError::Read {
            path: shown.clone(),
            error,
        })?;
        let file: KeyFile = serde_json::from_str(&text).map_err(|e| KeyFileError::Parse {
            path: shown.clone(),
            error: e.to_string(),
        })?;
        RsaPrivateKey::from_pkcs8_pem(&file.private_key).map_err(|e| KeyFileError::Parse {
            path: shown,
            error: format!("its private_key: {e}"),
        })?;
        Ok(file)
    }
}

/// A token, and when it stops being valid.
#[derive(Clone)]
struct Token {
    value: String,
    expires: SystemTime,
}

/// Tokens for one service account, made as they are needed.
pub struct Tokens {
    key: SigningKey<Sha256>,
    key_id: String,
    email: String,
    token_uri: String,
    kept: Mutex<Option<Token>>,
}

#[derive(Deserialize)]
struct Granted {
    access_token: String,
    expires_in: u64,
}

/// Whether a token valid until `expires` must be replaced at `now`.
fn stale(expires: SystemTime, now: SystemTime) -> bool {
    expires
        .duration_since(now)
        .map_or(true, |left| left < MARGIN)
}

impl Tokens {
    pub fn new(file: &KeyFile) -> Result<Tokens, ProviderError> {
        let key = RsaPrivateKey::from_pkcs8_pem(&file.private_key)
            .map_err(|e| ProviderError::Rejected(format!("the service account key: {e}")))?;
        Ok(Tokens {
            key: SigningKey::new(key),
            key_id: file.private_key_id.clone(),
            email: file.client_email.clone(),
            token_uri: file.token_uri.clone(),
            kept: Mutex::new(None),
        })
    }

    /// The signed assertion, issued at `now`.
    fn assertion(&self, now: u64) -> String {
        let header = json!({ "alg": "RS256", "typ": "JWT", "kid": self.key_id });
        let claims = json!({
            "iss": self.email, "scope": SCOPE, "aud": self.token_uri,
            "iat": now, "exp": now + ASSERTION_LIFE,
        });
        let part = |value: serde_json::Value| URL_SAFE_NO_PAD.encode(value.to_string());
        let signed = format!("{}.{}", part(header), part(claims));
        let signature = self.key.sign(signed.as_bytes()).to_bytes();
        format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature))
    }

    /// A valid access token: the kept one, or a new one.
    pub async fn token(&self, client: &Client) -> Result<String, ProviderError> {
        let mut kept = self.kept.lock().await;
        let now = SystemTime::now();
        if let Some(token) = kept.as_ref().filter(|t| !stale(t.expires, now)) {
            return Ok(token.value.clone());
        }
        let issued = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        let assertion = self.assertion(issued);
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", GRANT)
            .append_pair("assertion", &assertion)
            .finish();
        let granted: Granted = client
            .call_json(|| {
                client
                    .http()
                    .post(&self.token_uri)
                    .header(
                        reqwest::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .body(form.clone())
            })
            .await?;
        let token = Token {
            value: granted.access_token,
            expires: now + Duration::from_secs(granted.expires_in),
        };
        *kept = Some(token.clone());
        Ok(token.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_replaced_five_minutes_before_it_expires() {
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
        assert!(!stale(now + Duration::from_secs(3600), now));
        assert!(!stale(now + Duration::from_secs(301), now));
        assert!(stale(now + Duration::from_secs(299), now));
        assert!(stale(now - Duration::from_secs(1), now));
    }
}
