//! Guarded downloads of the videos providers point at: https only, public addresses only
//! (checked after DNS resolution and on every redirect, so a name or a redirect cannot lead
//! into this machine or its network), a video content type and a size cap. The deadline for
//! the whole copy is the job service's.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE};
use reqwest::{redirect, Response};
use url::{Host, Url};

use super::ProviderError;

/// The largest video copied from a provider (their clips are tens of megabytes).
pub const MAX_VIDEO_BYTES: u64 = 1024 * 1024 * 1024;
const MAX_REDIRECTS: usize = 5;

/// Whether a download may reach `url`: https (or, with `allow_local`, http) to a public
/// address, or with `allow_local` a loopback one (the test fakes).
pub fn check_url(url: &Url, allow_local: bool) -> Result<(), String> {
    match url.scheme() {
        "https" => {}
        "http" if allow_local => {}
        other => {
            return Err(format!(
                "refused a download over {other}: only https is allowed"
            ))
        }
    }
    let ip: Option<IpAddr> = match url.host() {
        Some(Host::Ipv4(ip)) => Some(ip.into()),
        Some(Host::Ipv6(ip)) => Some(ip.into()),
        Some(Host::Domain(name)) if name == "localhost" || name.ends_with(".localhost") => {
            Some(IpAddr::from([127, 0, 0, 1]))
        }
        Some(Host::Domain(_)) => None,
        None => return Err("refused a download address without a host".into()),
    };
    match ip {
        Some(ip) if !allowed_ip(ip, allow_local) => Err(format!(
            "refused a download from the non-public address {ip}"
        )),
        _ => Ok(()),
    }
}

/// Public addresses, and loopback ones when `allow_local`.
pub fn allowed_ip(ip: IpAddr, allow_local: bool) -> bool {
    let ip = ip.to_canonical();
    if ip.is_loopback() {
        return allow_local;
    }
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            !(v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || a >= 240
                || (a == 100 && (64..128).contains(&b))
                || (a == 192 && b == 0 && c == 0)
                || (a == 198 && (18..20).contains(&b)))
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            !(v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || (first == 0x2001 && v6.segments()[1] == 0x0db8)
                || (first == 0x64 && v6.segments()[1] == 0xff9b))
        }
    }
}

/// Resolves names to their allowed addresses only; none left is an error.
struct GuardedResolver {
    allow_local: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_local = self.allow_local;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| allowed_ip(a.ip(), allow_local))
                .collect();
            if found.is_empty() {
                return Err(format!("refused a download: {host} has no public address").into());
            }
            Ok(Box::new(found.into_iter()) as Addrs)
        })
    }
}

/// The client for provider result URLs: guarded names and redirects, no proxy (a proxy would
/// resolve names where the guard cannot see).
pub fn client(base: reqwest::ClientBuilder, allow_local: bool) -> reqwest::Client {
    base.no_proxy()
        .dns_resolver(Arc::new(GuardedResolver { allow_local }))
        .redirect(redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_REDIRECTS {
                return attempt.error("too many redirects");
            }
            match check_url(attempt.url(), allow_local) {
                Ok(()) => attempt.follow(),
                Err(e) => attempt.error(e),
            }
        }))
        .build()
        .unwrap_or_default()
}

/// Whether `uri` is on the same origin as the API at `base`: the only place a provider's key
/// may be sent to fetch a video (Google's APIs hand back video URIs that need the key).
pub fn own_origin(uri: &str, base: &str) -> Result<(), ProviderError> {
    let (video, api) = (Url::parse(uri), Url::parse(base));
    match (video, api) {
        (Ok(video), Ok(api)) if video.origin() == api.origin() => Ok(()),
        _ => Err(ProviderError::Malformed(format!(
            "refused to send the key to the video address {uri}"
        ))),
    }
}

/// A video a provider answered inline (base64 in its JSON), decoded, as a response like any
/// download's, checked the same way.
pub fn inline_video(data: &str) -> Result<Response, ProviderError> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| ProviderError::Malformed(format!("the inline video: {e}")))?;
    let answer = axum::http::Response::builder()
        .header(CONTENT_TYPE, "video/mp4")
        .header(CONTENT_LENGTH, bytes.len())
        .body(bytes)
        .map_err(|e| ProviderError::Malformed(e.to_string()))?;
    check_video(Response::from(answer))
}

/// Refuses an answer that is not a video or is larger than the cap.
pub fn check_video(response: Response) -> Result<Response, ProviderError> {
    let kind = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let video = kind.starts_with("video/")
        || kind.starts_with("application/octet-stream")
        || kind.starts_with("binary/octet-stream");
    if !video {
        return Err(ProviderError::Malformed(format!(
            "the provider's video came as {kind:?}, not a video"
        )));
    }
    let length = response
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if length.is_some_and(|n| n > MAX_VIDEO_BYTES) {
        return Err(ProviderError::Malformed(format!(
            "the provider's video is larger than {} MB",
            MAX_VIDEO_BYTES / 1024 / 1024
        )));
    }
    Ok(response)
}

/// Masks what looks like a key or a key's fragment in a provider's message (OpenAI-compatible
/// gateways quote part of a wrong key: `sk-abc1*****wxyz`) before it reaches a client.
pub fn redact(message: &str) -> String {
    message
        .split(' ')
        .map(|word| {
            let core =
                word.trim_matches(|c: char| matches!(c, '.' | ',' | ';' | '"' | '\'' | '(' | ')'));
            let keylike = core.len() >= 12
                && core
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '*' | '.'))
                && (core.contains("**")
                    || (core.chars().any(|c| c.is_ascii_digit())
                        && core.chars().any(|c| c.is_ascii_alphabetic())));
            if keylike {
                word.replace(core, "[redacted]")
            } else {
                word.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_to_public_addresses() {
        let ok = |u: &str, local| check_url(&Url::parse(u).unwrap(), local).is_ok();
        assert!(ok("https://cdn.example.com/v.mp4", false));
        assert!(ok("https://93.184.216.34/v.mp4", false));
        for refused in [
            "http://cdn.example.com/v.mp4",
            "ftp://cdn.example.com/v.mp4",
            "file:///etc/passwd",
            "https://127.0.0.1/v.mp4",
            "https://localhost/v.mp4",
            "https://10.0.0.1/v.mp4",
            "https://172.16.5.4/v.mp4",
            "https://192.168.1.1/v.mp4",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/v.mp4",
            "https://0.0.0.0/v.mp4",
            "https://[::1]/v.mp4",
            "https://[fd00::1]/v.mp4",
            "https://[fe80::1]/v.mp4",
            "https://[::ffff:10.0.0.1]/v.mp4",
        ] {
            assert!(!ok(refused, false), "{refused}");
        }
        assert!(ok("http://127.0.0.1:9000/v.mp4", true), "the fakes' opt-in");
        assert!(
            !ok("http://10.0.0.1/v.mp4", true),
            "never private, even opted in"
        );
        assert!(!ok("http://169.254.169.254/", true));
    }

    #[test]
    fn key_fragments_are_masked() {
        let message = "Incorrect API key provided: sk-abc1********************wxyz. You can find your API key at https://platform.openai.com/account/api-keys.";
        let masked = redact(message);
        assert!(
            !masked.contains("sk-abc1") && !masked.contains("wxyz"),
            "{masked}"
        );
        assert!(
            masked.starts_with("Incorrect API key provided: [redacted]."),
            "{masked}"
        );
        assert!(masked.contains("https://platform.openai.com/account/api-keys"));
        assert_eq!(redact("Invalid ratio"), "Invalid ratio");
        assert_eq!(
            redact("key fal_key_0123456789abcdef is wrong"),
            "key [redacted] is wrong"
        );
    }
}
