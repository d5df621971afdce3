//! `WWW-Authenticate` challenges: `Bearer` (RFC 6750 §3, RFC 9728 §5.1)
//! and `DPoP` (RFC 9449 §7.1).

use http::HeaderValue;

/// The error code of a challenge, when the request carried something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChallengeError {
    /// A token was presented and is not good here (401).
    InvalidToken,
    /// The request itself is malformed: a token in the query string, or in
    /// two places (400).
    InvalidRequest,
    /// The DPoP proof is missing or not good (401).
    InvalidDpopProof,
    /// The DPoP proof lacks the server's current nonce (401, with the
    /// nonce in `DPoP-Nonce`).
    UseDpopNonce,
}

impl ChallengeError {
    fn code(self) -> &'static str {
        match self {
            ChallengeError::InvalidToken => "invalid_token",
            ChallengeError::InvalidRequest => "invalid_request",
            ChallengeError::InvalidDpopProof => "invalid_dpop_proof",
            ChallengeError::UseDpopNonce => "use_dpop_nonce",
        }
    }
}

/// A challenge's value: the error (with its description) when there is
/// one, the metadata document's URL, and the scopes worth asking for.
pub(crate) fn challenge(
    error: Option<(ChallengeError, &str)>,
    resource_metadata: &str,
    scope: Option<&str>,
) -> HeaderValue {
    scheme_challenge("Bearer", error, resource_metadata, scope, None)
}

/// A `DPoP` challenge: [`challenge`]'s parameters, and the algorithms
/// proofs may use (`algs`, space-separated).
pub(crate) fn dpop_challenge(
    error: Option<(ChallengeError, &str)>,
    resource_metadata: &str,
    scope: Option<&str>,
    algs: &str,
) -> HeaderValue {
    scheme_challenge("DPoP", error, resource_metadata, scope, Some(algs))
}

fn scheme_challenge(
    scheme: &str,
    error: Option<(ChallengeError, &str)>,
    resource_metadata: &str,
    scope: Option<&str>,
    algs: Option<&str>,
) -> HeaderValue {
    let mut value = format!("{scheme} ");
    if let Some((error, description)) = error {
        value.push_str(&format!("error=\"{}\", error_description=\"{}\", ", error.code(), quoted(description)));
    }
    value.push_str(&format!("resource_metadata=\"{}\"", quoted(resource_metadata)));
    if let Some(scope) = scope.filter(|s| !s.is_empty()) {
        value.push_str(&format!(", scope=\"{}\"", quoted(scope)));
    }
    if let Some(algs) = algs {
        value.push_str(&format!(", algs=\"{}\"", quoted(algs)));
    }
    // Only visible ASCII went in (see `quoted`), so this cannot fail.
    HeaderValue::try_from(value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

/// The content of a quoted-string: printable ASCII only, with `"` and `\`
/// escaped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => out.push('?'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_name_the_metadata_and_the_scopes() {
        let url = "https://mcp.example/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            challenge(None, url, Some("notes:read notes:write")),
            "Bearer resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\", \
             scope=\"notes:read notes:write\""
        );
        assert_eq!(
            challenge(Some((ChallengeError::InvalidToken, "the \"token\" has expired")), url, None),
            "Bearer error=\"invalid_token\", error_description=\"the \\\"token\\\" has expired\", \
             resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\""
        );
    }
}
