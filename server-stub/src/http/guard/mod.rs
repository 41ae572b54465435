//! The server's doors: which Host names it answers to (DNS rebinding), who gets the app and
//! its token (the server's own page only; other machines only after opening the invitation
//! link; review pages, which carry no token, to anyone), which other origins may call /api from
//! a browser, and the headers every page carries. The rules live here; the Host check layer in
//! `host_check.rs`, the page door and headers in `pages.rs`, the invitation link in
//! `invitation.rs`.

mod forwarded;
mod host_check;
mod invitation;
mod pages;

pub use forwarded::{BadProxy, ForwardedHeader, TrustedProxies};
pub use host_check::HostCheckLayer;
pub use invitation::join;
pub use pages::{nosniff, site_door};

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::connect_info::MockConnectInfo;
use axum::extract::ConnectInfo;
use axum::http::header::{COOKIE, HOST, ORIGIN};
use axum::http::{HeaderMap, HeaderValue, Method};
use subtle::ConstantTimeEq;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The cookie the invitation link sets.
pub const ACCESS_COOKIE: &str = "studio_access";
/// How long the invitation cookie lasts (30 days).
const ACCESS_MAX_AGE: u32 = 30 * 24 * 3600;

/// What the guard is built from (flags and the bound address).
pub struct GuardSettings {
    /// The address the server listens on.
    pub bound: IpAddr,
    /// `--public-url` and `--s3-public-url`: their hosts are ours, their origins serve media.
    pub public_urls: Vec<String>,
    /// `--client-api-base`, when it is an absolute URL (the app calls it).
    pub api_base: String,
    /// `--allowed-hosts`: more names this server answers to.
    pub extra_hosts: Vec<String>,
    /// `--cors-origins`: pages on these origins may call /api and read /media.
    pub cors_origins: Vec<String>,
    /// The code of the invitation link.
    pub access_code: String,
    /// `--trusted-proxies`: whose word about the client's address and scheme is taken.
    pub trusted_proxies: TrustedProxies,
}

pub struct Guard {
    names: Vec<String>,
    bound: IpAddr,
    trusted_proxies: TrustedProxies,
    cors_origins: Vec<HeaderValue>,
    access_code: String,
    csp: HeaderValue,
}

#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    #[error("--cors-origins takes exact origins such as https://studio.example.com, not {0:?}")]
    BadOrigin(String),
}

impl Guard {
    pub fn new(settings: GuardSettings) -> Result<Arc<Guard>, GuardError> {
        let mut names: Vec<String> = settings
            .extra_hosts
            .iter()
            .map(|h| normalise(h))
            .filter(|h| !h.is_empty())
            .collect();
        let mut sources = Vec::new();
        for url in settings.public_urls.iter().chain([&settings.api_base]) {
            if let Ok(url) = url::Url::parse(url) {
                if let Some(host) = url.host_str() {
                    names.push(normalise(host));
                }
                sources.push(url.origin().ascii_serialization());
            }
        }
        let cors_origins = settings
            .cors_origins
            .iter()
            .map(|o| o.trim())
            .filter(|o| !o.is_empty())
            .map(|o| {
                let parsed = url::Url::parse(o).map_err(|_| GuardError::BadOrigin(o.into()))?;
                let origin = parsed.origin().ascii_serialization();
                if !parsed.origin().is_tuple() || origin != o.trim_end_matches('/') {
                    return Err(GuardError::BadOrigin(o.into()));
                }
                HeaderValue::from_str(&origin).map_err(|_| GuardError::BadOrigin(o.into()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let others = sources.join(" ");
        let csp = format!(
            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
             img-src 'self' data: blob: {others}; media-src 'self' blob: {others}; \
             connect-src 'self' {others}; object-src 'none'; base-uri 'self'; \
             form-action 'self'; frame-ancestors 'none'"
        );
        Ok(Arc::new(Guard {
            names,
            bound: settings.bound,
            trusted_proxies: settings.trusted_proxies,
            cors_origins,
            access_code: settings.access_code,
            csp: HeaderValue::from_str(&csp).unwrap_or_else(|_| {
                HeaderValue::from_static("default-src 'self'; frame-ancestors 'none'")
            }),
        }))
    }

    /// Whether `host` (a Host header: name or address, with or without a port) names this
    /// server: loopback names and addresses, the bound address (any address when bound to all
    /// of them), the public URLs' hosts and the listed hosts.
    pub fn answers_to(&self, host: &str) -> bool {
        let name = without_port(host.trim());
        let localhost = "localhost";
        let tail = name.len().saturating_sub(localhost.len() + 1);
        if name.eq_ignore_ascii_case(localhost)
            || name
                .get(tail..)
                .is_some_and(|t| t.eq_ignore_ascii_case(".localhost"))
        {
            return true;
        }
        if let Ok(ip) = name.trim_matches(['[', ']']).parse::<IpAddr>() {
            let ip = ip.to_canonical();
            return ip.is_loopback() || self.bound.is_unspecified() || ip == self.bound;
        }
        self.names.iter().any(|n| n.eq_ignore_ascii_case(name))
    }

    /// Whether a request reached the server over https, as a trusted proxy in front says.
    pub fn forwarded_https(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> bool {
        self.trusted_proxies.forwarded_https(headers, peer)
    }

    /// Whether a request may have the app and its token: it is not made by a page of another
    /// site, and it comes from this machine (judged by the client a trusted proxy names, when
    /// one forwarded it) or carries the invitation cookie.
    fn admits(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Admission {
        let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
        if !matches!(fetch_site, None | Some("same-origin" | "none")) {
            return Admission::ForeignPage;
        }
        if let Some(origin) = headers.get(ORIGIN).and_then(|v| v.to_str().ok()) {
            let own = headers
                .get(HOST)
                .and_then(|h| h.to_str().ok())
                .is_some_and(|host| {
                    origin
                        .strip_prefix("http://")
                        .or(origin.strip_prefix("https://"))
                        == Some(host)
                });
            if !own {
                return Admission::ForeignPage;
            }
        }
        let client = self.trusted_proxies.client(headers, peer);
        if client.is_some_and(|ip| ip.to_canonical().is_loopback()) || self.has_cookie(headers) {
            Admission::Welcome
        } else {
            Admission::NeedsInvitation
        }
    }

    fn has_cookie(&self, headers: &HeaderMap) -> bool {
        headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .any(|(name, value)| name == ACCESS_COOKIE && self.is_code(value))
    }

    fn is_code(&self, presented: &str) -> bool {
        !presented.is_empty() && bool::from(presented.as_bytes().ct_eq(self.access_code.as_bytes()))
    }

    /// CORS for /api and /media: only the listed origins. None when no origin is listed: no
    /// other origin is ever let in then, so there is nothing for CORS to add (axum clones a
    /// route's layers for every request, and an idle CorsLayer cost 12% of GET job's rate).
    pub fn cors(&self) -> Option<CorsLayer> {
        if self.cors_origins.is_empty() {
            return None;
        }
        Some(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(self.cors_origins.iter().cloned()))
                .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
                .allow_headers([
                    axum::http::header::AUTHORIZATION,
                    axum::http::header::CONTENT_TYPE,
                    axum::http::header::RANGE,
                    axum::http::HeaderName::from_static("last-event-id"),
                ])
                .expose_headers([
                    axum::http::header::CONTENT_RANGE,
                    axum::http::header::CONTENT_LENGTH,
                    axum::http::header::ETAG,
                ]),
        )
    }
}

enum Admission {
    Welcome,
    ForeignPage,
    NeedsInvitation,
}

/// A host name as listed: lowercase, no port, no trailing dot.
fn normalise(host: &str) -> String {
    without_port(host.trim()).to_ascii_lowercase()
}

/// `host` without its port and trailing dot (`[::1]:80` is `[::1]`), borrowed.
fn without_port(host: &str) -> &str {
    let name = if host.starts_with('[') {
        host.find(']').map_or(host, |end| &host[..=end])
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => host,
        }
    };
    name.trim_end_matches('.')
}

/// The address of the machine a request came from (a test's `MockConnectInfo` stands in).
pub(crate) fn peer(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip())
        .or_else(|| {
            extensions
                .get::<MockConnectInfo<SocketAddr>>()
                .map(|MockConnectInfo(addr)| addr.ip())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(bound: &str) -> Arc<Guard> {
        Guard::new(GuardSettings {
            bound: bound.parse().unwrap(),
            public_urls: vec!["https://cdn.example.com/media".into()],
            api_base: "/api".into(),
            extra_hosts: vec!["Studio.Lan".into()],
            cors_origins: vec!["https://app.example.com".into()],
            access_code: "secret-code".into(),
            trusted_proxies: TrustedProxies::default(),
        })
        .unwrap()
    }

    #[test]
    fn host_names_of_this_server() {
        let g = guard("127.0.0.1");
        for ours in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST",
            "app.localhost",
            "[::1]:8080",
            "127.0.0.2",
            "studio.lan:8080",
            "studio.lan.",
            "cdn.example.com",
        ] {
            assert!(g.answers_to(ours), "{ours}");
        }
        for foreign in [
            "rebind.example",
            "rebind.example:8080",
            "10.0.0.5:8080",
            "localhost.evil.com",
            "",
        ] {
            assert!(!g.answers_to(foreign), "{foreign}");
        }
        let everywhere = guard("0.0.0.0");
        assert!(everywhere.answers_to("10.0.0.5:8080"));
        assert!(!everywhere.answers_to("rebind.example"));
    }

    #[test]
    fn cors_origins_must_be_exact_origins() {
        for bad in [
            "*",
            "app.example.com",
            "https://app.example.com/path",
            "null",
        ] {
            let built = Guard::new(GuardSettings {
                bound: "127.0.0.1".parse().unwrap(),
                public_urls: vec![],
                api_base: "/api".into(),
                extra_hosts: vec![],
                cors_origins: vec![bad.into()],
                access_code: "c".into(),
                trusted_proxies: TrustedProxies::default(),
            });
            assert!(built.is_err(), "{bad}");
        }
    }

    #[test]
    fn the_csp_allows_the_media_origins() {
        let csp = guard("127.0.0.1").csp.to_str().unwrap().to_owned();
        assert!(
            csp.contains("media-src 'self' blob: https://cdn.example.com"),
            "{csp}"
        );
        assert!(
            csp.contains("connect-src 'self' https://cdn.example.com"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(
            csp.contains("script-src 'self' 'wasm-unsafe-eval'"),
            "{csp}"
        );
    }
}
