//! Who makes a request ([`Caller`]): what rate limits, result caches, task
//! quotas, stream caps and sealed states are keyed by, so that one caller's
//! use never counts against another's, nor reads across to it.

use std::fmt;
#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::net::{IpAddr, Ipv6Addr};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::principal::Principal;

/// The address of the client an HTTP request came from: the peer of the
/// connection, or, behind [trusted proxies](crate::transport::http::HttpConfig::trusted_proxies),
/// the address they forwarded. Put in the request's extensions by the HTTP
/// transport when something will ask for it.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClientAddress(pub(crate) SocketAddr);

/// Who makes a request, as the server's limits and caches tell callers
/// apart:
///
/// - an authenticated caller by its [`Principal`]'s issuer, subject and
///   client id together (a digest of them: two clients acting for one user
///   are two callers, and so are two issuers' users of one name);
/// - otherwise, over HTTP, by the client's address: an IPv4 address alone,
///   an IPv6 address by its /64 (one host holds a whole /64, and would
///   otherwise take a bucket, a cache and a quota per address it makes up);
/// - otherwise nothing tells callers apart (stdio, which has one client,
///   or a request dispatched in process): [`Caller::is_known`] is false.
///
/// Its text (`Display`) names the kind and the key, never the principal's
/// names: `principal:9Kq…`, `address:192.0.2.7`, `address:2001:db8:1:2::/64`,
/// `unknown`.
///
/// ```
/// use mcp_runtime::auth::Principal;
/// use mcp_runtime::middleware::Caller;
///
/// let alice = Caller::of(Some(&Principal::new("alice").with_client_id("app")), None);
/// let other_app = Caller::of(Some(&Principal::new("alice").with_client_id("other")), None);
/// assert_ne!(alice, other_app);
///
/// let one = Caller::of(None, Some("2001:db8::1".parse().unwrap()));
/// let same_host = Caller::of(None, Some("2001:db8::ffff".parse().unwrap()));
/// assert_eq!(one, same_host);
/// assert_eq!(one.to_string(), "address:2001:db8::/64");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Caller(Kind);

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Principal([u8; 16]),
    Address(IpAddr),
    Unknown,
}

impl Caller {
    /// The caller of a request made by `principal` (when authenticated) from
    /// `address` (when known): the principal first.
    pub fn of(principal: Option<&Principal>, address: Option<IpAddr>) -> Self {
        match (principal, address) {
            (Some(principal), _) => Caller(Kind::Principal(principal.identity())),
            (None, Some(address)) => Caller(Kind::Address(address_key(address))),
            (None, None) => Caller(Kind::Unknown),
        }
    }

    /// Whether anything tells this caller apart from others: false over
    /// stdio and in process, where everyone is one caller.
    pub fn is_known(&self) -> bool {
        !matches!(self.0, Kind::Unknown)
    }

    /// Whether the caller is authenticated (known by its principal).
    pub fn is_authenticated(&self) -> bool {
        matches!(self.0, Kind::Principal(_))
    }
}

/// The address a caller is known by: an IPv4 address (or one mapped into
/// IPv6) as it is, an IPv6 address with its last 64 bits cleared.
pub(crate) fn address_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let prefix = u128::from(v6) & !u128::from(u64::MAX);
                IpAddr::V6(Ipv6Addr::from(prefix))
            }
        },
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Kind::Principal(identity) => write!(f, "principal:{}", URL_SAFE_NO_PAD.encode(identity)),
            Kind::Address(IpAddr::V6(v6)) => write!(f, "address:{v6}/64"),
            Kind::Address(v4) => write!(f, "address:{v4}"),
            Kind::Unknown => f.write_str("unknown"),
        }
    }
}

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Caller({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_callers_are_told_apart_by_their_64_bit_prefix() {
        let caller = |text: &str| Caller::of(None, Some(text.parse().unwrap()));
        assert_eq!(caller("2001:db8:1:2::1"), caller("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assert_ne!(caller("2001:db8:1:2::1"), caller("2001:db8:1:3::1"));
        assert_eq!(caller("::ffff:192.0.2.7"), caller("192.0.2.7"), "a mapped IPv4 address is that address");
        assert_ne!(caller("192.0.2.7"), caller("192.0.2.8"));
        assert_eq!(caller("2001:db8:1:2::1").to_string(), "address:2001:db8:1:2::/64");
    }

    #[test]
    fn a_principal_is_its_issuer_subject_and_client_together() {
        let caller = |p: Principal| Caller::of(Some(&p), Some("192.0.2.7".parse().unwrap()));
        let alice = caller(Principal::new("alice").with_issuer("https://a").with_client_id("app"));
        assert_eq!(alice, caller(Principal::new("alice").with_issuer("https://a").with_client_id("app")));
        assert_ne!(alice, caller(Principal::new("alice").with_issuer("https://b").with_client_id("app")));
        assert_ne!(alice, caller(Principal::new("alice").with_issuer("https://a").with_client_id("other")));
        assert_ne!(alice, caller(Principal::new("alice").with_issuer("https://a")));
        // Lengths are part of the digest: names cannot be shifted across parts.
        assert_ne!(caller(Principal::new("b").with_issuer("a")), caller(Principal::new("").with_issuer("ab")),);
        assert!(alice.is_authenticated() && alice.is_known());
        assert!(!Caller::of(None, None).is_known());
        assert!(alice.to_string().starts_with("principal:") && !alice.to_string().contains("alice"));
    }
}
