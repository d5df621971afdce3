//! PKCE (RFC 7636), S256 only: the front checks clients' pairs and makes
//! its own toward the provider.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

/// Whether `value` may be a verifier or a challenge: 43 to 128
/// unreserved characters (§4.1).
pub(crate) fn well_formed(value: &str) -> bool {
    (43..=128).contains(&value.len())
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// The S256 challenge of `verifier`.
pub(crate) fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Whether `verifier` answers `challenge`.
pub(crate) fn answers(verifier: &str, challenge: &str) -> bool {
    well_formed(verifier) && self::challenge(verifier) == challenge
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_example_verifies() {
        // RFC 7636 appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(challenge(verifier), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert!(answers(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
        assert!(!answers("short", &challenge("short")));
    }
}
