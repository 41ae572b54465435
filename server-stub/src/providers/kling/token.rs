//! Kling's bearer tokens: JWTs (HS256, `iss` the access key, `exp` 30 minutes ahead, `nbf` 5 s
//! back) signed with the secret key, kept and made anew only when the one kept is about to
//! expire.

use std::sync::Mutex;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;

use crate::providers::ProviderError;

/// A token lasts this long (Kling takes at most 30 minutes).
const TOKEN_LIFE: u64 = 30 * 60;
/// A new token is made when the kept one has less than this left.
const TOKEN_MARGIN: u64 = 5 * 60;

/// A JWT signed with HS256 (RFC 7519 and 7515: base64url header and claims, then the HMAC-SHA256
/// of the two joined by a dot). Signed here with RustCrypto's `hmac` and `sha2`: jsonwebtoken
/// built every algorithm it has (RSA, ECDSA, EdDSA and their bignum crates) into the release
/// server for this one; the tests check these tokens with jsonwebtoken.
fn hs256(claims: &impl Serialize, secret: &[u8]) -> Result<String, serde_json::Error> {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims)?);
    let signed = format!("{header}.{claims}");
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(signed.as_bytes());
    let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
    Ok(format!("{signed}.{signature}"))
}

#[derive(Serialize)]
struct Claims<'a> {
    iss: &'a str,
    exp: u64,
    nbf: u64,
}

fn unix_now() -> u64 {
    u64::try_from(crate::clock::unix_now()).unwrap_or_default()
}

/// The keys, and the token in use with when it expires (unix seconds).
pub(super) struct Tokens {
    access_key: String,
    secret_key: String,
    kept: Mutex<Option<(String, u64)>>,
}

impl Tokens {
    pub(super) fn new(access_key: &str, secret_key: &str) -> Tokens {
        Tokens {
            access_key: access_key.to_owned(),
            secret_key: secret_key.to_owned(),
            kept: Mutex::new(None),
        }
    }

    /// The bearer token: the kept one while it has time left, else a new one.
    pub(super) fn bearer(&self) -> Result<String, ProviderError> {
        let now = unix_now();
        let mut kept = self.kept.lock().unwrap();
        if let Some((token, expires)) = kept.as_ref() {
            if *expires > now + TOKEN_MARGIN {
                return Ok(token.clone());
            }
        }
        let expires = now + TOKEN_LIFE;
        let claims = Claims {
            iss: &self.access_key,
            exp: expires,
            nbf: now.saturating_sub(5),
        };
        let token = hs256(&claims, self.secret_key.as_bytes())
            .map_err(|e| ProviderError::Rejected(format!("could not sign the Kling token: {e}")))?;
        *kept = Some((token.clone(), expires));
        Ok(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn one_token_serves_until_it_is_about_to_expire() {
        let kling = Tokens::new("access", "secret");
        let first = kling.bearer().unwrap();
        assert_eq!(kling.bearer().unwrap(), first, "kept, not made per request");
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
        validation.validate_nbf = true;
        validation.set_issuer(&["access"]);
        let claims = jsonwebtoken::decode::<Value>(
            &first,
            &jsonwebtoken::DecodingKey::from_secret(b"secret"),
            &validation,
        )
        .unwrap()
        .claims;
        let (exp, nbf) = (
            claims["exp"].as_u64().unwrap(),
            claims["nbf"].as_u64().unwrap(),
        );
        assert!(exp - unix_now() <= TOKEN_LIFE && unix_now() - nbf >= 5);
        *kling.kept.lock().unwrap() = Some((first, unix_now() + 60));
        kling.bearer().unwrap();
        let renewed = kling.kept.lock().unwrap().as_ref().unwrap().1;
        assert!(
            renewed > unix_now() + TOKEN_MARGIN,
            "renewed before it expires"
        );
    }
}
