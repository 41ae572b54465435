//! Who a request is from when a proxy stands in front. A request that carries `Forwarded`,
//! `X-Forwarded-For` or `X-Real-IP` was passed on by someone: behind Caddy or nginx on the same
//! machine its peer is loopback whoever sent it, so it is judged by the client its proxy names,
//! and only when `--trusted-proxies` names that proxy. From any other peer such headers make
//! the client unknown: never this machine.

use std::net::IpAddr;

use axum::http::header::FORWARDED;
use axum::http::HeaderMap;
use ipnet::IpNet;

const X_FORWARDED_FOR: &str = "x-forwarded-for";
const X_REAL_IP: &str = "x-real-ip";
const X_FORWARDED_PROTO: &str = "x-forwarded-proto";

/// The proxies whose word about the client is taken (`--trusted-proxies`).
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

#[derive(Debug, thiserror::Error)]
#[error("--trusted-proxies takes addresses or networks such as 127.0.0.1 or 10.0.0.0/8, not {0:?}")]
pub struct BadProxy(String);

impl TrustedProxies {
    /// From addresses (`127.0.0.1`, `::1`) and networks (`10.0.0.0/8`).
    pub fn parse(list: &[String]) -> Result<TrustedProxies, BadProxy> {
        list.iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<IpNet>()
                    .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| BadProxy(s.to_owned()))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client a request is judged by: its peer when nothing was forwarded; the nearest
    /// address the trusted proxies name when its peer is one of them; otherwise none.
    pub fn client(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Option<IpAddr> {
        let chain = forwarded_chain(headers);
        if chain.is_empty() {
            return peer;
        }
        // Forwarded by a peer nobody vouches for: who the client is cannot be known.
        peer.filter(|&p| self.trusts(p))?;
        // Each proxy appends the address it heard from: the first from the right that is not
        // a trusted proxy is the client (one the chain's sender could not make up).
        let mut client = None;
        for hop in chain.iter().rev() {
            let ip = (*hop)?;
            client = Some(ip);
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }

    /// Whether the request reached the trusted proxy in front over https.
    pub fn forwarded_https(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> bool {
        peer.is_some_and(|p| self.trusts(p))
            && headers
                .get(X_FORWARDED_PROTO)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.rsplit(',').next())
                .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
    }
}

/// The client addresses the forwarding headers name, nearest last (`None` for one that cannot
/// be read, such as `unknown` or an obfuscated name); an empty chain when none is present.
fn forwarded_chain(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let values = |name| {
        headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap_or("\u{0}"))
            .flat_map(|v| v.split(','))
            .collect::<Vec<_>>()
    };
    let forwarded = values(FORWARDED.as_str());
    if !forwarded.is_empty() {
        return forwarded
            .iter()
            .map(|element| {
                element
                    .split(';')
                    .filter_map(|pair| pair.split_once('='))
                    .find(|(key, _)| key.trim().eq_ignore_ascii_case("for"))
                    .and_then(|(_, value)| address(value))
            })
            .collect();
    }
    for name in [X_FORWARDED_FOR, X_REAL_IP] {
        let listed = values(name);
        if !listed.is_empty() {
            return listed.into_iter().map(address).collect();
        }
    }
    Vec::new()
}

/// An address as forwarding headers write it: `192.0.2.1`, `"[2001:db8::1]:4711"`,
/// `192.0.2.1:80`, `2001:db8::1`.
fn address(value: &str) -> Option<IpAddr> {
    let value = value.trim().trim_matches('"');
    if let Ok(ip) = value.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Some(rest) = value.strip_prefix('[') {
        return rest.split_once(']')?.0.parse::<IpAddr>().ok();
    }
    let (host, port) = value.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    host.parse::<IpAddr>().ok().map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn without_forwarding_headers_the_peer_is_the_client() {
        let none = TrustedProxies::default();
        assert_eq!(
            none.client(&HeaderMap::new(), ip("127.0.0.1")),
            ip("127.0.0.1")
        );
        assert_eq!(
            none.client(&HeaderMap::new(), ip("10.1.2.3")),
            ip("10.1.2.3")
        );
    }

    #[test]
    fn forwarded_by_an_untrusted_peer_the_client_is_unknown() {
        let none = TrustedProxies::default();
        for forwarded in [
            headers(&[("x-forwarded-for", "127.0.0.1")]),
            headers(&[("x-forwarded-for", "203.0.113.9")]),
            headers(&[("forwarded", "for=203.0.113.9")]),
            headers(&[("x-real-ip", "203.0.113.9")]),
            headers(&[("x-forwarded-for", "")]),
        ] {
            assert_eq!(
                none.client(&forwarded, ip("127.0.0.1")),
                None,
                "{forwarded:?}"
            );
        }
    }

    #[test]
    fn behind_a_trusted_proxy_the_nearest_untrusted_address_is_the_client() {
        let proxies =
            TrustedProxies::parse(&["127.0.0.1".into(), "10.0.0.0/8".into(), "::1".into()])
                .unwrap();
        let loopback = ip("127.0.0.1");
        // A client that writes its own X-Forwarded-For cannot pass for the machine.
        let spoofed = headers(&[("x-forwarded-for", "127.0.0.1, 203.0.113.9")]);
        assert_eq!(proxies.client(&spoofed, loopback), ip("203.0.113.9"));
        let through_two = headers(&[("x-forwarded-for", "198.51.100.4, 10.0.0.7")]);
        assert_eq!(proxies.client(&through_two, loopback), ip("198.51.100.4"));
        let forwarded = headers(&[(
            "forwarded",
            "for=\"[2001:db8:cafe::17]:4711\";proto=https, for=10.0.0.7",
        )]);
        assert_eq!(
            proxies.client(&forwarded, ip("::1")),
            ip("2001:db8:cafe::17")
        );
        assert_eq!(
            proxies.client(&headers(&[("x-real-ip", "192.0.2.5:1234")]), loopback),
            ip("192.0.2.5")
        );
        // The browser on the proxy's own machine.
        let local = headers(&[("x-forwarded-for", "127.0.0.1")]);
        assert_eq!(proxies.client(&local, loopback), loopback);
        // What cannot be read is no one.
        let unknown = headers(&[("forwarded", "for=unknown")]);
        assert_eq!(proxies.client(&unknown, loopback), None);
        let hidden = headers(&[("x-forwarded-for", "_hidden, 10.0.0.7")]);
        assert_eq!(proxies.client(&hidden, loopback), None);
        // A trusted peer that forwards nothing is the client itself.
        assert_eq!(proxies.client(&HeaderMap::new(), loopback), loopback);
    }

    #[test]
    fn https_is_taken_from_a_trusted_proxy_only() {
        let proxies = TrustedProxies::parse(&["127.0.0.1".into()]).unwrap();
        let https = headers(&[("x-forwarded-proto", "https")]);
        assert!(proxies.forwarded_https(&https, ip("127.0.0.1")));
        assert!(!proxies.forwarded_https(&https, ip("192.0.2.1")));
        assert!(!TrustedProxies::default().forwarded_https(&https, ip("127.0.0.1")));
        assert!(!proxies.forwarded_https(&HeaderMap::new(), ip("127.0.0.1")));
    }

    #[test]
    fn proxies_are_addresses_or_networks() {
        assert!(TrustedProxies::parse(&["127.0.0.1".into(), "fd00::/8".into()]).is_ok());
        for bad in ["localhost", "10.0.0.0/33", "*"] {
            assert!(TrustedProxies::parse(&[bad.into()]).is_err(), "{bad}");
        }
    }
}
