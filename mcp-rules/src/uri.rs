//! Absolute URIs: what the schema's `format: uri` asks of every resource URI
//! a server lists or echoes and of every URI a client names
//! (`resources/read`, subscriptions).
//!
//! A URI of RFC 3986 (`scheme ":" hier-part ["?" query] ["#" fragment]`),
//! not a relative reference: a resource registered with anything else could
//! be listed but never read by a conforming client. Only the syntax is
//! checked, by fluent-uri's parser; whether a resource answers to the URI is
//! the lookup's concern.

use std::fmt;

/// Why a string is not an absolute URI: fluent-uri's reason, which names
/// the byte offset of the fault. Callers add which URI and where.
#[derive(Debug)]
pub struct UriError(fluent_uri::error::ParseError);

impl fmt::Display for UriError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for UriError {}

/// Checks that `uri` is an absolute URI.
///
/// ```
/// use mcp_runtime_rules::uri::check_absolute;
///
/// assert!(check_absolute("docs://readme").is_ok());
/// assert!(check_absolute("urn:isbn:0451450523").is_ok());
/// let error = check_absolute("docs://read me").unwrap_err();
/// assert_eq!(error.to_string(), "unexpected character at index 11");
/// // A relative reference names no scheme.
/// assert!(check_absolute("notes/readme.md").is_err());
/// ```
pub fn check_absolute(uri: &str) -> Result<(), UriError> {
    match fluent_uri::Uri::parse(uri) {
        Ok(_) => Ok(()),
        Err(e) => Err(UriError(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::check_absolute;

    #[test]
    fn absolute_uris_pass() {
        for uri in ["file:///a/b.txt", "notes://1", "files://a/b%20/c", "urn:isbn:0451450523", "https://h/p?q#f"] {
            assert!(check_absolute(uri).is_ok(), "{uri}");
        }
    }

    #[test]
    fn anything_else_is_refused_with_where() {
        let reason = |uri: &str| check_absolute(uri).map_err(|e| e.to_string()).expect_err(uri);
        assert_eq!(reason("files://a/b%20/c.GG[[["), "unexpected character at index 19");
        assert_eq!(reason("files://a/%zz"), "invalid percent-encoded octet at index 10");
        assert_eq!(reason("x://a/\u{e9}"), "unexpected character at index 6");
        assert_eq!(reason("a b://c"), "unexpected character at index 1");
        for uri in ["relative/path", "", "/abs/path", "//host/p"] {
            assert!(check_absolute(uri).is_err(), "{uri}");
        }
    }
}
