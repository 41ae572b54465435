//! fal's webhook signatures: ED25519 over `{request id}\n{user id}\n{timestamp}\n{hex SHA-256
//! of the body}`, from the headers `x-fal-webhook-request-id`, `-user-id`, `-timestamp` (unix
//! seconds, within five minutes of now) and `-signature` (hex), under any of the public keys
//! fal publishes as a JSON Web Key Set (`OKP`/`Ed25519`, the key in `x`, base64url).

use axum::http::HeaderMap;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};

use super::{Refusal, TOLERANCE};

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Result<&'a str, Refusal> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| Refusal::BadSignature(format!("no {name} header")))
}

/// The Ed25519 keys of a JWKS document; others are left out.
pub fn keys(jwks: &serde_json::Value) -> Vec<VerifyingKey> {
    let listed = jwks.get("keys").and_then(serde_json::Value::as_array);
    listed
        .into_iter()
        .flatten()
        .filter(|k| k.get("crv").and_then(|c| c.as_str()) == Some("Ed25519"))
        .filter_map(|k| URL_SAFE_NO_PAD.decode(k.get("x")?.as_str()?).ok())
        .filter_map(|x| VerifyingKey::from_bytes(&x.try_into().ok()?).ok())
        .collect()
}

/// What is signed for `body` as request `request` of user `user` at `timestamp`.
pub fn message(request: &str, user: &str, timestamp: &str, body: &[u8]) -> Vec<u8> {
    let digest: String = Sha256::digest(body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{request}\n{user}\n{timestamp}\n{digest}").into_bytes()
}

/// Checks a call at `now` (unix seconds) under `keys`: its request id and timestamp when it
/// holds.
pub fn verify(
    keys: &[VerifyingKey],
    headers: &HeaderMap,
    body: &[u8],
    now: i64,
) -> Result<(String, i64), Refusal> {
    let request = header(headers, "x-fal-webhook-request-id")?;
    let user = header(headers, "x-fal-webhook-user-id")?;
    let timestamp = header(headers, "x-fal-webhook-timestamp")?;
    let at: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| Refusal::BadSignature("x-fal-webhook-timestamp is not a number".into()))?;
    if at.abs_diff(now) > TOLERANCE.as_secs() {
        return Err(Refusal::Stale);
    }
    let signature = header(headers, "x-fal-webhook-signature")?;
    let bytes: Option<Vec<u8>> = (signature.len() == 128)
        .then(|| {
            (0..64)
                .map(|i| u8::from_str_radix(signature.get(i * 2..i * 2 + 2)?, 16).ok())
                .collect()
        })
        .flatten();
    let signature = bytes
        .and_then(|b| Signature::from_slice(&b).ok())
        .ok_or_else(|| Refusal::BadSignature("the signature is not 64 bytes in hex".into()))?;
    let message = message(request, user, timestamp, body);
    if keys
        .iter()
        .any(|key| key.verify_strict(&message, &signature).is_ok())
    {
        Ok((request.to_owned(), at))
    } else {
        Err(Refusal::BadSignature("no published key signed it".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    fn signed(key: &SigningKey, at: i64, body: &[u8]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        let hex: String = key
            .sign(&message("req-1", "user-1", &at.to_string(), body))
            .to_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        for (name, value) in [
            ("x-fal-webhook-request-id", "req-1".to_owned()),
            ("x-fal-webhook-user-id", "user-1".to_owned()),
            ("x-fal-webhook-timestamp", at.to_string()),
            ("x-fal-webhook-signature", hex),
        ] {
            headers.insert(name, value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn a_call_signed_by_a_published_key_holds_and_nothing_else_does() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let jwks = serde_json::json!({"keys": [
            {"kty": "RSA", "n": "AQAB"},
            {"kty": "OKP", "crv": "Ed25519", "x": URL_SAFE_NO_PAD.encode(key.verifying_key().as_bytes())},
        ]});
        let keys = keys(&jwks);
        assert_eq!(keys.len(), 1, "only Ed25519 keys are read");
        let headers = signed(&key, 1000, b"{}");
        assert_eq!(
            verify(&keys, &headers, b"{}", 1100),
            Ok(("req-1".into(), 1000))
        );
        assert!(matches!(
            verify(&keys, &headers, b"{\"a\":1}", 1100),
            Err(Refusal::BadSignature(_))
        ));
        assert_eq!(verify(&keys, &headers, b"{}", 1400), Err(Refusal::Stale));
        let other = signed(&SigningKey::from_bytes(&[8; 32]), 1000, b"{}");
        assert!(matches!(
            verify(&keys, &other, b"{}", 1000),
            Err(Refusal::BadSignature(_))
        ));
        assert!(matches!(
            verify(&keys, &HeaderMap::new(), b"{}", 1000),
            Err(Refusal::BadSignature(_))
        ));
    }
}
