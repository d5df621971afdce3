//! [`ProxyStore`]: where the front keeps what must outlive a request and
//! be seen by every replica (registered clients, authorizations in
//! progress, codes, refresh tokens, its signing key), and
//! [`MemoryProxyStore`], the store of a single process.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::handler::BoxFuture;

/// Why a store could not do what was asked: out of reach, full, or
/// broken. The request that needed it is answered 503 (`temporarily_unavailable`),
/// never as if the record were absent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the OAuth proxy's store failed: {0}")]
pub struct StoreError(pub String);

/// A key-value store with expiry, the one thing the OAuth front needs to
/// run on several replicas: every record is a short text under a key the
/// front makes (`client:…`, `code:…`, `refresh:…`; secrets only as
/// digests), with a time to live.
///
/// [`take`](Self::take) must be atomic: of two concurrent takers of one
/// key, one gets the value and the other `None`. It is what makes an
/// authorization code and a refresh token single-use across replicas.
/// [`put_new`](Self::put_new) must be atomic too: replicas starting
/// together agree on one signing key.
///
/// Implementations: [`MemoryProxyStore`] (one process), `SqliteProxyStore`
/// (`sqlite` feature, a file that survives restarts) and
/// `redis::RedisProxyStore` (`redis` feature, shared by replicas).
pub trait ProxyStore: Send + Sync + 'static {
    /// Stores `value` under `key`, replacing what was there, for `ttl`
    /// (`None`: until deleted).
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Stores `value` under `key` only if no unexpired value is there:
    /// `Ok(true)` when stored.
    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// The unexpired value under `key`.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>>;

    /// Removes the value under `key` and returns it if it was unexpired,
    /// atomically.
    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>>;

    /// Removes the value under `key`, if any.
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
}

/// How many records [`MemoryProxyStore::new`] holds at most.
const DEFAULT_CAPACITY: usize = 100_000;

/// The front's records in this process's memory: lost on restart, not
/// shared with replicas. Bounded: when full of unexpired records it
/// refuses new ones (the request gets 503) rather than forget one in use.
pub struct MemoryProxyStore {
    capacity: usize,
    records: Mutex<HashMap<String, Record>>,
}

struct Record {
    value: String,
    until: Option<Instant>,
}

impl Record {
    fn live(&self, now: Instant) -> bool {
        self.until.is_none_or(|until| until > now)
    }
}

impl MemoryProxyStore {
    /// A store of at most 100,000 records.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }

    /// A store of at most `capacity` records.
    pub fn with_capacity(capacity: usize) -> Self {
        MemoryProxyStore { capacity, records: Mutex::new(HashMap::new()) }
    }

    fn insert(&self, key: &str, value: &str, ttl: Option<Duration>, only_new: bool) -> Result<bool, StoreError> {
        let now = Instant::now();
        let mut records = crate::sync::lock(&self.records);
        let present = records.get(key).is_some_and(|record| record.live(now));
        if only_new && present {
            return Ok(false);
        }
        if !present && records.len() >= self.capacity {
            records.retain(|_, record| record.live(now));
            if records.len() >= self.capacity {
                return Err(StoreError(format!("full: {} records", self.capacity)));
            }
        }
        let until = ttl.map(|ttl| now + ttl);
        records.insert(key.to_owned(), Record { value: value.to_owned(), until });
        Ok(true)
    }
}

impl Default for MemoryProxyStore {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MemoryProxyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryProxyStore").field("capacity", &self.capacity).finish_non_exhaustive()
    }
}

impl ProxyStore for MemoryProxyStore {
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.insert(key, value, ttl, false).map(drop) })
    }

    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move { self.insert(key, value, ttl, true) })
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let records = crate::sync::lock(&self.records);
            Ok(records.get(key).filter(|record| record.live(Instant::now())).map(|record| record.value.clone()))
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let taken = crate::sync::lock(&self.records).remove(key);
            Ok(taken.filter(|record| record.live(Instant::now())).map(|record| record.value))
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            crate::sync::lock(&self.records).remove(key);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_taken_value_is_gone_and_a_full_store_refuses() {
        let store = MemoryProxyStore::with_capacity(2);
        store.put("a", "1", None).await.unwrap();
        assert!(!store.put_new("a", "2", None).await.unwrap());
        assert_eq!(store.get("a").await.unwrap().as_deref(), Some("1"));
        assert_eq!(store.take("a").await.unwrap().as_deref(), Some("1"));
        assert_eq!(store.take("a").await.unwrap(), None);
        store.put("b", "1", None).await.unwrap();
        store.put("c", "1", Some(Duration::ZERO)).await.unwrap();
        assert_eq!(store.get("c").await.unwrap(), None, "expired at once");
        // The expired record makes room; two live ones do not.
        store.put("d", "1", None).await.unwrap();
        assert!(store.put("e", "1", None).await.is_err());
        store.put("b", "2", None).await.expect("replacing takes no room");
    }
}
