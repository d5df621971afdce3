//! `Origin` and `Host` checks against DNS rebinding, the first check an HTTP
//! request meets (before its body is read).
//!
//! A page on `evil.example.com` can make its name resolve to 127.0.0.1 (or
//! to any address of a private network) and then talk to a server there
//! "same-origin". The browser still sends `Host: evil.example.com` (and an
//! `Origin` naming it), which is what we refuse. An address written as such
//! (`Host: 10.0.3.7:3000`) cannot be rebound: only names can.

use std::borrow::Cow;
use std::net::IpAddr;

use http::{HeaderMap, HeaderValue, Uri, header};

/// Which `Host` values are accepted (the public URL's host always is).
#[derive(Debug, Clone, Default)]
enum HostRule {
    /// Loopback names only, unless the standalone server learns that it is
    /// bound to a non-loopback address (then [`HostRule::Wide`]).
    #[default]
    Auto,
    /// `localhost`, `127.0.0.0/8` and `[::1]`, any port.
    Loopback,
    /// A server bound to a wider address: the loopback names, and
    /// addresses written as such (`10.0.3.7:3000`, `[2001:db8::7]`); no
    /// other name.
    Wide,
    /// The listed hosts.
    List(Vec<HostPattern>),
    /// Any host; `Origin` must then be same-origin or listed.
    Any,
}

/// One allowed host: a name with an optional port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPattern {
    host: String,
    port: Option<u16>,
}

/// The configured `Origin`/`Host` rules.
#[derive(Debug, Clone, Default)]
pub(crate) struct OriginPolicy {
    hosts: HostRule,
    origins: Vec<String>,
    /// The host (and port) of the server's public URL.
    public: Option<HostPattern>,
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    MissingHost,
    Host(String),
    Origin(String),
    /// `Host` or `Origin` sent more than once: which one would count is
    /// anybody's guess, so neither does.
    Repeated(&'static str),
}

impl Refusal {
    /// A repeated `Host` is a malformed request (RFC 9112 §3.2: 400); the
    /// others are refusals of a well-formed one.
    pub(crate) fn status(&self) -> http::StatusCode {
        match self {
            Refusal::Repeated(_) => http::StatusCode::BAD_REQUEST,
            _ => http::StatusCode::FORBIDDEN,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::MissingHost => f.write_str("The request has no Host header"),
            Refusal::Host(host) => write!(f, "Host `{host}` is not allowed"),
            Refusal::Origin(origin) => write!(f, "Origin `{origin}` is not allowed"),
            Refusal::Repeated(name) => write!(f, "The request has more than one {name} header"),
        }
    }
}

/// The value of `name`, unless it appears more than once.
fn single<'a>(
    headers: &'a HeaderMap,
    name: header::HeaderName,
    shown: &'static str,
) -> Result<Option<&'a HeaderValue>, Refusal> {
    let mut values = headers.get_all(name).iter();
    match (values.next(), values.next()) {
        (first, None) => Ok(first),
        (_, Some(_)) => Err(Refusal::Repeated(shown)),
    }
}

impl OriginPolicy {
    pub(crate) fn allow_hosts(&mut self, hosts: impl Iterator<Item = String>) {
        let mut list = match std::mem::take(&mut self.hosts) {
            HostRule::List(list) => list,
            _ => Vec::new(),
        };
        list.extend(hosts.filter_map(|h| {
            let (host, port) = split_host_port(h.trim())?;
            Some(HostPattern { host: host.into_owned(), port })
        }));
        self.hosts = HostRule::List(list);
    }

    /// Accepts the host of the server's public URL (and pages of its
    /// origin), whatever the rule.
    pub(crate) fn allow_public(&mut self, url: &Uri) {
        let Some(authority) = url.authority() else { return };
        let Some((host, port)) = split_host_port(authority.as_str()) else { return };
        let default_port = match url.scheme_str() {
            Some("https") => Some(443),
            _ => Some(80),
        };
        self.public = Some(HostPattern { host: host.into_owned(), port: port.or(default_port) });
    }

    /// What to set to accept what `refusal` refused, for its message.
    pub(crate) fn hint(&self, refusal: &Refusal) -> &'static str {
        match refusal {
            Refusal::Host(_) | Refusal::MissingHost => match self.hosts {
                HostRule::Any => "",
                _ => {
                    " (a server reached by a name must be told it: HttpConfig::public_url, or HttpConfig::allowed_hosts)"
                }
            },
            Refusal::Origin(_) => " (pages of another origin are let in with HttpConfig::allowed_origins)",
            Refusal::Repeated(_) => "",
        }
    }

    pub(crate) fn allow_any_host(&mut self) {
        self.hosts = HostRule::Any;
    }

    pub(crate) fn allow_origins(&mut self, origins: impl Iterator<Item = String>) {
        self.origins.extend(origins.map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase()));
    }

    /// Settles the automatic rule once the listening address is known
    /// (`None`: mounted somewhere unknown, keep the loopback default).
    pub(crate) fn resolve(mut self, bound_to_loopback: Option<bool>) -> Self {
        if let HostRule::Auto = self.hosts {
            self.hosts = if bound_to_loopback == Some(false) { HostRule::Wide } else { HostRule::Loopback };
        }
        self
    }

    /// Refuses a request whose `Host` or `Origin` is not one this server
    /// answers for, before anything else about it is looked at.
    pub(crate) fn check(&self, headers: &HeaderMap, uri: &Uri) -> Result<(), Refusal> {
        let host_value = single(headers, header::HOST, "Host")?;
        let origin_value = single(headers, header::ORIGIN, "Origin")?;
        // What a local client sends, settled without taking the value apart.
        if matches!(self.hosts, HostRule::Auto | HostRule::Loopback)
            && host_value.is_some_and(|v| is_plain_loopback_host(v.as_bytes()))
            && origin_value.is_none()
        {
            return Ok(());
        }
        let host_text = match host_value {
            Some(value) => value.to_str().ok().map(str::trim_ascii),
            None => uri.authority().map(|a| a.as_str()),
        };
        let host = host_text.and_then(split_host_port);
        match (&self.hosts, &host) {
            (HostRule::Any, _) => {}
            (_, None) => {
                return Err(host_text.map_or(Refusal::MissingHost, |h| Refusal::Host(h.to_owned())));
            }
            (rule, Some((name, port))) => {
                if !self.host_allowed(rule, name, *port) {
                    return Err(Refusal::Host(host_text.unwrap_or_default().to_owned()));
                }
            }
        }

        let Some(origin) = origin_value else { return Ok(()) };
        let shown = || Refusal::Origin(String::from_utf8_lossy(origin.as_bytes()).into_owned());
        let origin = origin.to_str().map_err(|_| shown())?.trim();
        let normalized = origin.trim_end_matches('/').to_ascii_lowercase();
        if self.origins.contains(&normalized) {
            return Ok(());
        }
        let Some((name, port)) = origin_authority(origin).and_then(split_host_port) else { return Err(shown()) };
        let allowed = match &self.hosts {
            HostRule::Any => {
                host.as_ref().is_some_and(|(h, p)| *h == name && *p == port) || self.is_public(&name, port)
            }
            rule => self.host_allowed(rule, &name, port),
        };
        if allowed { Ok(()) } else { Err(shown()) }
    }

    fn host_allowed(&self, rule: &HostRule, name: &str, port: Option<u16>) -> bool {
        self.is_public(name, port)
            || match rule {
                HostRule::Any => true,
                HostRule::Auto | HostRule::Loopback => is_loopback(name),
                HostRule::Wide => is_loopback(name) || name.parse::<IpAddr>().is_ok(),
                HostRule::List(list) => list.iter().any(|p| p.host == name && (p.port.is_none() || p.port == port)),
            }
    }

    /// Whether `name` and `port` are the public URL's. A `Host` without a
    /// port is on the scheme's default port.
    fn is_public(&self, name: &str, port: Option<u16>) -> bool {
        self.public.as_ref().is_some_and(|p| p.host == name && (port.is_none() || port == p.port))
    }
}

/// `localhost`, `127.0.0.1` or `[::1]`, alone or with a port: a `Host` the
/// loopback rule accepts (anything else is read in full).
fn is_plain_loopback_host(value: &[u8]) -> bool {
    let Some(port) = [&b"127.0.0.1"[..], b"localhost", b"[::1]"].into_iter().find_map(|name| value.strip_prefix(name))
    else {
        return false;
    };
    match port {
        [] => true,
        [b':', digits @ ..] => {
            !digits.is_empty()
                && digits.len() <= 5
                && digits.iter().all(u8::is_ascii_digit)
                && digits.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')) <= u32::from(u16::MAX)
        }
        _ => false,
    }
}

/// `localhost`, an address in 127.0.0.0/8, or `::1`.
fn is_loopback(name: &str) -> bool {
    name == "localhost" || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `scheme://authority[/...]` → `authority`.
fn origin_authority(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    if scheme.is_empty() {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    (!authority.is_empty() && !authority.contains('@')).then_some(authority)
}

/// `name[:port]` or `[v6][:port]` → lower-case name (IPv6 without
/// brackets) and port. `None` for anything malformed.
fn split_host_port(text: &str) -> Option<(Cow<'_, str>, Option<u16>)> {
    let (name, port) = if let Some(rest) = text.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        v6.parse::<std::net::Ipv6Addr>().ok()?;
        (v6, port)
    } else {
        match text.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (text, None),
        }
    };
    let valid_name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b':');
    if name.is_empty() || !name.bytes().all(valid_name) {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) => Some(p.parse::<u16>().ok()?),
    };
    let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    };
    Some((name, port))
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut map = HeaderMap::new();
        if let Some(h) = host {
            map.insert(header::HOST, HeaderValue::from_str(h).expect("valid header"));
        }
        if let Some(o) = origin {
            map.insert(header::ORIGIN, HeaderValue::from_str(o).expect("valid header"));
        }
        map
    }

    fn check(policy: &OriginPolicy, host: Option<&str>, origin: Option<&str>) -> Result<(), Refusal> {
        policy.check(&headers(host, origin), &Uri::from_static("/mcp"))
    }

    #[test]
    fn the_loopback_shortcut_accepts_only_what_the_full_reading_accepts() {
        let hosts = [
            "localhost",
            "localhost:3000",
            "127.0.0.1:65535",
            "[::1]:0",
            "localhost:00080",
            "127.0.0.1:65536",
            "localhost:",
            "localhost:+80",
            "localhost:3000x",
            "localhostx",
            "localhost.evil.com",
            "127.0.0.1.nip.io",
            "[::1]x",
            "[::1]:",
            " localhost",
            "localhost:123456",
        ];
        let policy = OriginPolicy::default();
        for host in hosts {
            let shortcut = is_plain_loopback_host(host.as_bytes());
            let reading =
                split_host_port(host).is_some_and(|(name, port)| policy.host_allowed(&HostRule::Loopback, &name, port));
            assert!(!shortcut || reading, "the shortcut accepts {host:?}, the full reading does not");
        }
        for host in ["localhost", "localhost:3000", "127.0.0.1:65535", "[::1]:0", "localhost:00080"] {
            assert!(is_plain_loopback_host(host.as_bytes()), "{host}");
        }
    }

    #[test]
    fn loopback_default_accepts_local_names_on_any_port() {
        let p = OriginPolicy::default().resolve(None);
        for host in ["localhost", "localhost:3000", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:9", "LOCALHOST:1"] {
            assert_eq!(check(&p, Some(host), None), Ok(()), "{host}");
        }
        for origin in ["http://localhost:3000", "https://127.0.0.1", "http://[::1]:5173"] {
            assert_eq!(check(&p, Some("localhost:3000"), Some(origin)), Ok(()), "{origin}");
        }
    }

    #[test]
    fn loopback_default_refuses_other_hosts_and_origins() {
        let p = OriginPolicy::default().resolve(Some(true));
        assert_eq!(check(&p, Some("evil.example.com"), None), Err(Refusal::Host("evil.example.com".into())));
        assert_eq!(check(&p, Some("localhost.evil.com:80"), None), Err(Refusal::Host("localhost.evil.com:80".into())));
        assert_eq!(check(&p, None, None), Err(Refusal::MissingHost));
        assert_eq!(check(&p, Some("localhost:notaport"), None), Err(Refusal::Host("localhost:notaport".into())));
        for origin in ["http://evil.example.com", "null", "localhost", "http://user@localhost"] {
            assert_eq!(check(&p, Some("localhost"), Some(origin)), Err(Refusal::Origin(origin.into())), "{origin}");
        }
    }

    #[test]
    fn listed_hosts_replace_the_loopback_names() {
        let p = OriginPolicy::default();
        let mut p = p;
        p.allow_hosts(["mcp.example.com".to_owned(), "api.example.com:8443".to_owned()].into_iter());
        let p = p.resolve(Some(true));
        assert_eq!(check(&p, Some("mcp.example.com:1234"), None), Ok(()));
        assert_eq!(check(&p, Some("api.example.com:8443"), Some("https://mcp.example.com")), Ok(()));
        assert!(check(&p, Some("api.example.com:8444"), None).is_err());
        assert!(check(&p, Some("localhost"), None).is_err());
        assert!(check(&p, Some("mcp.example.com"), Some("https://other.example.com")).is_err());
    }

    #[test]
    fn a_wide_bind_refuses_rebound_names_and_takes_addresses_loopback_and_the_public_url() {
        let p = OriginPolicy::default().resolve(Some(false));
        let rebound = "rebind.attacker.example:3000";
        assert_eq!(check(&p, Some(rebound), None), Err(Refusal::Host(rebound.into())));
        assert_eq!(
            check(&p, Some(rebound), Some("http://rebind.attacker.example:3000")),
            Err(Refusal::Host(rebound.into()))
        );
        assert!(p.hint(&Refusal::Host(rebound.into())).contains("public_url"));
        for host in ["localhost:3000", "10.0.3.7:3000", "[2001:db8::7]:3000", "192.0.2.1"] {
            assert_eq!(check(&p, Some(host), None), Ok(()), "{host}");
        }
        assert_eq!(check(&p, Some("10.0.3.7:3000"), Some("http://10.0.3.7:3000")), Ok(()));
        assert!(check(&p, Some("10.0.3.7:3000"), Some("http://evil.example.com")).is_err());

        let mut p = OriginPolicy::default();
        p.allow_public(&Uri::from_static("https://mcp.example.com/mcp"));
        let p = p.resolve(Some(false));
        assert_eq!(check(&p, Some("mcp.example.com"), None), Ok(()));
        assert_eq!(check(&p, Some("mcp.example.com:443"), Some("https://mcp.example.com")), Ok(()));
        assert!(check(&p, Some("mcp.example.com:8443"), None).is_err(), "another port is another server");
        assert!(check(&p, Some("other.example.com"), None).is_err());
    }

    #[test]
    fn any_host_requires_same_origin_or_a_listed_origin() {
        let mut p = OriginPolicy::default();
        p.allow_origins(["https://App.example.com/".to_owned()].into_iter());
        p.allow_any_host();
        let p = p.resolve(Some(false));
        assert_eq!(check(&p, Some("mcp.example.com"), None), Ok(()));
        assert_eq!(check(&p, Some("mcp.example.com"), Some("https://mcp.example.com")), Ok(()));
        assert_eq!(check(&p, Some("mcp.example.com"), Some("https://app.example.com")), Ok(()));
        assert!(check(&p, Some("mcp.example.com"), Some("https://evil.example.com")).is_err());
        assert!(check(&p, Some("mcp.example.com:80"), Some("https://mcp.example.com:81")).is_err());
    }

    #[test]
    fn parses_hosts() {
        assert_eq!(split_host_port("Example.COM:80"), Some(("example.com".into(), Some(80))));
        assert_eq!(split_host_port("[::1]:3000"), Some(("::1".into(), Some(3000))));
        assert_eq!(split_host_port("[::1]"), Some(("::1".into(), None)));
        assert_eq!(split_host_port("[nope]"), None);
        assert_eq!(split_host_port("a b"), None);
        assert_eq!(split_host_port(""), None);
        assert_eq!(split_host_port("host:99999"), None);
    }
}
