//! Server nonces (RFC 9449 §8) that need no state: a nonce is the number
//! of a time slot and its HMAC under a secret every replica shares, so any
//! replica tells one of its own from a made-up one, and a nonce stops
//! working two slots after it was handed out.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac as _};
use sha2::Sha256;

/// The bytes of a nonce's MAC kept: 128 bits.
const TAG: usize = 16;

/// The nonces of one server (or of replicas that share the secret).
#[derive(Clone)]
pub(crate) struct Nonces {
    key: Hmac<Sha256>,
    /// The length of a slot, in seconds.
    slot: u64,
}

impl std::fmt::Debug for Nonces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nonces").field("slot", &self.slot).finish_non_exhaustive()
    }
}

impl Nonces {
    /// Nonces made with `secret`, each good for one to two `slot`s.
    pub(crate) fn new(secret: &[u8], slot: u64) -> Self {
        // HMAC takes a key of any length.
        let key = Hmac::<Sha256>::new_from_slice(secret).unwrap_or_else(|_| unreachable!("HMAC keys have any length"));
        Nonces { key, slot: slot.max(1) }
    }

    fn tag(&self, slot: u64) -> [u8; TAG] {
        let mut mac = self.key.clone();
        mac.update(b"dpop-nonce");
        mac.update(&slot.to_be_bytes());
        let mut tag = [0; TAG];
        tag.copy_from_slice(&mac.finalize().into_bytes()[..TAG]);
        tag
    }

    /// The nonce to hand out at `now` (Unix seconds).
    pub(crate) fn current(&self, now: u64) -> String {
        let slot = now / self.slot;
        let mut bytes = [0; 8 + TAG];
        bytes[..8].copy_from_slice(&slot.to_be_bytes());
        bytes[8..].copy_from_slice(&self.tag(slot));
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Whether `nonce` was handed out by these nonces in this slot or the
    /// one before.
    pub(crate) fn accepts(&self, nonce: &str, now: u64) -> bool {
        let mut bytes = [0; 8 + TAG];
        if nonce.len() != URL_SAFE_NO_PAD.encode(bytes).len()
            || URL_SAFE_NO_PAD.decode_slice(nonce, &mut bytes) != Ok(bytes.len())
        {
            return false;
        }
        let mut slot = [0; 8];
        slot.copy_from_slice(&bytes[..8]);
        let slot = u64::from_be_bytes(slot);
        let current = now / self.slot;
        if slot != current && slot.checked_add(1) != Some(current) {
            return false;
        }
        let mut mac = self.key.clone();
        mac.update(b"dpop-nonce");
        mac.update(&slot.to_be_bytes());
        // In constant time.
        mac.verify_truncated_left(&bytes[8..]).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nonce_is_good_for_its_slot_and_the_next_and_only_with_its_secret() {
        let nonces = Nonces::new(b"one secret", 60);
        let nonce = nonces.current(6_000);
        assert!(nonces.accepts(&nonce, 6_000));
        assert!(nonces.accepts(&nonce, 6_119));
        assert!(!nonces.accepts(&nonce, 6_120), "two slots later");
        assert!(!nonces.accepts(&nonce, 5_999), "from the future");
        assert!(!Nonces::new(b"another secret", 60).accepts(&nonce, 6_000));
        let replica = Nonces::new(b"one secret", 60);
        assert!(replica.accepts(&nonce, 6_000), "a replica with the secret");
        let mut forged = nonce.clone().into_bytes();
        forged[3] ^= 1;
        assert!(!nonces.accepts(std::str::from_utf8(&forged).unwrap_or(""), 6_000));
        assert!(!nonces.accepts("", 6_000));
        assert!(!nonces.accepts(&"A".repeat(4096), 6_000));
    }
}
