//! JWT access tokens already verified, so that a client sending the same
//! token on every request pays for its signature once.
//!
//! A signature check costs 13 to 70 times a whole `tools/call` (see
//! BENCHMARKS.md, "The cost of authorization"); a client reuses one token
//! for minutes. An entry lasts until the token's `exp` (plus the leeway
//! the uncached check allows) and never longer than [`MAX_AGE`], so a key
//! the issuer withdraws stops being honoured within that time even for
//! tokens seen before. The key is the whole token: a hit is the very token
//! verified earlier, nothing weaker.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::Principal;

/// The longest an entry is trusted without checking the signature again.
pub(crate) const MAX_AGE: Duration = Duration::from_secs(300);

/// At most this many tokens are kept (a few KiB each).
const MAX_ENTRIES: usize = 4096;

/// Until when a token is trusted, and the caller it stands for.
type Entry = (Instant, Principal);

/// Verified tokens and the callers they stand for.
#[derive(Debug, Default)]
pub(crate) struct VerifiedTokens {
    /// By the token's bytes, so that a request's header is looked up as it
    /// came, before anything reads it as text.
    entries: Mutex<HashMap<Box<[u8]>, Entry>>,
}

impl VerifiedTokens {
    /// The caller of `token`, if it was verified and is still good.
    pub(crate) fn get(&self, token: &[u8]) -> Option<Principal> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(token).filter(|(until, _)| Instant::now() < *until).map(|(_, principal)| principal.clone())
    }

    /// Remembers a verified `token` until `exp` (Unix seconds) plus
    /// `leeway`, at most [`MAX_AGE`].
    pub(crate) fn put(&self, token: &str, principal: &Principal, exp: Option<u64>, leeway: Duration) {
        // A token without `exp` was refused before it got here; be safe anyway.
        let Some(exp) = exp else { return };
        let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        // To the instant, not the second: never past what the uncached check accepts.
        let ttl = (Duration::from_secs(exp) + leeway).saturating_sub(since_epoch).min(MAX_AGE);
        if ttl.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, (until, _)| now < *until);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(token.as_bytes().into(), (now + ttl, principal.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unix_now() -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
    }

    #[test]
    fn a_verified_token_is_known_until_its_end_and_no_other_is() {
        let cache = VerifiedTokens::default();
        let alice = Principal::new("alice").with_scopes(["a"]);
        cache.put("token-a", &alice, Some(unix_now() + 60), Duration::ZERO);
        assert_eq!(cache.get(b"token-a"), Some(alice));
        assert_eq!(cache.get(b"token-a-altered"), None);
        assert_eq!(cache.get(b"token-"), None);
        // Expired already: never kept.
        cache.put("token-b", &Principal::new("bob"), Some(unix_now().saturating_sub(1)), Duration::ZERO);
        assert_eq!(cache.get(b"token-b"), None);
    }

    #[test]
    fn an_entry_ends_with_its_token() {
        let cache = VerifiedTokens::default();
        cache.put("short", &Principal::new("carol"), Some(unix_now()), Duration::ZERO);
        assert_eq!(cache.get(b"short"), None);
    }
}
