//! DPoP (RFC 9449): a key pair a client holds for the life of its tokens,
//! and the proof of possession of it that goes with each request, so that a
//! token taken from the wire is of no use without the key. ES256 (P-256,
//! ring's fixed-size signatures, which are JWS's).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::json;
use sha2::{Digest as _, Sha256};

/// A key pair and what each proof's header says of it.
pub(crate) struct DpopKey {
    pair: EcdsaKeyPair,
    rng: SystemRandom,
    /// The JWS header, Base64url: `typ`, `alg` and the public key.
    header: String,
    /// The public key, as a JWK.
    #[cfg_attr(not(test), allow(dead_code))]
    jwk: serde_json::Value,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A new key pair, of this process alone.
    pub(crate) fn generate() -> Result<DpopKey, String> {
        let rng = SystemRandom::new();
        let alg = &ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(|e| format!("no DPoP key: {e}"))?;
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).map_err(|e| format!("no DPoP key: {e}"))?;
        // The uncompressed point: 0x04, then x and y.
        let point = pair.public_key().as_ref();
        let (x, y) = (URL_SAFE_NO_PAD.encode(&point[1..33]), URL_SAFE_NO_PAD.encode(&point[33..65]));
        let jwk = json!({"kty": "EC", "crv": "P-256", "x": x, "y": y});
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk});
        Ok(DpopKey { pair, rng, header: URL_SAFE_NO_PAD.encode(header.to_string()), jwk })
    }

    /// The public key, as a JWK.
    #[cfg(test)]
    pub(crate) fn public_jwk(&self) -> serde_json::Value {
        self.jwk.clone()
    }

    /// `claims` under `header`, signed with this key, whatever they say:
    /// for tests of what a verifier refuses.
    #[cfg(test)]
    pub(crate) fn sign(&self, header: &serde_json::Value, claims: &serde_json::Value) -> String {
        let signed =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature = self.pair.sign(&self.rng, signed.as_bytes()).expect("a signature");
        format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()))
    }

    /// The proof for one request: `method` to `url` (its query and fragment
    /// left out), with the hash of the access `token` it carries (none at a
    /// token endpoint) and the server's `nonce` when it gave one. Each proof
    /// has an id of its own.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, String> {
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).map_err(|e| e.to_string())?;
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_err(|e| e.to_string())?.as_secs();
        let mut claims = json!({"jti": URL_SAFE_NO_PAD.encode(id), "htm": method, "htu": target(url), "iat": now});
        if let Some(token) = token {
            claims["ath"] = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())).into();
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = nonce.into();
        }
        let signed = format!("{}.{}", self.header, URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature = self.pair.sign(&self.rng, signed.as_bytes()).map_err(|e| format!("no DPoP proof: {e}"))?;
        Ok(format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref())))
    }
}

/// `url` without its query and fragment: what a proof's `htu` names.
fn target(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

#[cfg(test)]
mod tests {
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
    use serde_json::Value;

    use super::*;

    fn part(proof: &str, at: usize) -> Value {
        let text = proof.split('.').nth(at).expect("three parts");
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).expect("Base64url")).expect("JSON")
    }

    #[test]
    fn a_proof_is_signed_by_the_key_its_header_shows_and_names_its_request() {
        let key = DpopKey::generate().expect("a key");
        let proof = key.proof("POST", "https://mcp.example.com/mcp?x=1#f", Some("t-1"), Some("n-1")).expect("a proof");
        let (header, claims) = (part(&proof, 0), part(&proof, 1));
        assert_eq!((header["typ"].as_str(), header["alg"].as_str()), (Some("dpop+jwt"), Some("ES256")));
        assert!(header["jwk"].get("d").is_none(), "the public key only");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(b"t-1")));
        assert_eq!(claims["nonce"], "n-1");
        // The signature verifies with the header's key.
        let coordinate = |name: &str| URL_SAFE_NO_PAD.decode(header["jwk"][name].as_str().expect("text")).expect("b64");
        let mut point = vec![4u8];
        point.extend(coordinate("x"));
        point.extend(coordinate("y"));
        let (signed, signature) = proof.rsplit_once('.').expect("signed");
        let signature = URL_SAFE_NO_PAD.decode(signature).expect("Base64url");
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
            .verify(signed.as_bytes(), &signature)
            .expect("verified");
        // Each proof is new.
        let again = key.proof("POST", "https://mcp.example.com/mcp", None, None).expect("a proof");
        assert_ne!(part(&again, 1)["jti"], claims["jti"]);
        assert!(part(&again, 1).get("ath").is_none());
    }
}
