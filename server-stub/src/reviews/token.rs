//! A review link's token: 256 random bits in base64url, of which the server keeps only the
//! SHA-256. The share's id is the first half of that hash, so a token finds its share with one
//! read, and neither the id nor anything stored gives the token back.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A token's length in base64url characters (32 bytes).
const TOKEN_CHARS: usize = 43;

/// A new token and its hash (hex).
pub fn issue() -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let token = URL_SAFE_NO_PAD.encode(bytes);
    let hash = hash(&token);
    (token, hash)
}

/// The hex SHA-256 of a token.
pub fn hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The id of the share a token opens, when the token has a token's form.
pub fn share_id(token: &str) -> Option<(String, String)> {
    let formed = token.len() == TOKEN_CHARS
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
    if !formed {
        return None;
    }
    let hash = hash(token);
    Some((id_of(&hash).to_owned(), hash))
}

/// A share's id: the first 128 bits of its token's hash.
pub fn id_of(hash: &str) -> &str {
    &hash[..32]
}

/// Whether `id` has a share id's form (32 lowercase hex digits).
pub fn is_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Compares two hashes in constant time.
pub fn same(a: &str, b: &str) -> bool {
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_finds_its_share_and_nothing_else() {
        let (token, hash) = issue();
        assert_eq!(token.len(), TOKEN_CHARS);
        let (id, found) = share_id(&token).unwrap();
        assert!(same(&found, &hash));
        assert_eq!(id, id_of(&hash));
        assert!(is_id(&id));
        let (other, _) = issue();
        assert_ne!(share_id(&other).unwrap().0, id);
        for bad in [
            "",
            "short",
            &format!("{token}x"),
            &token.replace(&token[..1], "/"),
        ] {
            assert!(share_id(bad).is_none_or(|(i, _)| i != id), "{bad}");
        }
        assert!(share_id(&"=".repeat(43)).is_none());
    }
}
