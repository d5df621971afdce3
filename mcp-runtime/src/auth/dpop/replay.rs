//! Proofs seen before: each proof's `jti` is remembered for as long as the
//! proof could be accepted, so that a proof taken from the wire cannot be
//! sent again. In memory for one server, or in a shared store
//! (`redis::RedisReplayStore` (`redis` feature)) for replicas.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::handler::BoxFuture;

/// Where the ids of the DPoP proofs already accepted are kept, for as long
/// as each could be accepted. Replicas of one server share one, or a proof
/// accepted by one replica could be replayed to the next.
///
/// The key is a digest of the proof's key and its `jti`: the same text
/// under another key is another proof. `caller` names who presented it
/// (an opaque digest of its token's issuer, subject and client), for a
/// store that bounds how much of it one caller may fill.
pub trait ReplayStore: Send + Sync + 'static {
    /// Records `key` for `ttl`, presented by `caller`: `Ok(true)` when it
    /// was not there (the proof is new), `Ok(false)` when it was (a
    /// replay). An `Err` (the store is out of reach, or full, or `caller`
    /// has filled its share) refuses the request with 503.
    fn first_use<'a>(&'a self, caller: &'a str, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, String>>;
}

/// The most proof ids the memory store keeps: each a 16-byte digest, its
/// caller's and its expiry, in the map and the queue, about 100 bytes with
/// the maps' overhead: some 50 MiB at most.
pub(crate) const MEMORY_CAPACITY: usize = 500_000;

/// The share of the memory store one caller may fill by default: an
/// eighth, 62,500 live proofs, about a hundred requests a second for the
/// ten minutes a proof is remembered with the default window. A caller
/// that sends more is refused (503) until its own proofs expire; the others
/// are not, so filling the store takes eight callers at least, not one.
pub(crate) const CALLER_SHARE: usize = MEMORY_CAPACITY / 8;

/// The proofs of one server, in its memory: bounded, the oldest forgotten
/// as they expire. Full of unexpired ids, it refuses new proofs (503)
/// rather than forget one that could still be replayed; so does a caller's
/// share of it.
#[derive(Debug)]
pub(crate) struct MemoryReplayStore {
    seen: Mutex<Seen>,
    /// How many live ids one caller may have.
    share: usize,
}

#[derive(Debug, Default)]
struct Seen {
    until: HashMap<Id, Instant>,
    /// In the order recorded, which is also the order of expiry (one ttl
    /// for all), with the caller of each.
    order: VecDeque<(Id, Instant, Id)>,
    /// How many live ids each caller has: only callers with one at least.
    by_caller: HashMap<Id, usize>,
}

/// What a key is kept as: its first 128 bits of SHA-256, whatever its length.
type Id = [u8; 16];

fn id(key: &str) -> Id {
    use sha2::{Digest as _, Sha256};
    let digest = Sha256::digest(key.as_bytes());
    let mut id = [0; 16];
    id.copy_from_slice(&digest[..16]);
    id
}

impl MemoryReplayStore {
    /// A store in which one caller may have `share` live ids.
    pub(crate) fn with_share(share: usize) -> Self {
        MemoryReplayStore { seen: Mutex::default(), share }
    }

    /// Records `key` of `caller` at `now` for `ttl`, keeping at most
    /// `capacity` live keys, and `share` of one caller.
    fn record(
        &self,
        (caller, key): (&str, &str),
        ttl: Duration,
        (capacity, share): (usize, usize),
        now: Instant,
    ) -> Result<bool, String> {
        let (caller, key) = (id(caller), id(key));
        let mut seen = crate::sync::lock(&self.seen);
        let seen = &mut *seen;
        while let Some((_, until, _)) = seen.order.front()
            && *until <= now
        {
            let (old, until, of) = seen.order.pop_front().unwrap_or_else(|| unreachable!("a front"));
            if seen.until.get(&old) == Some(&until) {
                seen.until.remove(&old);
            }
            if let Some(count) = seen.by_caller.get_mut(&of) {
                *count -= 1;
                if *count == 0 {
                    seen.by_caller.remove(&of);
                }
            }
        }
        if seen.until.get(&key).is_some_and(|until| now < *until) {
            return Ok(false);
        }
        if seen.until.len() >= capacity {
            return Err("too many DPoP proofs to remember; try again later".into());
        }
        let count = seen.by_caller.entry(caller).or_default();
        if *count >= share {
            return Err("one caller sent too many DPoP proofs lately; it may try again later".into());
        }
        *count += 1;
        let until = now + ttl;
        seen.until.insert(key, until);
        seen.order.push_back((key, until, caller));
        Ok(true)
    }
}

impl ReplayStore for MemoryReplayStore {
    fn first_use<'a>(&'a self, caller: &'a str, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, String>> {
        let limits = (MEMORY_CAPACITY, self.share);
        Box::pin(std::future::ready(self.record((caller, key), ttl, limits, Instant::now())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_is_new_once_until_it_expires_and_a_full_store_refuses() {
        let store = MemoryReplayStore::with_share(CALLER_SHARE);
        let (ttl, start) = (Duration::from_secs(60), Instant::now());
        let at = |seconds: u64| start + Duration::from_secs(seconds);
        let record = |key: &str, now| store.record(("me", key), ttl, (2, 2), now);
        assert_eq!(record("a", at(0)), Ok(true));
        assert_eq!(record("a", at(59)), Ok(false));
        assert_eq!(record("b", at(1)), Ok(true));
        assert!(record("c", at(2)).is_err(), "full of live ids");
        assert_eq!(record("c", at(60)), Ok(true), "the first one expired: room again");
        assert_eq!(record("a", at(61)), Ok(true), "and it is new again");
        assert_eq!(record("c", at(119)), Ok(false), "not yet expired");
    }

    #[test]
    fn one_caller_fills_its_share_and_no_more() {
        let store = MemoryReplayStore::with_share(CALLER_SHARE);
        let (ttl, start) = (Duration::from_secs(60), Instant::now());
        let at = |seconds: u64| start + Duration::from_secs(seconds);
        let record = |caller: &str, key: &str, now| store.record((caller, key), ttl, (4, 2), now);
        assert_eq!(record("flood", "1", at(0)), Ok(true));
        assert_eq!(record("flood", "2", at(1)), Ok(true));
        assert!(record("flood", "3", at(2)).is_err(), "its share is full");
        assert_eq!(record("flood", "1", at(2)), Ok(false), "a replay is still told as one");
        assert_eq!(record("other", "3", at(3)), Ok(true), "another caller is not refused");
        assert_eq!(record("other", "4", at(4)), Ok(true));
        assert_eq!(record("flood", "5", at(60)), Ok(true), "its first proof expired: room in its share");
        assert_eq!(crate::sync::lock(&store.seen).by_caller.len(), 2, "callers without live ids are forgotten");
        assert_eq!(record("third", "6", at(120)), Ok(true), "all expired");
        assert_eq!(crate::sync::lock(&store.seen).by_caller.len(), 1);
    }
}
