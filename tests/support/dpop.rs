//! DPoP proofs (RFC 9449) as a client makes them: a P-256 key of the
//! test's own, its RFC 7638 thumbprint (what a bound token's `cnf.jkt`
//! names), and proof JWTs signed with it, well-formed ([`ProofKey::proof`])
//! or altered the way a test needs ([`ProofKey::sign`] of a
//! [`ProofKey::header`] and [`claims`] changed first).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

/// A P-256 key pair proofs are signed with (ES256).
pub struct ProofKey {
    pair: EcdsaKeyPair,
    rng: SystemRandom,
}

impl Default for ProofKey {
    fn default() -> Self {
        Self::generate()
    }
}

impl ProofKey {
    /// A new key, never used before.
    pub fn generate() -> ProofKey {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("a P-256 key");
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).expect("its own PKCS#8");
        ProofKey { pair, rng }
    }

    /// The public key as a JWK: `{"kty":"EC","crv":"P-256","x":…,"y":…}`.
    pub fn jwk(&self) -> Value {
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = self.pair.public_key().as_ref();
        assert_eq!((point.len(), point[0]), (65, 4), "an uncompressed P-256 point");
        json!({"kty": "EC", "crv": "P-256", "x": b64(&point[1..33]), "y": b64(&point[33..])})
    }

    /// The RFC 7638 thumbprint of [`jwk`](Self::jwk): base64url of the
    /// SHA-256 of its required members, in lexicographic order, without
    /// whitespace. What a token bound to this key names in `cnf.jkt`.
    pub fn thumbprint(&self) -> String {
        let jwk = self.jwk();
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().expect("x"),
            jwk["y"].as_str().expect("y")
        );
        b64(ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes()).as_ref())
    }

    /// The header of a proof: `{"typ":"dpop+jwt","alg":"ES256","jwk":…}`.
    pub fn header(&self) -> Value {
        json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk()})
    }

    /// A proof for a `htm` request to `htu` (no query, no fragment), made
    /// now with a fresh `jti`, with the `ath` of `token` when the request
    /// carries an access token and the server's `nonce` when it gave one.
    pub fn proof(&self, htm: &str, htu: &str, token: Option<&str>, nonce: Option<&str>) -> String {
        self.sign(&self.header(), &claims(htm, htu, token, nonce))
    }

    /// `header` and `claims`, as they are, signed with this key (ES256):
    /// a compact JWS. For proofs a server must refuse: a stale `iat`,
    /// another `typ`, a `jti` used before, a wrong `ath`, another key's
    /// `jwk`.
    pub fn sign(&self, header: &Value, claims: &Value) -> String {
        let input = format!("{}.{}", b64(header.to_string().as_bytes()), b64(claims.to_string().as_bytes()));
        let signature = self.pair.sign(&self.rng, input.as_bytes()).expect("signed");
        format!("{input}.{}", b64(signature.as_ref()))
    }
}

/// The claims of a proof made now: a fresh `jti`, `htm`, `htu` and `iat`,
/// then `ath` (of `token`) and `nonce` when given.
pub fn claims(htm: &str, htu: &str, token: Option<&str>, nonce: Option<&str>) -> Value {
    let mut claims = json!({"jti": jti(), "htm": htm, "htu": htu, "iat": now()});
    if let Some(token) = token {
        claims["ath"] = json!(ath(token));
    }
    if let Some(nonce) = nonce {
        claims["nonce"] = json!(nonce);
    }
    claims
}

/// The `ath` of `token`: base64url of its SHA-256.
pub fn ath(token: &str) -> String {
    b64(ring::digest::digest(&ring::digest::SHA256, token.as_bytes()).as_ref())
}

/// A proof id never used before: 128 random bits, base64url.
pub fn jti() -> String {
    let mut bytes = [0u8; 16];
    SystemRandom::new().fill(&mut bytes).expect("random bytes");
    b64(&bytes)
}

/// The time now, in seconds since the epoch (what `iat` holds).
pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("after the epoch").as_secs()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The claims of a JWT (an access token, a proof), decoded, unverified.
pub fn claims_of(jwt: &str) -> Value {
    let part = jwt.split('.').nth(1).unwrap_or_else(|| panic!("not a JWT: {jwt}"));
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).expect("base64url");
    serde_json::from_slice(&bytes).expect("JSON claims")
}
