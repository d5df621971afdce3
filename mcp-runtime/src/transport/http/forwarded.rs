//! The client's address: the connection's peer, or, behind proxies the
//! server was told to trust ([`HttpConfig::trusted_proxies`]), the address
//! they forwarded in `X-Forwarded-For` or `Forwarded` (RFC 7239).
//!
//! [`HttpConfig::trusted_proxies`]: super::HttpConfig::trusted_proxies

use std::net::{IpAddr, SocketAddr};

use http::HeaderMap;

/// Which header the [trusted proxies](super::HttpConfig::trusted_proxies) in
/// front of the server write the client's address into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, ...` (HAProxy's `option
    /// forwardfor`, nginx's `$proxy_add_x_forwarded_for`, most cloud
    /// balancers).
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
}

/// How many proxies in front of the server are trusted to say who the
/// client is, and in which header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TrustedProxies {
    pub(crate) hops: usize,
    pub(crate) header: ForwardedHeader,
}

/// The longest forwarding chain read: a header longer than this says more
/// than any deployment's proxies would, and its first entries are the
/// client's own writing anyway.
const MAX_HOPS_READ: usize = 64;

/// The address of the client that sent a request received from `peer`
/// with `headers`.
pub(crate) fn client_address(peer: SocketAddr, headers: &HeaderMap, trusted: Option<&TrustedProxies>) -> SocketAddr {
    let Some(trusted) = trusted else { return peer };
    let entries = match trusted.header {
        ForwardedHeader::XForwardedFor => entries(headers, "x-forwarded-for", read_x_forwarded_for),
        ForwardedHeader::Forwarded => entries(headers, "forwarded", read_forwarded),
    };
    // Each proxy appends what it received the request from: the last
    // `hops` entries are the trusted proxies' writing, the last of which
    // names the client (or the proxy before them, which is not trusted).
    let chosen = match entries.len().checked_sub(trusted.hops) {
        Some(at) => entries.get(at),
        None => entries.first(),
    };
    match chosen {
        Some(Some(address)) => *address,
        // No header at all, or an entry that does not read (`unknown`, an
        // obfuscated name): the proxy's own address keys the request.
        _ => peer,
    }
}

/// The entries of every `name` header, in order, each read by `read`, the
/// last [`MAX_HOPS_READ`] of them.
fn entries(headers: &HeaderMap, name: &str, read: fn(&str) -> Option<SocketAddr>) -> Vec<Option<SocketAddr>> {
    let mut all: Vec<Option<SocketAddr>> = Vec::new();
    for value in headers.get_all(name) {
        // A value that is not text is one entry that does not read.
        let Ok(text) = value.to_str() else {
            all.push(None);
            continue;
        };
        all.extend(text.split(',').map(|entry| read(entry.trim())));
        if all.len() > MAX_HOPS_READ {
            all.drain(..all.len() - MAX_HOPS_READ);
        }
    }
    all
}

/// An `X-Forwarded-For` entry: an address, with a port or without
/// (`192.0.2.7`, `192.0.2.7:4711`, `2001:db8::7`, `[2001:db8::7]:4711`).
fn read_x_forwarded_for(entry: &str) -> Option<SocketAddr> {
    address(entry)
}

/// A `Forwarded` element's `for` parameter (`for=192.0.2.7;proto=https`,
/// `for="[2001:db8::7]:4711"`); `None` when it has none, or an obfuscated
/// or `unknown` node.
fn read_forwarded(element: &str) -> Option<SocketAddr> {
    let node = element.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        name.trim().eq_ignore_ascii_case("for").then_some(value.trim())
    })?;
    let node = node.strip_prefix('"').and_then(|n| n.strip_suffix('"')).unwrap_or(node);
    address(node)
}

/// `ip`, `ip:port`, `v6` or `[v6]:port`; port 0 when there is none.
fn address(text: &str) -> Option<SocketAddr> {
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Some(SocketAddr::new(ip, 0));
    }
    if let Ok(with_port) = text.parse::<SocketAddr>() {
        return Some(with_port);
    }
    let v6 = text.strip_prefix('[')?.strip_suffix(']')?;
    Some(SocketAddr::new(IpAddr::V6(v6.parse().ok()?), 0))
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(name: &'static str, values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(name, HeaderValue::from_str(value).expect("a header value"));
        }
        map
    }

    const PEER: &str = "10.0.0.2:51000";

    fn client(header: ForwardedHeader, hops: usize, name: &'static str, values: &[&str]) -> String {
        let trusted = TrustedProxies { hops, header };
        client_address(PEER.parse().unwrap(), &headers(name, values), Some(&trusted)).ip().to_string()
    }

    #[test]
    fn without_trusted_proxies_the_peer_is_the_client_whatever_the_headers_say() {
        let forged = headers("x-forwarded-for", &["203.0.113.9"]);
        assert_eq!(client_address(PEER.parse().unwrap(), &forged, None), PEER.parse().unwrap());
    }

    #[test]
    fn the_client_is_the_address_the_last_trusted_proxy_wrote() {
        let xff = ForwardedHeader::XForwardedFor;
        assert_eq!(client(xff, 1, "x-forwarded-for", &["198.51.100.7"]), "198.51.100.7");
        // What a client writes itself comes first, and is not believed.
        assert_eq!(client(xff, 1, "x-forwarded-for", &["203.0.113.9, 198.51.100.7"]), "198.51.100.7");
        assert_eq!(client(xff, 1, "x-forwarded-for", &["203.0.113.9", "198.51.100.7"]), "198.51.100.7");
        assert_eq!(client(xff, 2, "x-forwarded-for", &["203.0.113.9, 198.51.100.7, 10.0.0.9"]), "198.51.100.7");
        // Fewer entries than proxies: the first there is.
        assert_eq!(client(xff, 3, "x-forwarded-for", &["198.51.100.7, 10.0.0.9"]), "198.51.100.7");
        assert_eq!(client(xff, 1, "x-forwarded-for", &["[2001:db8::7]:4711"]), "2001:db8::7");
        assert_eq!(client(xff, 1, "x-forwarded-for", &["198.51.100.7:80"]), "198.51.100.7");
        // Nothing, or nothing readable: the peer.
        assert_eq!(client(xff, 1, "x-forwarded-for", &[]), "10.0.0.2");
        assert_eq!(client(xff, 1, "x-forwarded-for", &["203.0.113.9, unknown"]), "10.0.0.2");
        // The other header is not read.
        assert_eq!(client(xff, 1, "forwarded", &["for=203.0.113.9"]), "10.0.0.2");
    }

    #[test]
    fn forwarded_elements_are_read_by_their_for_parameter() {
        let fwd = ForwardedHeader::Forwarded;
        assert_eq!(client(fwd, 1, "forwarded", &["for=192.0.2.43"]), "192.0.2.43");
        assert_eq!(
            client(fwd, 1, "forwarded", &[r#"for="[2001:db8:cafe::17]:4711";proto=https"#]),
            "2001:db8:cafe::17"
        );
        assert_eq!(client(fwd, 1, "forwarded", &["For=203.0.113.9, proto=http;for=192.0.2.43"]), "192.0.2.43");
        assert_eq!(client(fwd, 1, "forwarded", &["for=_hidden"]), "10.0.0.2");
        assert_eq!(client(fwd, 1, "forwarded", &["for=unknown"]), "10.0.0.2");
        assert_eq!(client(fwd, 1, "x-forwarded-for", &["192.0.2.43"]), "10.0.0.2");
    }

    #[test]
    fn a_long_chain_is_read_from_its_end() {
        let chain: Vec<String> = (0..200).map(|i| format!("203.0.113.{}", i % 250)).collect();
        let chain = chain.join(", ") + ", 198.51.100.7";
        assert_eq!(client(ForwardedHeader::XForwardedFor, 1, "x-forwarded-for", &[&chain]), "198.51.100.7");
    }
}
