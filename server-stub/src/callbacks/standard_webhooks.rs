//! Standard Webhooks (standardwebhooks.com), as Replicate signs its calls: `webhook-id`,
//! `webhook-timestamp` (unix seconds) and `webhook-signature`, a space-separated list of
//! `v1,{base64 HMAC-SHA256}` of `{id}.{timestamp}.{body}` under the secret's key (the base64
//! after `whsec_`). A call more than five minutes from now is refused, so a delivery id needs
//! remembering only that long.

use axum::http::HeaderMap;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{Refusal, TOLERANCE};

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Result<&'a str, Refusal> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| Refusal::BadSignature(format!("no {name} header")))
}

/// The signature's key: the base64 after `whsec_`.
fn key(secret: &str) -> Result<Vec<u8>, Refusal> {
    STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .map_err(|_| Refusal::BadSignature("the signing secret is not base64".into()))
}

/// The `webhook-signature` value for `body` as delivery `id` at `timestamp`.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, Refusal> {
    let mut mac = Hmac::<Sha256>::new_from_slice(&key(secret)?).expect("any key length");
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    Ok(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// Checks a call signed under `secret` at `now` (unix seconds): its delivery id when it holds.
pub fn verify(secret: &str, headers: &HeaderMap, body: &[u8], now: i64) -> Result<String, Refusal> {
    let id = header(headers, "webhook-id")?;
    let timestamp: i64 = header(headers, "webhook-timestamp")?
        .trim()
        .parse()
        .map_err(|_| Refusal::BadSignature("webhook-timestamp is not a number".into()))?;
    if timestamp.abs_diff(now) > TOLERANCE.as_secs() {
        return Err(Refusal::Stale);
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(&key(secret)?).expect("any key length");
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    let signed = header(headers, "webhook-signature")?
        .split(' ')
        .filter_map(|s| s.strip_prefix("v1,"))
        .filter_map(|s| STANDARD.decode(s).ok())
        .any(|given| mac.clone().verify_slice(&given).is_ok());
    if signed {
        Ok(id.to_owned())
    } else {
        Err(Refusal::BadSignature("no v1 signature matches".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    fn headers(id: &str, timestamp: i64, signature: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("webhook-id", id.parse().unwrap());
        headers.insert("webhook-timestamp", timestamp.to_string().parse().unwrap());
        headers.insert("webhook-signature", signature.parse().unwrap());
        headers
    }

    #[test]
    fn the_specifications_own_example_verifies() {
        // standard-webhooks' own test vector (its libraries' tests share it).
        let body = br#"{"test": 2432232314}"#;
        let signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
        assert_eq!(
            sign(SECRET, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).unwrap(),
            signature
        );
        let given = headers("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, signature);
        assert_eq!(
            verify(SECRET, &given, body, 1614265330 + 60).unwrap(),
            "msg_p5jXN8AQM9LWM0D4loKWxJek"
        );
    }

    #[test]
    fn a_changed_body_an_old_time_or_another_key_is_refused() {
        let body = b"{}";
        let signature = sign(SECRET, "msg_1", 1000, body).unwrap();
        let given = headers("msg_1", 1000, &format!("v1,AAAA {signature}"));
        assert!(
            verify(SECRET, &given, body, 1000).is_ok(),
            "any of the list"
        );
        assert!(matches!(
            verify(SECRET, &given, b"{\"a\":1}", 1000),
            Err(Refusal::BadSignature(_))
        ));
        assert_eq!(
            verify(SECRET, &given, body, 1000 + 301),
            Err(Refusal::Stale)
        );
        assert!(matches!(
            verify("whsec_b3RoZXI=", &given, body, 1000),
            Err(Refusal::BadSignature(_))
        ));
        assert!(matches!(
            verify(SECRET, &HeaderMap::new(), body, 1000),
            Err(Refusal::BadSignature(_))
        ));
    }
}
