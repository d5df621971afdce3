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
/// under another key is another proof.
pub trait ReplayStore: Send + Sync + 'static {
    /// Records `key` for `ttl`: `Ok(true)` when it was not there (the
    /// proof is new), `Ok(false)` when it was (a replay). An `Err` (the
    /// store is out of reach, or full) refuses the request with 503.
    fn first_use<'a>(&'a self, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, String>>;
}

/// The most proof ids the memory store keeps: each a 16-byte digest and
/// its expiry, twice (the map and the queue), about 80 bytes with the
/// map's overhead: some 40 MiB at most.
pub(crate) const MEMORY_CAPACITY: usize = 500_000;

/// The proofs of one server, in its memory: bounded, the oldest forgotten
/// as they expire. Full of unexpired ids, it refuses new proofs (503)
/// rather than forget one that could still be replayed.
#[derive(Debug, Default)]
pub(crate) struct MemoryReplayStore {
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    until: HashMap<Id, Instant>,
    /// In the order recorded, which is also the order of expiry (one ttl
    /// for all).
    order: VecDeque<(Id, Instant)>,
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
    /// Records `key` at `now` for `ttl`, keeping at most `capacity` live keys.
    fn record(&self, key: &str, ttl: Duration, capacity: usize, now: Instant) -> Result<bool, String> {
        let key = id(key);
        let mut seen = crate::sync::lock(&self.seen);
        while let Some((_, until)) = seen.order.front()
            && *until <= now
        {
            let (old, until) = seen.order.pop_front().unwrap_or_else(|| unreachable!("a front"));
            if seen.until.get(&old) == Some(&until) {
                seen.until.remove(&old);
            }
        }
        if seen.until.get(&key).is_some_and(|until| now < *until) {
            return Ok(false);
        }
        if seen.until.len() >= capacity {
            return Err("too many DPoP proofs to remember; try again later".into());
        }
        let until = now + ttl;
        seen.until.insert(key, until);
        seen.order.push_back((key, until));
        Ok(true)
    }
}

impl ReplayStore for MemoryReplayStore {
    fn first_use<'a>(&'a self, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(std::future::ready(self.record(key, ttl, MEMORY_CAPACITY, Instant::now())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_is_new_once_until_it_expires_and_a_full_store_refuses() {
        let store = MemoryReplayStore::default();
        let (ttl, start) = (Duration::from_secs(60), Instant::now());
        let at = |seconds: u64| start + Duration::from_secs(seconds);
        assert_eq!(store.record("a", ttl, 2, at(0)), Ok(true));
        assert_eq!(store.record("a", ttl, 2, at(59)), Ok(false));
        assert_eq!(store.record("b", ttl, 2, at(1)), Ok(true));
        assert!(store.record("c", ttl, 2, at(2)).is_err(), "full of live ids");
        assert_eq!(store.record("c", ttl, 2, at(60)), Ok(true), "the first one expired: room again");
        assert_eq!(store.record("a", ttl, 2, at(61)), Ok(true), "and it is new again");
        assert_eq!(store.record("c", ttl, 2, at(119)), Ok(false), "not yet expired");
    }
}
