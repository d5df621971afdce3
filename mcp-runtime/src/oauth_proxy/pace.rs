//! How fast one address may make the front write: registering, asking for
//! an authorization and answering one all put records in the store, and
//! nobody is known yet when they do. A token bucket per address (an IPv6
//! address by its /64), in a bounded map.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use crate::handler::caller::address_key;

/// The most addresses followed at once.
const MAX_ADDRESSES: usize = 10_000;

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The buckets of one front.
pub(crate) struct Pace {
    per_minute: u32,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

impl std::fmt::Debug for Pace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pace").field("per_minute", &self.per_minute).finish_non_exhaustive()
    }
}

impl Pace {
    /// `per_minute` writes a minute per address, as many at once; zero
    /// for no limit.
    pub(crate) fn new(per_minute: u32) -> Self {
        Pace { per_minute, buckets: Mutex::new(HashMap::new()) }
    }

    /// Whether `address` may write now (taking one token). An unknown
    /// address (a request that came in process) is not paced. With more
    /// addresses at their limit than the map holds, new ones are refused:
    /// the store is what this protects.
    pub(crate) fn allow(&self, address: Option<IpAddr>) -> bool {
        let (Some(address), true) = (address, self.per_minute > 0) else { return true };
        self.allow_at(address_key(address), Instant::now())
    }

    fn allow_at(&self, key: IpAddr, now: Instant) -> bool {
        let capacity = f64::from(self.per_minute);
        let refill = |bucket: &Bucket| {
            (bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * capacity / 60.0).min(capacity)
        };
        let mut buckets = crate::sync::lock(&self.buckets);
        if !buckets.contains_key(&key) && buckets.len() >= MAX_ADDRESSES {
            // A full bucket says nothing a new one would not.
            buckets.retain(|_, bucket| refill(bucket) < capacity);
            if buckets.len() >= MAX_ADDRESSES {
                return false;
            }
        }
        let bucket = buckets.entry(key).or_insert(Bucket { tokens: capacity, at: now });
        bucket.tokens = refill(bucket);
        bucket.at = now;
        if bucket.tokens < 1.0 {
            return false;
        }
        bucket.tokens -= 1.0;
        true
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn an_address_gets_its_rate_and_its_neighbours_share_it() {
        let pace = Pace::new(3);
        let start = Instant::now();
        let one: IpAddr = "2001:db8::1".parse().unwrap();
        let same_prefix: IpAddr = "2001:db8::2".parse().unwrap();
        let other: IpAddr = "192.0.2.1".parse().unwrap();
        assert!(pace.allow_at(address_key(one), start));
        assert!(pace.allow_at(address_key(same_prefix), start));
        assert!(pace.allow_at(address_key(one), start));
        assert!(!pace.allow_at(address_key(same_prefix), start), "one /64, one bucket");
        assert!(pace.allow_at(address_key(other), start));
        assert!(pace.allow_at(address_key(one), start + Duration::from_secs(20)), "a token a third of a minute");
        assert!(Pace::new(0).allow(Some(one)), "zero: no limit");
        assert!(pace.allow(None), "no address: in process");
    }
}
