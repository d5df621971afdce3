//! Redirect URIs: which a client may register, and when the one of an
//! authorization request is one of them (OAuth 2.1 §2.3.1: exactly, with
//! RFC 8252 §7.3's exception for the port of a loopback address).

use url::Url;

/// The most redirect URIs one client may register.
pub(crate) const MAX_REDIRECT_URIS: usize = 20;
/// The longest redirect URI accepted.
pub(crate) const MAX_URI_BYTES: usize = 2048;

/// Why a redirect URI cannot be registered, for the client's developer.
pub(crate) fn unfit_for_registration(uri: &str) -> Option<String> {
    if uri.len() > MAX_URI_BYTES {
        return Some(format!("a redirect URI is longer than {MAX_URI_BYTES} bytes"));
    }
    let Ok(url) = Url::parse(uri) else {
        return Some(format!("`{uri}` is not an absolute URI"));
    };
    if url.fragment().is_some() {
        return Some(format!("`{uri}` has a fragment"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Some(format!("`{uri}` carries credentials"));
    }
    match url.scheme() {
        "https" if url.host().is_some() => None,
        "http" if is_loopback(&url) => None,
        "http" => Some(format!("`{uri}` is plain http to a host other than this machine (loopback)")),
        // A native app's private-use scheme is a reversed domain name
        // (RFC 8252 §7.1); `javascript:`, `data:` and their kin are not.
        scheme if scheme.contains('.') => None,
        _ => Some(format!("`{uri}` has a scheme that cannot be a redirect URI")),
    }
}

/// Whether `requested` is one of `registered`.
pub(crate) fn matches(registered: &[String], requested: &str) -> bool {
    if registered.iter().any(|uri| uri == requested) {
        return true;
    }
    // A native app listens on a port it gets when it starts: for loopback
    // IPs the port is not compared (RFC 8252 §7.3), all else is.
    let Ok(asked) = Url::parse(requested) else { return false };
    if asked.scheme() != "http" || !is_loopback_ip(&asked) || asked.fragment().is_some() {
        return false;
    }
    registered.iter().filter_map(|uri| Url::parse(uri).ok()).any(|known| {
        known.scheme() == "http"
            && is_loopback_ip(&known)
            && known.host() == asked.host()
            && known.path() == asked.path()
            && known.query() == asked.query()
    })
}

/// The host a person is sent to, as the consent page shows it.
pub(crate) fn host_of(uri: &str) -> String {
    match Url::parse(uri) {
        Ok(url) => match url.host_str() {
            Some(host) => host.to_owned(),
            None => format!("{}:", url.scheme()),
        },
        Err(_) => uri.to_owned(),
    }
}

/// Whether the URI leads back to the person's own machine.
pub(crate) fn is_local(uri: &str) -> bool {
    Url::parse(uri).is_ok_and(|url| is_loopback(&url) || !matches!(url.scheme(), "http" | "https"))
}

fn is_loopback_ip(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        _ => false,
    }
}

fn is_loopback(url: &Url) -> bool {
    is_loopback_ip(url) || url.host_str() == Some("localhost")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_takes_https_loopback_and_app_schemes() {
        for fit in [
            "https://app.example.com/cb",
            "http://127.0.0.1:8080/cb",
            "http://localhost/cb",
            "http://[::1]/cb",
            "com.example.app:/oauth",
        ] {
            assert_eq!(unfit_for_registration(fit), None, "{fit}");
        }
        for unfit in [
            "http://app.example.com/cb",
            "https://app.example.com/cb#x",
            "https://user:pw@app.example.com/cb",
            "javascript:alert(1)",
            "data:text/html,x",
            "/relative",
            &format!("https://a.example/{}", "x".repeat(MAX_URI_BYTES)),
        ] {
            assert!(unfit_for_registration(unfit).is_some(), "{unfit}");
        }
    }

    #[test]
    fn only_a_loopback_ip_port_may_differ() {
        let registered = ["http://127.0.0.1/callback".to_owned(), "https://app.example.com/cb".to_owned()];
        assert!(matches(&registered, "https://app.example.com/cb"));
        assert!(matches(&registered, "http://127.0.0.1:53211/callback"));
        assert!(!matches(&registered, "http://127.0.0.1:53211/callback/x"));
        assert!(!matches(&registered, "http://127.0.0.1:53211/callback?x=1"));
        assert!(!matches(&registered, "https://app.example.com:8443/cb"));
        assert!(!matches(&registered, "https://app.example.com/cb/"));
        assert!(!matches(&registered, "https://app.example.com/CB"));
        assert!(!matches(&registered, "http://[::1]:5000/callback"), "another host");
        assert!(!matches(&["http://localhost/cb".to_owned()], "http://localhost:9/cb"), "a name, not an IP");
    }
}
