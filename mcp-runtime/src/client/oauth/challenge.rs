//! What a `401` or `403` says in its `WWW-Authenticate` header: where the
//! server's metadata is, the scopes the request needs, and why it was
//! refused (RFC 6750 §3, RFC 9728 §5.1).

/// The parameters of a `Bearer` (or `DPoP`) challenge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Challenge {
    /// `resource_metadata`: the server's Protected Resource Metadata.
    pub(super) resource_metadata: Option<String>,
    /// `scope`: what the request needs, space-separated.
    pub(super) scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, ...
    pub(super) error: Option<String>,
}

impl Challenge {
    /// The challenge of a `Bearer` or `DPoP` scheme among `header`'s, if any.
    pub(super) fn read(header: &str) -> Challenge {
        let mut challenge = Challenge::default();
        let mut rest = header.trim();
        let mut ours = false;
        while !rest.is_empty() {
            // A scheme starts a challenge: a token not followed by `=`.
            let token_end = rest.find([' ', ',', '=']).unwrap_or(rest.len());
            let token = &rest[..token_end];
            let after = rest[token_end..].trim_start();
            if !token.is_empty() && !after.starts_with('=') {
                ours = token.eq_ignore_ascii_case("bearer") || token.eq_ignore_ascii_case("dpop");
                rest = after.trim_start_matches(',').trim_start();
                continue;
            }
            if token.is_empty() {
                // A separator (or a stray `=`) where a token should be.
                rest = rest[1..].trim_start();
                continue;
            }
            // A parameter: `name=value` or `name="quoted value"`.
            let after = after[1..].trim_start();
            let (value, remaining) = match after.strip_prefix('"') {
                Some(quoted) => unquote(quoted),
                None => {
                    let end = after.find(',').unwrap_or(after.len());
                    (after[..end].trim().to_owned(), &after[end..])
                }
            };
            if ours {
                match token.to_ascii_lowercase().as_str() {
                    "resource_metadata" => challenge.resource_metadata = Some(value),
                    "scope" => challenge.scope = Some(value),
                    "error" => challenge.error = Some(value),
                    _ => {}
                }
            }
            rest = remaining.trim_start().trim_start_matches(',').trim_start();
        }
        challenge
    }

    /// Whether the request needs more scopes than its token has.
    pub(super) fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// A quoted string's value (after its opening quote) and what follows it.
fn unquote(text: &str) -> (String, &str) {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '"' => return (value, &text[i + 1..]),
            c => value.push(c),
        }
    }
    (value, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameters_of_a_bearer_challenge_are_read() {
        let read = Challenge::read(
            r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(read.resource_metadata.as_deref(), Some("http://h/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(read.scope.as_deref(), Some("mcp:basic mcp:write"));
        assert!(read.insufficient_scope());
        let dpop = Challenge::read(r#"DPoP algs="ES256", resource_metadata="http://h/prm""#);
        assert_eq!(dpop.resource_metadata.as_deref(), Some("http://h/prm"));
        // Another scheme's parameters are not ours.
        let other = Challenge::read(r#"Basic realm="x", Bearer scope=a"#);
        assert_eq!((other.scope.as_deref(), other.resource_metadata), (Some("a"), None));
        let escaped = Challenge::read(r#"Bearer scope="a\"b""#);
        assert_eq!(escaped.scope.as_deref(), Some("a\"b"));
        assert_eq!(Challenge::read("Bearer"), Challenge::default());
        // Nothing a hostile server writes makes the reading loop forever.
        for odd in ["=", "Bearer =", "Bearer scope=\"", ",,=,", "Bearer scope", "Bearer a=b=c"] {
            let _ = Challenge::read(odd);
        }
    }
}
