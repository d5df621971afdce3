//! The URIs a client names (`resources/read`, resource subscriptions),
//! checked before they are looked up or echoed.
//!
//! The schema declares each of them `format: uri`, an absolute URI of
//! RFC 3986, and so does every place the server repeats one (resource
//! contents, `notifications/resources/updated`): a string that is not a
//! URI, matched by a template such as `files://{+path}` and echoed by its
//! handler, would come back as a result no conforming client accepts.

use super::ErrorObject;

/// The error for a `member` that is not an absolute URI, if `uri` is not one.
///
/// The rule is `mcp_runtime_rules::uri`'s, the one a fixed resource's URI
/// meets at build time and in `#[resource("...")]`: syntax only; whether a
/// resource answers to the URI is the lookup's concern.
pub fn check(member: &str, uri: &str) -> Result<(), ErrorObject> {
    match mcp_runtime_rules::uri::check_absolute(uri) {
        Ok(()) => Ok(()),
        Err(e) => Err(ErrorObject::invalid_params(format!("`{member}` must be an absolute URI (RFC 3986): {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn absolute_uris_pass_and_anything_else_is_named() {
        for uri in ["file:///a/b.txt", "notes://1", "files://a/b%20/c", "urn:isbn:0451450523", "https://h/p?q#f"] {
            assert!(check("uri", uri).is_ok(), "{uri}");
        }
        for uri in ["files://a/b%20/c.GG[[[", "relative/path", "", "a b://c", "files://a/%zz", "x://a/\u{e9}"] {
            let error = check("uri", uri).expect_err(uri);
            assert_eq!(error.code, -32602);
            assert!(error.message.starts_with("`uri` must be an absolute URI (RFC 3986)"), "{}", error.message);
        }
    }
}
