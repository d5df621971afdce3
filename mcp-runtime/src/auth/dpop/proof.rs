//! One DPoP proof checked against the request it came with (RFC 9449
//! §4.3): its form and signature, then what it says of the request.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The signature algorithms a proof may use: asymmetric ones only, never
/// `none` nor an HMAC (whose "key" would be in the proof itself).
pub(crate) const ALGORITHMS: [(Algorithm, &str); 9] = [
    (Algorithm::ES256, "ES256"),
    (Algorithm::ES384, "ES384"),
    (Algorithm::EdDSA, "EdDSA"),
    (Algorithm::RS256, "RS256"),
    (Algorithm::RS384, "RS384"),
    (Algorithm::RS512, "RS512"),
    (Algorithm::PS256, "PS256"),
    (Algorithm::PS384, "PS384"),
    (Algorithm::PS512, "PS512"),
];

/// The longest proof read (an RSA-4096 key and its signature fit well).
pub(crate) const MAX_PROOF: usize = 8 * 1024;

/// The longest `jti` kept: an id, not a payload.
const MAX_JTI: usize = 256;

/// What the proof must match: the request, and the token it goes with.
pub(crate) struct Expected<'a> {
    /// The request's method.
    pub(crate) method: &'a str,
    /// The request's URL as the client addressed it, normalized ([`normalize`]).
    pub(crate) url: &'a str,
    /// The access token of the `Authorization` header.
    pub(crate) token: &'a str,
    /// The thumbprint the token is bound to (its `cnf.jkt`).
    pub(crate) jkt: &'a str,
    /// Now, in Unix seconds.
    pub(crate) now: u64,
    /// How far `iat` may be from now, either way, in seconds.
    pub(crate) max_age: u64,
}

/// A proof that checks out: its id (to refuse its replay) and nonce.
#[derive(Debug)]
pub(crate) struct Proven {
    pub(crate) jti: String,
    pub(crate) nonce: Option<String>,
}

/// Why a proof is refused: the description of an `invalid_dpop_proof`.
pub(crate) type ProofError = &'static str;

#[derive(Deserialize)]
struct Claims {
    jti: Option<String>,
    htm: Option<String>,
    htu: Option<String>,
    iat: Option<Value>,
    ath: Option<String>,
    nonce: Option<String>,
}

/// Checks `proof` against `expected`: every rule of RFC 9449 §4.3 but the
/// nonce's and the replay's, which need state and come after.
pub(crate) fn check(proof: &str, expected: &Expected<'_>) -> Result<Proven, ProofError> {
    if proof.len() > MAX_PROOF {
        return Err("the DPoP proof is too large");
    }
    let mut parts = proof.split('.');
    let (Some(header), Some(_), Some(_), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err("the DPoP proof is not a JWS in compact form");
    };
    let header: Value = URL_SAFE_NO_PAD
        .decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or("the DPoP proof's header cannot be read")?;
    if header.get("typ").and_then(Value::as_str) != Some("dpop+jwt") {
        return Err("the DPoP proof's typ is not dpop+jwt");
    }
    let named = header.get("alg").and_then(Value::as_str).unwrap_or_default();
    let Some(&(alg, _)) = ALGORITHMS.iter().find(|(_, name)| *name == named) else {
        return Err("the DPoP proof's algorithm is not accepted");
    };
    let jwk = header.get("jwk").ok_or("the DPoP proof's header carries no jwk")?;
    let key = public_key(jwk)?;
    let thumbprint = thumbprint(jwk).ok_or("the DPoP proof's jwk is not a usable public key")?;
    let mut validation = Validation::new(alg);
    validation.algorithms = vec![alg];
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Claims>(proof, &key, &validation)
        .map_err(|_| "the DPoP proof's signature does not verify")?
        .claims;
    let jti = claims.jti.filter(|jti| !jti.is_empty()).ok_or("the DPoP proof has no jti")?;
    if jti.len() > MAX_JTI {
        return Err("the DPoP proof's jti is too long");
    }
    if claims.htm.as_deref() != Some(expected.method) {
        return Err("the DPoP proof's htm is not the request's method");
    }
    if claims.htu.as_deref().and_then(normalize).as_deref() != Some(expected.url) {
        return Err("the DPoP proof's htu is not the request's URL");
    }
    let iat = claims.iat.as_ref().and_then(Value::as_f64).ok_or("the DPoP proof has no numeric iat")?;
    // In whole seconds: a fraction neither widens nor narrows the window.
    let iat = iat.floor().clamp(0.0, u64::MAX as f64) as u64;
    if iat.abs_diff(expected.now) > expected.max_age {
        return Err("the DPoP proof's iat is outside the accepted window");
    }
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(expected.token.as_bytes()));
    if claims.ath.as_deref() != Some(ath.as_str()) {
        return Err("the DPoP proof's ath is not the hash of the access token");
    }
    if thumbprint != expected.jkt {
        return Err("the DPoP proof's key is not the one the access token is bound to");
    }
    Ok(Proven { jti, nonce: claims.nonce })
}

/// The verifying key of a public `jwk`; a private one (any private member
/// present) is refused: a client that sends its private key has none.
fn public_key(jwk: &Value) -> Result<DecodingKey, ProofError> {
    const PRIVATE: [&str; 6] = ["d", "p", "q", "dp", "dq", "qi"];
    let Some(members) = jwk.as_object() else { return Err("the DPoP proof's jwk is not an object") };
    if PRIVATE.iter().any(|name| members.contains_key(*name)) {
        return Err("the DPoP proof's jwk holds a private key");
    }
    let parsed: Jwk = serde_json::from_value(jwk.clone()).map_err(|_| "the DPoP proof's jwk cannot be read")?;
    DecodingKey::from_jwk(&parsed).map_err(|_| "the DPoP proof's jwk is not a usable public key")
}

/// The JWK SHA-256 thumbprint (RFC 7638) of a public key: its required
/// members, in lexicographic order, without spaces.
pub(crate) fn thumbprint(jwk: &Value) -> Option<String> {
    let member = |name: &str| jwk.get(name).and_then(Value::as_str).map(|text| Value::from(text).to_string());
    let canonical = match jwk.get("kty")?.as_str()? {
        "EC" => format!(r#"{{"crv":{},"kty":"EC","x":{},"y":{}}}"#, member("crv")?, member("x")?, member("y")?),
        "RSA" => format!(r#"{{"e":{},"kty":"RSA","n":{}}}"#, member("e")?, member("n")?),
        "OKP" => format!(r#"{{"crv":{},"kty":"OKP","x":{}}}"#, member("crv")?, member("x")?),
        _ => return None,
    };
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())))
}

/// A URL as `htu` compares it (RFC 9449 §4.3, RFC 3986 §6.2.3): scheme
/// and host lower-cased, a default port dropped, the query and fragment
/// left out, an empty path read as `/` and a trailing `/` ignored. `None`
/// for what is not an absolute `http(s)` URL.
pub(crate) fn normalize(url: &str) -> Option<String> {
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let uri: http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = uri.authority()?;
    if authority.as_str().contains('@') {
        return None;
    }
    let host = authority.host().to_ascii_lowercase();
    let port = authority.port_u16().filter(|&port| port != default_port).map(|port| format!(":{port}"));
    let path = uri.path().trim_end_matches('/');
    Some(format!("{scheme}://{host}{}{path}", port.unwrap_or_default()))
}

#[cfg(all(test, feature = "client-auth"))]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::dpop::DpopKey;

    const URL: &str = "https://mcp.example.com/mcp";

    fn expected<'a>(token: &'a str, jkt: &'a str, now: u64) -> Expected<'a> {
        Expected { method: "POST", url: URL, token, jkt, now, max_age: 300 }
    }

    fn now() -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
    }

    #[test]
    fn a_proof_of_the_request_by_the_bound_key_checks_out() {
        let key = DpopKey::generate().expect("a key");
        let jkt = thumbprint(&key.public_jwk()).expect("a thumbprint");
        let proof = key.proof("POST", "https://MCP.example.com:443/mcp/?q=1", Some("t-1"), Some("n")).expect("a proof");
        let proven = check(&proof, &expected("t-1", &jkt, now())).expect("accepted");
        assert_eq!(proven.nonce.as_deref(), Some("n"));
        assert!(!proven.jti.is_empty());
    }

    #[test]
    fn each_rule_refuses_what_breaks_it() {
        let key = DpopKey::generate().expect("a key");
        let jkt = thumbprint(&key.public_jwk()).expect("a thumbprint");
        let t = now();
        let refused = |proof: &str, why: &str| {
            let error = check(proof, &expected("t-1", &jkt, t)).expect_err(why);
            assert!(error.contains(why), "{why}: {error}");
        };
        let claims = |change: &dyn Fn(&mut Value)| {
            let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(b"t-1"));
            let mut claims = json!({"jti": "j-1", "htm": "POST", "htu": URL, "iat": t, "ath": ath});
            change(&mut claims);
            claims
        };
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": key.public_jwk()});
        assert!(check(&key.sign(&header, &claims(&|_| {})), &expected("t-1", &jkt, t)).is_ok());
        refused(&key.sign(&header, &claims(&|c| c["htu"] = "https://other.example.com/mcp".into())), "htu");
        refused(&key.sign(&header, &claims(&|c| c["htm"] = "GET".into())), "htm");
        refused(&key.sign(&header, &claims(&|c| c["iat"] = (t - 301).into())), "iat");
        refused(&key.sign(&header, &claims(&|c| c["iat"] = (t + 301).into())), "iat");
        refused(&key.sign(&header, &claims(&|c| c["ath"] = "x".into())), "ath");
        refused(&key.sign(&header, &claims(&|c| c["jti"] = "".into())), "jti");
        let mut typed = header.clone();
        typed["typ"] = "JWT".into();
        refused(&key.sign(&typed, &claims(&|_| {})), "typ");
        let mut private = header.clone();
        private["jwk"]["d"] = "secret".into();
        refused(&key.sign(&private, &claims(&|_| {})), "private");
        let mut hmac = header.clone();
        hmac["alg"] = "HS256".into();
        refused(&key.sign(&hmac, &claims(&|_| {})), "algorithm");
        // Another key's proof: the signature is good, the binding is not.
        let other = DpopKey::generate().expect("a key");
        let theirs = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": other.public_jwk()});
        refused(&other.sign(&theirs, &claims(&|_| {})), "bound");
        // A header naming one key, signed by another.
        refused(&other.sign(&header, &claims(&|_| {})), "signature");
    }

    #[test]
    fn thumbprints_follow_rfc_7638() {
        // RFC 7638 §3.1's example key and thumbprint.
        let jwk = json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        assert_eq!(thumbprint(&jwk).as_deref(), Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"));
        assert_eq!(thumbprint(&json!({"kty": "oct", "k": "x"})), None);
    }

    #[test]
    fn urls_compare_as_rfc_3986_normalizes_them() {
        assert_eq!(normalize("HTTPS://MCP.Example.com:443/mcp/?a#b").as_deref(), Some("https://mcp.example.com/mcp"));
        assert_eq!(normalize("http://127.0.0.1:8080/mcp").as_deref(), Some("http://127.0.0.1:8080/mcp"));
        assert_eq!(normalize("http://a.test").as_deref(), Some("http://a.test"));
        assert_eq!(normalize("http://a.test/").as_deref(), Some("http://a.test"));
        assert_eq!(normalize("ftp://a.test/x"), None);
        assert_eq!(normalize("/mcp"), None);
        assert_eq!(normalize("http://user@a.test/mcp"), None);
    }
}
