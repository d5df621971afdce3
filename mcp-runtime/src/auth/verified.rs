//! JWT access tokens already verified, so that a client sending the same
//! token on every request pays for its signature once.
//!
//! A signature check costs 13 to 70 times a whole `tools/call` (see
//! BENCHMARKS.md, "The cost of authorization"); a client reuses one token
//! for minutes. An entry lasts until the token's `exp` (plus the leeway
//! the uncached check allows) and never longer than [`MAX_AGE`], so a key
//! the issuer withdraws stops being honoured within that time even for
//! tokens seen before. A hit is the very token verified earlier, compared
//! whole, nothing weaker; it is looked up by its length and its last bytes
//! only ([`Key`]), which costs a fraction of hashing all of it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::Principal;

/// The longest an entry is trusted without checking the signature again.
pub(crate) const MAX_AGE: Duration = Duration::from_secs(300);

/// At most this many tokens are kept (a few KiB each).
const MAX_ENTRIES: usize = 4096;

/// A verified token, until when it is trusted, and the caller it stands for.
#[derive(Debug)]
struct Kept {
    token: Box<[u8]>,
    until: Instant,
    caller: Principal,
}

/// How many of a token's last bytes it is looked up by.
const TAIL: usize = 32;

/// What a token is looked up by: its length and its last [`TAIL`] bytes.
/// A JWT ends with its signature, so two verified tokens do not share
/// them; only verified tokens are kept, so no one can fill the table with
/// keys that collide. Two that did (an issuer whose tokens all end alike)
/// would only take each other's place.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Key {
    len: usize,
    tail: [u8; TAIL],
}

impl Key {
    fn of(token: &[u8]) -> Self {
        let end = &token[token.len().saturating_sub(TAIL)..];
        let mut tail = [0; TAIL];
        tail[..end.len()].copy_from_slice(end);
        Key { len: token.len(), tail }
    }
}

/// Verified tokens and the callers they stand for.
#[derive(Debug, Default)]
pub(crate) struct VerifiedTokens {
    /// By the token's bytes, so that a request's header is looked up as it
    /// came, before anything reads it as text: each whole token, found by
    /// its [`Key`].
    entries: Mutex<HashMap<Key, Kept>>,
}

impl VerifiedTokens {
    /// The caller of `token`, if it was verified and is still good.
    pub(crate) fn get(&self, token: &[u8]) -> Option<Principal> {
        let entries = crate::sync::lock(&self.entries);
        let kept = entries.get(&Key::of(token))?;
        (*kept.token == *token && Instant::now() < kept.until).then(|| kept.caller.clone())
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
        let mut entries = crate::sync::lock(&self.entries);
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, kept| now < kept.until);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        let token = token.as_bytes();
        entries.insert(Key::of(token), Kept { token: token.into(), until: now + ttl, caller: principal.clone() });
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
    fn a_token_that_ends_like_a_kept_one_is_not_taken_for_it() {
        let cache = VerifiedTokens::default();
        let signature = "s".repeat(TAIL);
        let alice = Principal::new("alice");
        cache.put(&format!("header.alice.{signature}"), &alice, Some(unix_now() + 60), Duration::ZERO);
        assert_eq!(cache.get(format!("header.alice.{signature}").as_bytes()), Some(alice));
        assert_eq!(cache.get(format!("header.mallo.{signature}").as_bytes()), None, "same length, same end");
        assert_eq!(cache.get(b"short"), None);
    }

    #[test]
    fn an_entry_ends_with_its_token() {
        let cache = VerifiedTokens::default();
        cache.put("short", &Principal::new("carol"), Some(unix_now()), Duration::ZERO);
        assert_eq!(cache.get(b"short"), None);
    }
}
