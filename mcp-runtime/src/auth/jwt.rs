//! JWT access tokens (RFC 9068): the header's algorithm and type, the
//! signature against the issuer's keys, then `iss`, `aud`, `exp`, `nbf`.

use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::rejection::Rejection;

/// The only signature algorithms accepted: never `none`, never a shared
/// secret (HMAC), whose "key" would be public in the JWKS.
pub(crate) const ALLOWED: [Algorithm; 3] = [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA];

/// The parts of a token's header the key lookup needs, once the header
/// was found acceptable.
#[derive(Debug)]
pub(crate) struct Header {
    pub(crate) alg: Algorithm,
    pub(crate) kid: Option<String>,
}

/// Whether `token` has the shape of a JWS (three base64url parts): other
/// tokens go to introspection.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    let mut parts = token.split('.');
    let shaped = |part: Option<&str>, may_be_empty: bool| {
        part.is_some_and(|p| {
            (may_be_empty || !p.is_empty()) && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
    };
    // An unsigned token (`alg: none`) has an empty third part: still a JWT,
    // refused as one rather than sent to introspection.
    shaped(parts.next(), false) && shaped(parts.next(), false) && shaped(parts.next(), true) && parts.next().is_none()
}

/// Reads and checks the header: an allowed algorithm and, as RFC 9068
/// requires, `typ: at+jwt` (which an ID token does not have).
pub(crate) fn header(token: &str) -> Result<Header, Rejection> {
    let header = jsonwebtoken::decode_header(token).map_err(|e| match e.kind() {
        // `none` and unknown names fail to parse as an algorithm.
        ErrorKind::Json(_) | ErrorKind::InvalidAlgorithmName => invalid("the token's algorithm is not accepted"),
        _ => invalid("the token's header cannot be read"),
    })?;
    if !ALLOWED.contains(&header.alg) {
        return Err(invalid("the token's algorithm is not accepted"));
    }
    let typ = header.typ.as_deref().unwrap_or_default().to_ascii_lowercase();
    if typ != "at+jwt" && typ != "application/at+jwt" {
        return Err(invalid("the token is not a JWT access token (typ at+jwt)"));
    }
    Ok(Header { alg: header.alg, kid: header.kid })
}

/// The validation of a token signed with `alg`, for `issuer` and `resource`.
pub(crate) fn validation(alg: Algorithm, issuer: &str, resource: &str, leeway: Duration) -> Validation {
    let mut validation = Validation::new(alg);
    validation.algorithms = vec![alg];
    validation.leeway = leeway.as_secs();
    validation.validate_exp = true;
    validation.validate_nbf = true;
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[resource]);
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation
}

/// The token's claims, once its signature (by `key`) and claims check out.
pub(crate) fn decode(
    token: &str,
    key: &jsonwebtoken::DecodingKey,
    validation: &Validation,
) -> Result<Map<String, Value>, Rejection> {
    match jsonwebtoken::decode::<Map<String, Value>>(token, key, validation) {
        Ok(data) => Ok(data.claims),
        Err(e) => Err(invalid(match e.kind() {
            ErrorKind::InvalidSignature => "the token's signature does not verify",
            ErrorKind::ExpiredSignature => "the token has expired",
            ErrorKind::ImmatureSignature => "the token is not valid yet",
            ErrorKind::InvalidIssuer => "the token was issued by another issuer",
            ErrorKind::InvalidAudience => "the token is not for this resource",
            ErrorKind::MissingRequiredClaim(_) => "the token lacks a required claim (exp, iss, aud)",
            _ => "the token is malformed",
        })),
    }
}

fn invalid(reason: &'static str) -> Rejection {
    Rejection::InvalidToken(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_told_apart_by_shape() {
        assert!(looks_like_jwt("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"));
        assert!(looks_like_jwt("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0."));
        assert!(!looks_like_jwt("XWxBc_1p5JV5kui6QmSQKGTZfoAGJINB764mObp11EE"));
        assert!(!looks_like_jwt("a.b.c.d"));
        assert!(!looks_like_jwt("a..c"));
    }

    #[test]
    fn none_and_hmac_are_refused_before_any_key_is_looked_up() {
        use base64::Engine as _;
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        let claims = b64(r#"{"sub":"a"}"#);
        for alg in ["none", "HS256", "RS512"] {
            let token = format!("{}.{claims}.", b64(&format!(r#"{{"alg":"{alg}","typ":"at+jwt"}}"#)));
            assert!(matches!(header(&token), Err(Rejection::InvalidToken(_))), "{alg}");
        }
        let token = format!("{}.{claims}.c2ln", b64(r#"{"alg":"ES256","typ":"JWT"}"#));
        assert!(header(&token).is_err(), "an ID token's typ");
        let token = format!("{}.{claims}.c2ln", b64(r#"{"alg":"ES256","typ":"at+jwt","kid":"k"}"#));
        assert_eq!(header(&token).unwrap().kid.as_deref(), Some("k"));
    }
}
