//! The token gate of a protected server ([`Authorization`]): the
//! Protected Resource Metadata document, open to all, and the check of
//! every other request to the endpoint (a bearer token, or a DPoP-bound
//! token and its proof: [`dpop`]), which puts the caller's [`Principal`]
//! into the request's extensions.
//!
//! [`Authorization`]: crate::auth::Authorization
//! [`Principal`]: crate::handler::principal::Principal

mod dpop;

use http::header::{AUTHORIZATION, CACHE_CONTROL, RETRY_AFTER, WWW_AUTHENTICATE};
use http::request::Parts;
use http::{HeaderValue, Method, StatusCode};

use crate::auth::dpop::bound_key;
use crate::auth::{ChallengeError, Rejection, Verifier, challenge, dpop_challenge};
use crate::handler::principal::Principal;
use crate::transport::http::HttpConfig;
use crate::transport::http::body::McpBody;
use crate::transport::http::responses::{not_allowed, transport_error, with_body};

/// The metadata document, when `parts` asks for it.
pub(super) fn metadata(verifier: &Verifier, parts: &Parts) -> Option<http::Response<McpBody>> {
    if !verifier.metadata.serves(parts.uri.path()) {
        return None;
    }
    if parts.method != Method::GET && parts.method != Method::HEAD {
        let mut response = not_allowed(&parts.method);
        response.headers_mut().insert(http::header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(response);
    }
    let body =
        if parts.method == Method::HEAD { McpBody::empty() } else { McpBody::full(verifier.metadata.json.clone()) };
    let mut response = with_body(StatusCode::OK, "application/json", body);
    response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
    Some(response)
}

/// Lets the request through with its [`Principal`] in its extensions, or
/// answers it: 400, 401 or 503. `config` tells the URL a DPoP proof must
/// name.
pub(super) async fn authenticate(
    verifier: &Verifier,
    config: &HttpConfig,
    parts: &mut Parts,
) -> Result<(), http::Response<McpBody>> {
    if known_caller(verifier, parts) {
        return Ok(());
    }
    let dpop = verifier.dpop.as_ref();
    let (scheme, token) = credentials(parts, dpop.is_some()).map_err(|refusal| refuse(verifier, refusal))?;
    if scheme == Scheme::Bearer && dpop.is_some_and(|gate| gate.required) {
        let reason = "only DPoP-bound tokens are accepted: send Authorization: DPoP with a DPoP proof";
        return Err(refuse(verifier, Refusal::Invalid(ChallengeError::InvalidToken, reason)));
    }
    // A token verified before skips its signature, never its proof.
    let principal = match verifier.seen_before(token.as_bytes()) {
        Some(principal) => principal,
        None => verifier.verify(token).await.map_err(|rejection| rejected(verifier, scheme, rejection))?,
    };
    match (scheme, bound_key(&principal)) {
        (Scheme::Bearer, None) => {}
        (Scheme::Bearer, Some(_)) => {
            // RFC 9449 §7.2: the key is the point; without its proof the
            // token is worth nothing, whether DPoP is accepted here or not.
            let reason = "the token is bound to a key (DPoP): send it with Authorization: DPoP and a DPoP proof";
            return Err(refuse(verifier, Refusal::Invalid(ChallengeError::InvalidToken, reason)));
        }
        (Scheme::Dpop, None) => {
            let reason = "the token is not bound to a key: send it with Authorization: Bearer";
            return Err(refuse(verifier, Refusal::Dpop(ChallengeError::InvalidToken, reason)));
        }
        (Scheme::Dpop, Some(jkt)) => {
            let gate = dpop.unwrap_or_else(|| unreachable!("the DPoP scheme is read only where it is accepted"));
            dpop::check(gate, config, parts, (token, jkt), &principal).await.map_err(|refusal| match refusal {
                dpop::Refused::Proof(reason) => {
                    refuse(verifier, Refusal::Dpop(ChallengeError::InvalidDpopProof, reason))
                }
                dpop::Refused::Nonce(nonce) => {
                    let reason = "the DPoP proof must carry the nonce of the DPoP-Nonce header";
                    with_nonce(refuse(verifier, Refusal::Dpop(ChallengeError::UseDpopNonce, reason)), &nonce)
                }
                dpop::Refused::Unavailable(reason) => unavailable(&reason, "the DPoP replay store is out of reach"),
            })?;
        }
    }
    let kept = verifier.keeps_caller_tokens.then(|| token.to_owned());
    if scheme == Scheme::Dpop {
        parts.extensions.insert(crate::auth::dpop::ProvenPossession);
    }
    if let Some(token) = kept {
        keep_token(parts, token);
    }
    parts.extensions.insert(principal);
    Ok(())
}

/// Keeps the caller's verified `token` in its request, for a mounted
/// remote that acts for it (and nothing else: a handler cannot name the
/// type it is kept as).
#[cfg(feature = "client")]
fn keep_token(parts: &mut Parts, token: String) {
    parts.extensions.insert(crate::client::delegation::CallerToken(token.into()));
}

/// Without the client, no mount acts for its callers.
#[cfg(not(feature = "client"))]
fn keep_token(_parts: &mut Parts, _token: String) {}

/// The answer to a token the verifier refused, in the scheme it came with.
fn rejected(verifier: &Verifier, scheme: Scheme, rejection: Rejection) -> http::Response<McpBody> {
    match rejection {
        Rejection::InvalidToken(reason) => {
            tracing::debug!(reason, "access token refused");
            match scheme {
                Scheme::Bearer => refuse(verifier, Refusal::Invalid(ChallengeError::InvalidToken, reason)),
                Scheme::Dpop => refuse(verifier, Refusal::Dpop(ChallengeError::InvalidToken, reason)),
            }
        }
        Rejection::Unavailable(reason) => {
            unavailable(&reason, "no token could be verified: the authorization server is out of reach")
        }
    }
}

/// 503 with `Retry-After`: what the check needs cannot be reached now.
fn unavailable(reason: &str, logged: &'static str) -> http::Response<McpBody> {
    tracing::warn!(%reason, "{logged}");
    let mut response = transport_error(
        StatusCode::SERVICE_UNAVAILABLE,
        "The token cannot be verified now (the authorization server or the proof store is out of reach, or this \
         caller sent more DPoP proofs lately than it may); try again later",
    );
    let seconds = crate::auth::RETRY_AFTER.as_secs().to_string();
    response.headers_mut().insert(RETRY_AFTER, HeaderValue::try_from(seconds).expect("digits"));
    response
}

/// `response` with the nonce a DPoP client must use (RFC 9449 §9).
fn with_nonce(mut response: http::Response<McpBody>, nonce: &str) -> http::Response<McpBody> {
    // Base64url only: always a valid header value.
    if let Ok(value) = HeaderValue::from_str(nonce) {
        response.headers_mut().insert(dpop::DPOP_NONCE, value);
    }
    response
}

/// Whether the request may go on without the full check: a preflight, which
/// carries no credentials (CORS answers it or it gets 405), or a request
/// whose token was verified before, its caller now in the extensions.
///
/// The token a client sends on every request was checked, byte by byte,
/// when it was first verified: the same bytes are found again by one pass,
/// their hash, rather than read twice more.
pub(super) fn known_caller(verifier: &Verifier, parts: &mut Parts) -> bool {
    if parts.method == Method::OPTIONS {
        return true;
    }
    match seen_before(verifier, parts) {
        Some((caller, token)) => {
            if let Some(token) = token {
                keep_token(parts, token);
            }
            parts.extensions.insert(caller);
            true
        }
        None => false,
    }
}

/// The scheme of the `Authorization` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Bearer,
    /// `DPoP`, read only where DPoP-bound tokens are accepted.
    Dpop,
}

/// Why a request has no token to verify, or a token that is not one.
#[derive(Debug)]
enum Refusal {
    /// No `Authorization: Bearer` at all (another scheme counts as none,
    /// RFC 6750 §3.1): a challenge without an error.
    Missing,
    /// An error code for the `Bearer` challenge, and its description.
    Invalid(ChallengeError, &'static str),
    /// An error code for the `DPoP` challenge of a DPoP request.
    Dpop(ChallengeError, &'static str),
}

/// The refusal, with its challenges: `Bearer` (unless DPoP alone is
/// accepted) and `DPoP` (where it is accepted); a DPoP request's error is
/// told in the `DPoP` challenge alone (RFC 9449 §7.1).
fn refuse(verifier: &Verifier, refusal: Refusal) -> http::Response<McpBody> {
    let (status, error, dpop_error, message) = match refusal {
        Refusal::Missing => {
            let message = match &verifier.dpop {
                Some(gate) if gate.required => "Authorization: DPoP <token> and a DPoP proof are required",
                _ => "Authorization: Bearer <token> is required",
            };
            (StatusCode::UNAUTHORIZED, None, None, message)
        }
        Refusal::Invalid(ChallengeError::InvalidRequest, reason) => {
            (StatusCode::BAD_REQUEST, Some((ChallengeError::InvalidRequest, reason)), None, reason)
        }
        Refusal::Invalid(error, reason) => (StatusCode::UNAUTHORIZED, Some((error, reason)), None, reason),
        Refusal::Dpop(error, reason) => (StatusCode::UNAUTHORIZED, None, Some((error, reason)), reason),
    };
    let mut response = transport_error(status, message);
    let (url, scope) = (&verifier.metadata.url, verifier.scope_hint.as_deref());
    let headers = response.headers_mut();
    if dpop_error.is_none() && !verifier.dpop.as_ref().is_some_and(|gate| gate.required) {
        headers.append(WWW_AUTHENTICATE, challenge(error, url, scope));
    }
    if let Some(gate) = &verifier.dpop {
        let error = dpop_error.or(error.filter(|_| gate.required));
        headers.append(WWW_AUTHENTICATE, dpop_challenge(error, url, scope, &gate.algs));
    }
    response
}

/// The caller of the request's bearer token, if that very token was
/// verified before and is still good. It reads the header as
/// [`bearer_token`] does (which the tests compare), so that a token it does
/// not find here is one that no verified token matches: anything else (a
/// token in the query, two headers, another scheme) is left to
/// `bearer_token`, which refuses it.
///
/// A token bound to a key is never found here: it goes the long way, where
/// the `Bearer` scheme refuses it and the `DPoP` one checks its proof.
///
/// With it, the token itself when the verifier keeps callers' tokens.
fn seen_before(verifier: &Verifier, parts: &Parts) -> Option<(Principal, Option<String>)> {
    if token_in_query(parts) {
        return None;
    }
    let mut headers = parts.headers.get_all(AUTHORIZATION).iter();
    let (Some(value), None) = (headers.next(), headers.next()) else { return None };
    let (scheme, token) = value.as_bytes().split_at_checked(BEARER.len())?;
    if !scheme.eq_ignore_ascii_case(BEARER) {
        return None;
    }
    // Spaces only, as `bearer_token` trims: a tab makes a malformed token.
    let start = token.iter().position(|&b| b != b' ').unwrap_or(token.len());
    let token = &token[start..];
    let caller = verifier.seen_before(token).filter(|caller| bound_key(caller).is_none())?;
    // A verified token is b64token bytes: ASCII.
    let kept = verifier.keeps_caller_tokens.then(|| String::from_utf8_lossy(token).into_owned());
    Some((caller, kept))
}

/// Whether the query string carries an `access_token` (RFC 6750 §2.3).
fn token_in_query(parts: &Parts) -> bool {
    parts.uri.query().is_some_and(|query| query.split('&').any(|pair| pair.starts_with("access_token=")))
}

/// The scheme and the space after it, as [`bearer_token`] reads them.
const BEARER: &[u8] = b"bearer ";

/// The scheme and the token of the request's one `Authorization` header:
/// `Bearer`, or `DPoP` where `dpop` says it is accepted (elsewhere it counts
/// as no token, as any other scheme).
///
/// A token in the query string (`access_token=`, RFC 6750 §2.3) is refused
/// with 400 `invalid_request` and never looked at: MCP forbids the method,
/// RFC 6750 §3.1 makes an unsupported method (or a second one) that error
/// code and status, and a token that travelled in a URL is in logs and
/// histories already, so it must not work.
fn credentials(parts: &Parts, dpop: bool) -> Result<(Scheme, &str), Refusal> {
    if token_in_query(parts) {
        return Err(Refusal::Invalid(
            ChallengeError::InvalidRequest,
            "access tokens are not accepted in the query string; send Authorization: Bearer",
        ));
    }
    let mut headers = parts.headers.get_all(AUTHORIZATION).iter();
    let (Some(value), None) = (headers.next(), headers.next()) else {
        return match parts.headers.contains_key(AUTHORIZATION) {
            true => Err(Refusal::Invalid(ChallengeError::InvalidRequest, "more than one Authorization header")),
            false => Err(Refusal::Missing),
        };
    };
    let value = value.to_str().map_err(|_| Refusal::Invalid(ChallengeError::InvalidToken, "malformed token"))?;
    let Some((scheme, token)) = value.split_once(' ') else {
        return Err(Refusal::Missing);
    };
    let scheme = match scheme {
        _ if scheme.eq_ignore_ascii_case("bearer") => Scheme::Bearer,
        _ if dpop && scheme.eq_ignore_ascii_case("dpop") => Scheme::Dpop,
        _ => return Err(Refusal::Missing),
    };
    let token = token.trim_start_matches(' ');
    // RFC 6750 §2.1: b64token.
    let body = token.trim_end_matches('=');
    let well_formed = !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/'));
    if !well_formed {
        return Err(match scheme {
            Scheme::Bearer => Refusal::Invalid(ChallengeError::InvalidToken, "malformed token"),
            Scheme::Dpop => Refusal::Dpop(ChallengeError::InvalidToken, "malformed token"),
        });
    }
    Ok((scheme, token))
}

/// The one bearer token of the request, as [`credentials`] reads it where
/// DPoP is not accepted.
#[cfg(test)]
fn bearer_token(parts: &Parts) -> Result<&str, Refusal> {
    credentials(parts, false).map(|(_, token)| token)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(uri: &str, authorization: &[&str]) -> Parts {
        let mut request = http::Request::post(uri);
        for value in authorization {
            request = request.header(AUTHORIZATION, *value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn the_token_comes_from_one_bearer_header_only() {
        assert_eq!(bearer_token(&parts("/mcp", &["Bearer abc.def-_~+/=="])).ok(), Some("abc.def-_~+/=="));
        assert_eq!(bearer_token(&parts("/mcp", &["bearer  abc"])).ok(), Some("abc"));
        assert!(matches!(bearer_token(&parts("/mcp", &[])), Err(Refusal::Missing)));
        assert!(matches!(bearer_token(&parts("/mcp", &["Basic YTpi"])), Err(Refusal::Missing)));
        assert!(matches!(
            bearer_token(&parts("/mcp", &["Bearer a b"])),
            Err(Refusal::Invalid(ChallengeError::InvalidToken, _))
        ));
        assert!(matches!(
            bearer_token(&parts("/mcp", &["Bearer a", "Bearer b"])),
            Err(Refusal::Invalid(ChallengeError::InvalidRequest, _))
        ));
        assert!(matches!(
            bearer_token(&parts("/mcp?x=1&access_token=abc", &["Bearer abc"])),
            Err(Refusal::Invalid(ChallengeError::InvalidRequest, _))
        ));
    }

    /// A token verified before is found again only where `bearer_token`
    /// would have read that very token: every other header goes the long way.
    #[tokio::test]
    async fn a_token_seen_before_is_found_only_where_it_would_be_read() {
        use crate::auth::Authorization;
        use crate::handler::principal::Principal;

        let verifier = Verifier::new(
            Authorization::new("http://127.0.0.1:9/", "http://127.0.0.1:8/mcp"),
            &std::collections::BTreeSet::new(),
        );
        let alice = Principal::new("alice");
        verifier.remember("abc.def", &alice);
        let seen = |uri: &str, authorization: &[&str]| {
            seen_before(&verifier, &parts(uri, authorization)).map(|(caller, _)| caller)
        };
        for read in [&["Bearer abc.def"][..], &["bearer  abc.def"], &["BEARER abc.def"]] {
            assert_eq!(seen("/mcp", read), Some(alice.clone()), "{read:?}");
            assert_eq!(bearer_token(&parts("/mcp", read)).ok(), Some("abc.def"), "{read:?}");
        }
        let long_way: [(&str, &[&str]); 7] = [
            ("/mcp?access_token=abc.def", &["Bearer abc.def"]),
            ("/mcp", &["Bearer abc.def", "Bearer abc.def"]),
            ("/mcp", &["Bearer\tabc.def"]),
            ("/mcp", &["Bearer \tabc.def"]),
            ("/mcp", &["Bearer abc.def "]),
            ("/mcp", &["Basic abc.def"]),
            ("/mcp", &["Bearer abc.de"]),
        ];
        for (uri, authorization) in long_way {
            assert_eq!(seen(uri, authorization), None, "{uri} {authorization:?}");
        }
    }
}
