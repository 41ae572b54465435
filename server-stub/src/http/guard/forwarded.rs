//! Who a request is from when a proxy stands in front. The client's address is read from the
//! one header the operator's proxy writes (`--forwarded-header`), from the right, skipping the
//! trusted proxies' own hops, and only when the request's peer is a trusted proxy
//! (`--trusted-proxies`). A proxy passes the other forwarding headers a visitor wrote through
//! untouched, so they are never read for an address: when the chosen header is missing from a
//! request that carries another one, the client is unknown. From a peer nobody vouches for, any
//! forwarding header makes the client unknown: behind Caddy or nginx on the same machine every
//! visitor's request arrives from loopback, and must never be taken for this machine.

use std::net::IpAddr;

use axum::http::header::FORWARDED;
use axum::http::HeaderMap;
use clap::ValueEnum;
use ipnet::IpNet;

const X_FORWARDED_FOR: &str = "x-forwarded-for";
const X_REAL_IP: &str = "x-real-ip";
const X_FORWARDED_PROTO: &str = "x-forwarded-proto";

/// The header the proxy in front writes the client's address to (`--forwarded-header`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ForwardedHeader {
    /// `X-Forwarded-For`, appended to by each proxy (nginx's `$proxy_add_x_forwarded_for`,
    /// Caddy, Traefik, AWS load balancers).
    #[default]
    XForwardedFor,
    /// `Forwarded` (RFC 7239), appended to by each proxy.
    Forwarded,
    /// `X-Real-IP`, one address that the proxy sets in place of whatever the visitor sent
    /// (nginx's `proxy_set_header X-Real-IP $remote_addr`).
    XRealIp,
}

impl ForwardedHeader {
    fn name(self) -> &'static str {
        match self {
            ForwardedHeader::XForwardedFor => X_FORWARDED_FOR,
            ForwardedHeader::Forwarded => FORWARDED.as_str(),
            ForwardedHeader::XRealIp => X_REAL_IP,
        }
    }
}

/// The proxies whose word about the client is taken (`--trusted-proxies`), and the header
/// they write it to (`--forwarded-header`).
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies {
    proxies: Vec<IpNet>,
    header: ForwardedHeader,
}

#[derive(Debug, thiserror::Error)]
#[error("--trusted-proxies takes addresses or networks such as 127.0.0.1 or 10.0.0.0/8, not {0:?}")]
pub struct BadProxy(String);

impl TrustedProxies {
    /// From addresses (`127.0.0.1`, `::1`) and networks (`10.0.0.0/8`), writing the client's
    /// address to `X-Forwarded-For`.
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
            .map(|proxies| TrustedProxies {
                proxies,
                header: ForwardedHeader::default(),
            })
    }

    /// The same proxies, writing the client's address to `header`.
    pub fn reading(self, header: ForwardedHeader) -> TrustedProxies {
        TrustedProxies { header, ..self }
    }

    pub fn is_empty(&self) -> bool {
        self.proxies.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.proxies.iter().any(|net| net.contains(&ip))
    }

    /// The client a request is judged by: its peer when nothing was forwarded; the nearest
    /// address the chosen header names that is not a trusted proxy, when its peer is one of
    /// them; otherwise none.
    pub fn client(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Option<IpAddr> {
        let forwarded = [X_FORWARDED_FOR, FORWARDED.as_str(), X_REAL_IP]
            .iter()
            .any(|name| headers.contains_key(*name));
        if !forwarded {
            return peer;
        }
        // Forwarded by a peer nobody vouches for: who the client is cannot be known.
        peer.filter(|&p| self.trusts(p))?;
        let chain = self.chain(headers);
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

    /// Whether the request reached the trusted proxy in front over https: the last `proto` of
    /// `Forwarded` when that is the header read, otherwise the last `X-Forwarded-Proto`.
    pub fn forwarded_https(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> bool {
        if !peer.is_some_and(|p| self.trusts(p)) {
            return false;
        }
        let proto = match self.header {
            ForwardedHeader::Forwarded => values(headers, FORWARDED.as_str())
                .last()
                .and_then(|element| parameter(element, "proto"))
                .map(str::to_owned),
            _ => values(headers, X_FORWARDED_PROTO)
                .last()
                .map(|v| v.trim().to_owned()),
        };
        proto.is_some_and(|p| p.trim_matches('"').eq_ignore_ascii_case("https"))
    }

    /// The client addresses the chosen header names, nearest last (`None` for one that cannot
    /// be read, such as `unknown` or an obfuscated name); a chain of one unknown when the
    /// header is missing or, for `X-Real-IP`, names more than one address.
    fn chain(&self, headers: &HeaderMap) -> Vec<Option<IpAddr>> {
        let listed = values(headers, self.header.name());
        let chain: Vec<Option<IpAddr>> = match self.header {
            ForwardedHeader::Forwarded => listed
                .iter()
                .map(|element| parameter(element, "for").and_then(address))
                .collect(),
            ForwardedHeader::XForwardedFor => listed.into_iter().map(address).collect(),
            ForwardedHeader::XRealIp if listed.len() == 1 => vec![address(listed[0])],
            ForwardedHeader::XRealIp => Vec::new(),
        };
        if chain.is_empty() {
            vec![None]
        } else {
            chain
        }
    }
}

/// The comma-separated values of every `name` header line, in order.
fn values<'a>(headers: &'a HeaderMap, name: &str) -> Vec<&'a str> {
    headers
        .get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap_or("\u{0}"))
        .flat_map(|v| v.split(','))
        .collect()
}

/// A parameter of one `Forwarded` element (`for=...;proto=https`).
fn parameter<'a>(element: &'a str, key: &str) -> Option<&'a str> {
    element
        .split(';')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case(key))
        .map(|(_, value)| value.trim())
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

    fn trusted() -> TrustedProxies {
        TrustedProxies::parse(&["127.0.0.1".into(), "10.0.0.0/8".into(), "::1".into()]).unwrap()
    }

    #[test]
    fn behind_a_trusted_proxy_the_nearest_untrusted_address_is_the_client() {
        let proxies = trusted();
        let loopback = ip("127.0.0.1");
        // A client that writes its own X-Forwarded-For cannot pass for the machine.
        let spoofed = headers(&[("x-forwarded-for", "127.0.0.1, 203.0.113.9")]);
        assert_eq!(proxies.client(&spoofed, loopback), ip("203.0.113.9"));
        let through_two = headers(&[("x-forwarded-for", "198.51.100.4, 10.0.0.7")]);
        assert_eq!(proxies.client(&through_two, loopback), ip("198.51.100.4"));
        let lines = headers(&[
            ("x-forwarded-for", "127.0.0.1"),
            ("x-forwarded-for", "198.51.100.4"),
        ]);
        assert_eq!(proxies.client(&lines, loopback), ip("198.51.100.4"));
        let forwarded = headers(&[(
            "forwarded",
            "for=\"[2001:db8:cafe::17]:4711\";proto=https, for=10.0.0.7",
        )]);
        assert_eq!(
            trusted()
                .reading(ForwardedHeader::Forwarded)
                .client(&forwarded, ip("::1")),
            ip("2001:db8:cafe::17")
        );
        assert_eq!(
            trusted()
                .reading(ForwardedHeader::XRealIp)
                .client(&headers(&[("x-real-ip", "192.0.2.5:1234")]), loopback),
            ip("192.0.2.5")
        );
        // The browser on the proxy's own machine.
        let local = headers(&[("x-forwarded-for", "127.0.0.1")]);
        assert_eq!(proxies.client(&local, loopback), loopback);
        // What cannot be read is no one.
        let unknown = headers(&[("forwarded", "for=unknown")]);
        assert_eq!(
            trusted()
                .reading(ForwardedHeader::Forwarded)
                .client(&unknown, loopback),
            None
        );
        let hidden = headers(&[("x-forwarded-for", "_hidden, 10.0.0.7")]);
        assert_eq!(proxies.client(&hidden, loopback), None);
        // A trusted peer that forwards nothing is the client itself.
        assert_eq!(proxies.client(&HeaderMap::new(), loopback), loopback);
    }

    /// Fails on reading every forwarding header, `Forwarded` first: nginx appends the visitor
    /// to `X-Forwarded-For` and passes the visitor's own `Forwarded` and `X-Real-IP` through.
    #[test]
    fn a_header_the_proxy_does_not_write_is_never_read() {
        let loopback = ip("127.0.0.1");
        let visitor = ip("203.0.113.9");
        for (header, spoofs) in [
            (
                ForwardedHeader::XForwardedFor,
                vec![
                    ("forwarded", "for=127.0.0.1"),
                    ("x-real-ip", "127.0.0.1"),
                    ("forwarded", "for=\"[::1]\""),
                ],
            ),
            (
                ForwardedHeader::Forwarded,
                vec![("x-forwarded-for", "127.0.0.1"), ("x-real-ip", "127.0.0.1")],
            ),
            (
                ForwardedHeader::XRealIp,
                vec![
                    ("x-forwarded-for", "127.0.0.1"),
                    ("forwarded", "for=127.0.0.1"),
                ],
            ),
        ] {
            let proxies = trusted().reading(header);
            let written: (&'static str, &'static str) = match header {
                ForwardedHeader::XForwardedFor => ("x-forwarded-for", "203.0.113.9"),
                ForwardedHeader::Forwarded => ("forwarded", "for=203.0.113.9"),
                ForwardedHeader::XRealIp => ("x-real-ip", "203.0.113.9"),
            };
            for spoof in spoofs {
                // The proxy wrote the visitor's address: the spoof changes nothing.
                let both = headers(&[spoof, written]);
                assert_eq!(
                    proxies.client(&both, loopback),
                    visitor,
                    "{header:?} {spoof:?}"
                );
                // The proxy wrote nothing where it should have: no one.
                let alone = headers(&[spoof]);
                assert_eq!(
                    proxies.client(&alone, loopback),
                    None,
                    "{header:?} {spoof:?}"
                );
            }
        }
        // X-Real-IP is set by the proxy, never appended to: two addresses are no one.
        let twice = headers(&[("x-real-ip", "127.0.0.1"), ("x-real-ip", "203.0.113.9")]);
        assert_eq!(
            trusted()
                .reading(ForwardedHeader::XRealIp)
                .client(&twice, loopback),
            None
        );
    }

    #[test]
    fn https_is_taken_from_a_trusted_proxy_only() {
        let proxies = TrustedProxies::parse(&["127.0.0.1".into()]).unwrap();
        let https = headers(&[("x-forwarded-proto", "https")]);
        assert!(proxies.forwarded_https(&https, ip("127.0.0.1")));
        assert!(!proxies.forwarded_https(&https, ip("192.0.2.1")));
        assert!(!TrustedProxies::default().forwarded_https(&https, ip("127.0.0.1")));
        assert!(!proxies.forwarded_https(&HeaderMap::new(), ip("127.0.0.1")));
        let rfc = proxies.clone().reading(ForwardedHeader::Forwarded);
        let forwarded = headers(&[(
            "forwarded",
            "for=192.0.2.1;proto=http, for=10.0.0.7;proto=https",
        )]);
        assert!(rfc.forwarded_https(&forwarded, ip("127.0.0.1")));
        assert!(!rfc.forwarded_https(&https, ip("127.0.0.1")));
    }

    #[test]
    fn proxies_are_addresses_or_networks() {
        assert!(TrustedProxies::parse(&["127.0.0.1".into(), "fd00::/8".into()]).is_ok());
        for bad in ["localhost", "10.0.0.0/33", "*"] {
            assert!(TrustedProxies::parse(&[bad.into()]).is_err(), "{bad}");
        }
    }
}
