//! Interactive views (MCP Apps): a view's URI starts with `ui://`, and each
//! domain its sandbox may reach is an origin, as hosts build their Content
//! Security Policy from them. `#[resource(..., view(...))]` checks these at
//! compile time, `ResourceEntry::view` when the server is built.

/// The scheme every view's URI starts with.
pub const URI_SCHEME: &str = "ui://";

/// The MIME type of a view, exactly as hosts compare it.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Why a view's URI is not one: `None` when it starts with [`URI_SCHEME`].
pub fn check_uri(uri: &str) -> Option<String> {
    (!uri.starts_with(URI_SCHEME))
        .then(|| format!("a view's URI starts with `{URI_SCHEME}`, as hosts require: not `{}`", uri.escape_default()))
}

/// Whether `text` is an origin: `http`, `https`, `ws` or `wss`, a host
/// (for `wildcard` lists, maybe starting with `*.`), maybe a port, and
/// nothing else (no path, query, user or trailing slash).
///
/// ```
/// use mcp_runtime_rules::view::is_origin;
/// assert!(is_origin("https://api.example.com", false));
/// assert!(is_origin("http://localhost:8080", false));
/// assert!(is_origin("https://*.cdn.example.com", true));
/// assert!(!is_origin("https://*.cdn.example.com", false));
/// assert!(!is_origin("https://api.example.com/v1", false));
/// assert!(!is_origin("api.example.com", false));
/// ```
pub fn is_origin(text: &str, wildcard: bool) -> bool {
    let Some((scheme, rest)) = text.split_once("://") else { return false };
    if !matches!(scheme, "http" | "https" | "ws" | "wss") {
        return false;
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    let host = match host.strip_prefix("*.") {
        Some(rest) if wildcard => rest,
        _ => host,
    };
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    port_ok && !host.is_empty() && host.split('.').all(label_ok)
}

/// Why `domain`, in a view's `list` of domains (`connect`, `resource`,
/// `frame` or `base-URI`), is not an origin; `None` when it is. Resource
/// domains may start their host with `*.`.
pub fn check_domain(list: &str, domain: &str) -> Option<String> {
    let wildcard = list == "resource";
    (!is_origin(domain, wildcard)).then(|| {
        format!(
            "{list} domain `{}` is not an origin (scheme://host[:port], nothing after it{})",
            domain.escape_default(),
            if wildcard { "; the host may start with `*.`" } else { "" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_a_scheme_a_host_and_maybe_a_port() {
        for good in ["https://a.example.com", "http://localhost:8080", "wss://live.example.com", "http://127.0.0.1"] {
            assert!(is_origin(good, false), "{good}");
        }
        for bad in [
            "api.example.com",
            "https://api.example.com/",
            "https://api.example.com/path",
            "ftp://example.com",
            "https://",
            "https://exa mple.com",
            "https://example.com:",
            "https://example.com:99999999",
            "https://user@example.com",
            "https://*.example.com",
            "https://-a.example.com",
        ] {
            assert!(!is_origin(bad, false), "{bad}");
        }
        assert!(is_origin("https://*.example.com", true));
        assert!(check_domain("frame", "https://*.example.com").is_some());
        assert!(check_domain("resource", "https://*.example.com").is_none());
        assert!(check_uri("ui://a/b.html").is_none());
        assert!(check_uri("https://a/b.html").is_some_and(|m| m.contains("`ui://`")));
    }
}
