//! PKCE (RFC 7636, S256) and the `state` of one authorization.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

/// The secrets of one authorization request.
pub(super) struct Pkce {
    /// Sent with the code, to prove this client asked for it.
    pub(super) verifier: String,
    /// `BASE64URL(SHA256(verifier))`, sent with the authorization request.
    pub(super) challenge: String,
    /// Sent out and expected back unchanged.
    pub(super) state: String,
}

impl Pkce {
    pub(super) fn new() -> Result<Pkce, getrandom::Error> {
        let verifier = random(32)?;
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Ok(Pkce { verifier, challenge, state: random(16)? })
    }
}

/// `bytes` random bytes as URL-safe Base64.
fn random(bytes: usize) -> Result<String, getrandom::Error> {
    let mut buffer = vec![0; bytes];
    getrandom::fill(&mut buffer)?;
    Ok(URL_SAFE_NO_PAD.encode(buffer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_is_the_verifiers_digest_and_each_authorization_its_own() {
        let (one, two) = (Pkce::new().expect("random"), Pkce::new().expect("random"));
        assert_eq!(one.challenge, URL_SAFE_NO_PAD.encode(Sha256::digest(one.verifier.as_bytes())));
        assert!(one.verifier.len() >= 43, "RFC 7636: 43 characters at least");
        assert_ne!((one.verifier, one.state), (two.verifier, two.state));
    }
}
