//! Where the 2025-era sessions of an HTTP endpoint are kept: a
//! [`SessionStore`], in memory by default ([`MemorySessionStore`]), or in
//! Redis ([`RedisSessionStore`](crate::redis::RedisSessionStore), `redis`
//! feature) so that any replica behind a plain load balancer serves any
//! session.
//!
//! A session is split in two. What can be shared is a [`SessionRecord`]:
//! the id, who began it, what `initialize` negotiated, the log level and
//! the subscriptions. What cannot (the server→client requests waiting for their
//! answers, the client's requests in flight, the event streams and their
//! connections) stays in the process serving it. A replica asked about a
//! session it does not hold loads the record and builds its own copy of the
//! session from it; it loads the record again on every request of that
//! session (one round trip), which refreshes the session's idle deadline,
//! tells it when the session was ended elsewhere (404), and brings its copy
//! up to date.
//!
//! A store shared by several processes also carries their messages to one
//! another ([`publish`](SessionStore::publish),
//! [`subscribe`](SessionStore::subscribe)): the client's answer to a request
//! whose handler waits on another replica, a `notifications/cancelled` for
//! a request running on another replica, a change of log level or
//! subscriptions, the end of a session. Their contents are the runtime's
//! own; a store only delivers them.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::owner::SessionOwner;
use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel};
use crate::sync::lock;

/// The future a [`SessionStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// What can be shared of a 2025-era session, as a store keeps it.
///
/// ```
/// use mcp_runtime::session::{SessionChange, SessionRecord};
/// use mcp_runtime::protocol::LoggingLevel;
///
/// let mut record = SessionRecord::new("9f2c", "2025-11-25");
/// record.apply(&SessionChange::Subscribe { uri: "notes://1".into() });
/// record.apply(&SessionChange::LogLevel { level: LoggingLevel::Debug });
/// let json = serde_json::to_string(&record).unwrap();
/// assert_eq!(serde_json::from_str::<SessionRecord>(&json).unwrap(), record);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionRecord {
    /// The session id (`Mcp-Session-Id`).
    pub id: String,
    /// The protocol version `initialize` settled on.
    pub protocol_version: String,
    /// What the client declared it can do.
    #[serde(default)]
    pub client_capabilities: ClientCapabilities,
    /// Who the client said it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// The level `logging/setLevel` set, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// The resources `resources/subscribe` named.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub subscriptions: BTreeSet<String>,
    /// Whether the client sent `notifications/initialized`.
    #[serde(default)]
    pub initialized: bool,
    /// Who began the session, on an authenticated server: only that
    /// identity may use it. A record written before sessions had owners
    /// reads as having none, and is then refused to every authenticated
    /// caller (its client begins a new session, as after any 404).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<SessionOwner>,
    /// When the session was opened, in milliseconds since the Unix epoch.
    /// Informative: expiry is counted from the last use, which the store
    /// tracks its own way.
    #[serde(default)]
    pub created_ms: u64,
}

impl SessionRecord {
    /// The record of a session opened now, with nothing declared or set.
    pub fn new(id: impl Into<String>, protocol_version: impl Into<String>) -> Self {
        let created_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        SessionRecord {
            id: id.into(),
            protocol_version: protocol_version.into(),
            client_capabilities: ClientCapabilities::default(),
            client_info: None,
            log_level: None,
            subscriptions: BTreeSet::new(),
            initialized: false,
            owner: None,
            created_ms,
        }
    }

    /// Applies a change the client made.
    pub fn apply(&mut self, change: &SessionChange) {
        match change {
            SessionChange::LogLevel { level } => self.log_level = Some(*level),
            SessionChange::Subscribe { uri } => {
                self.subscriptions.insert(uri.clone());
            }
            SessionChange::Unsubscribe { uri } => {
                self.subscriptions.remove(uri);
            }
            SessionChange::Initialized => self.initialized = true,
        }
    }
}

/// A change the client makes to its session after `initialize`, written
/// through to the store before the client is answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum SessionChange {
    /// `logging/setLevel`.
    LogLevel {
        /// The level set.
        level: LoggingLevel,
    },
    /// `resources/subscribe`.
    Subscribe {
        /// The resource.
        uri: String,
    },
    /// `resources/unsubscribe`.
    Unsubscribe {
        /// The resource.
        uri: String,
    },
    /// `notifications/initialized`: from now on the server may send the
    /// client requests of its own.
    Initialized,
}

/// The bounds a store keeps sessions within, from
/// [`HttpConfig::max_sessions`] and [`HttpConfig::session_idle_timeout`].
#[cfg_attr(
    feature = "http",
    doc = "\n\n[`HttpConfig::max_sessions`]: crate::transport::http::HttpConfig::max_sessions\n\
           [`HttpConfig::session_idle_timeout`]: crate::transport::http::HttpConfig::session_idle_timeout"
)]
// Without the feature (no HTTP sessions), the names lead to the transports.
#[cfg_attr(
    not(feature = "http"),
    doc = "\n\n[`HttpConfig::max_sessions`]: crate::transport\n[`HttpConfig::session_idle_timeout`]: crate::transport"
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionLimits {
    /// How many sessions may be live at once.
    pub max_sessions: usize,
    /// How long a session may go unused (no record loaded) before it ends.
    pub idle_timeout: Duration,
}

impl SessionLimits {
    /// Limits of `max_sessions` (at least 1) sessions, each ending after `idle_timeout` unused.
    pub fn new(max_sessions: usize, idle_timeout: Duration) -> Self {
        SessionLimits { max_sessions: max_sessions.max(1), idle_timeout }
    }
}

/// Why a store could not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// As many sessions as [allowed](SessionLimits::max_sessions) are live.
    #[error("as many sessions as allowed are live")]
    Full,
    /// The store could not be reached or answered wrongly.
    #[error("the session store failed: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    /// A failure of the store's backend.
    pub fn backend(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        StoreError::Backend(error.into())
    }
}

/// What [`SessionStore::touch`] found of a session.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Touched {
    /// Live, and its record unchanged since the revision the caller saw.
    Unchanged,
    /// Live: its record, and the revision to name next time (`None` from a
    /// store that keeps none).
    Changed(Box<SessionRecord>, Option<u64>),
    /// Removed or expired.
    Gone,
}

/// Keeps the [`SessionRecord`]s of an HTTP endpoint's 2025-era sessions,
/// and, when several processes share it, carries their messages to one
/// another. Set one with [`HttpConfig::session_store`].
#[cfg_attr(
    feature = "http",
    doc = "\n\n[`HttpConfig::session_store`]: crate::transport::http::HttpConfig::session_store"
)]
#[cfg_attr(not(feature = "http"), doc = "\n\n[`HttpConfig::session_store`]: crate::transport")]
///
/// The contract:
///
/// - [`create`](Self::create) keeps a new record unless
///   [`max_sessions`](SessionLimits::max_sessions) are live
///   ([`StoreError::Full`]: no live session is evicted for a new one);
/// - [`load`](Self::load) returns the live record and counts the session as
///   used now; a session not loaded for
///   [`idle_timeout`](SessionLimits::idle_timeout) is gone, as if removed;
///   [`load_for`](Self::load_for) does so only for the session's owner;
/// - [`update`](Self::update) applies a change to a live record, and never
///   brings a removed or expired one back (`false` then);
/// - [`remove`](Self::remove) ends the session for every process sharing the store.
///
/// A store only this process uses keeps the defaults of the last three
/// methods. One shared by several processes gives each a distinct
/// [`replica_id`](Self::replica_id) (one that contains no `:`), and delivers
/// what [`publish`](Self::publish) sends to the [`subscribe`](Self::subscribe)rs
/// of the replica named, or of every replica (the sender included).
/// Delivery may be lossy: the runtime reloads records on every request, and
/// a holder of open streams checks its sessions periodically.
pub trait SessionStore: Send + Sync + 'static {
    /// Keeps the record of a new session.
    fn create(&self, record: SessionRecord, limits: SessionLimits) -> StoreFuture<'_, ()>;

    /// The live record of session `id`, which counts as used now; `None`
    /// once it was removed or expired.
    fn load<'a>(&'a self, id: &'a str, limits: SessionLimits) -> StoreFuture<'a, Option<SessionRecord>>;

    /// As [`load`](Self::load), for a request by `owner` (`None`: by no
    /// authenticated caller): `None` as well when the record has another
    /// [`owner`](SessionRecord::owner), and then the session does not
    /// count as used, so that a stranger knowing its id keeps nothing
    /// alive. The runtime asks this way when it holds no copy of the
    /// session yet.
    ///
    /// The default loads the record and compares, which counts a stranger's
    /// request as a use; a store that can compare first should.
    fn load_for<'a>(
        &'a self,
        id: &'a str,
        owner: Option<&'a SessionOwner>,
        limits: SessionLimits,
    ) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(async move { Ok(self.load(id, limits).await?.filter(|record| record.owner.as_ref() == owner)) })
    }

    /// Counts session `id` as used now, as [`load`](Self::load) does, for a
    /// process that holds a copy of it, made from the revision `seen` of its
    /// record (`None`: from none it knows). The record comes back only when
    /// it may have changed since, with its revision, so that a session's
    /// request costs a lookup rather than a copy of its record.
    ///
    /// The default loads the record every time, with no revision.
    fn touch<'a>(&'a self, id: &'a str, seen: Option<u64>, limits: SessionLimits) -> StoreFuture<'a, Touched> {
        let _ = seen;
        Box::pin(async move {
            Ok(match self.load(id, limits).await? {
                Some(record) => Touched::Changed(Box::new(record), None),
                None => Touched::Gone,
            })
        })
    }

    /// Applies `change` to the live record of session `id`; `false` when
    /// there is none.
    fn update<'a>(&'a self, id: &'a str, change: SessionChange) -> StoreFuture<'a, bool>;

    /// Removes the record of session `id`; `false` when there was none.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;

    /// This process's name among those sharing the store; `None` (the
    /// default) for a store no other process uses, when nothing is
    /// published.
    fn replica_id(&self) -> Option<&str> {
        None
    }

    /// Sends `message` to the replica named `to`, or to every replica when
    /// `to` is `None`.
    fn publish<'a>(&'a self, to: Option<&'a str>, message: String) -> StoreFuture<'a, ()> {
        let _ = (to, message);
        Box::pin(std::future::ready(Ok(())))
    }

    /// The messages sent to this replica or to every replica from now on;
    /// `None` for a store no other process uses.
    fn subscribe(&self) -> Option<broadcast::Receiver<String>> {
        None
    }

    /// Whether the store answers now: the readiness probe of the HTTP
    /// transport
    /// ([`HttpConfig::health_endpoints`]) answers 503 while it fails. The
    /// default, for a store inside this process, is always ready; a shared
    /// store asks its backend (a Redis `PING`, say), without waiting long:
    /// the probe gives up after a second.
    #[cfg_attr(
        feature = "http",
        doc = "\n\n[`HttpConfig::health_endpoints`]: crate::transport::http::HttpConfig::health_endpoints"
    )]
    #[cfg_attr(not(feature = "http"), doc = "\n\n[`HttpConfig::health_endpoints`]: crate::transport")]
    fn ready(&self) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// The default store: the records of this process's sessions, in a map.
///
/// Within its [limits](SessionLimits): at most `max_sessions` records (one
/// more is refused, however idle the others, unless they expired), each
/// forgotten once not loaded for `idle_timeout`. Expiry is checked when a
/// record is loaded, and on the whole map once in a while when one is
/// created, so no background task is needed.
#[derive(Debug, Default)]
pub struct MemorySessionStore {
    inner: Mutex<Memory>,
}

#[derive(Debug, Default)]
struct Memory {
    /// Each record, when it was last used, and its revision (bumped by
    /// every change).
    /// Read on every request; keyed by the ids this server made (foldhash).
    records: foldhash::HashMap<String, (SessionRecord, Instant, u64)>,
    swept: Option<Instant>,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Memory {
    fn sweep(&mut self, idle: Duration) {
        self.swept = Some(Instant::now());
        self.records.retain(|_, (_, used, _)| used.elapsed() < idle);
    }

    /// The live record of session `id` if `wanted`, which counts it as used
    /// now; one not wanted is left as it was.
    fn load(
        &mut self,
        id: &str,
        limits: SessionLimits,
        wanted: impl Fn(&SessionRecord) -> bool,
    ) -> Option<SessionRecord> {
        match self.records.get_mut(id) {
            Some((_, used, _)) if used.elapsed() >= limits.idle_timeout => {
                self.records.remove(id);
                None
            }
            Some((record, used, _)) if wanted(record) => {
                *used = Instant::now();
                Some(record.clone())
            }
            _ => None,
        }
    }
}

impl SessionStore for MemorySessionStore {
    fn create(&self, record: SessionRecord, limits: SessionLimits) -> StoreFuture<'_, ()> {
        let mut memory = lock(&self.inner);
        // The whole map is checked once in a while, at most every minute.
        let every = limits.idle_timeout.min(Duration::from_secs(60));
        let due = memory.swept.is_none_or(|at| at.elapsed() >= every);
        if due || memory.records.len() >= limits.max_sessions {
            memory.sweep(limits.idle_timeout);
        }
        let kept = if memory.records.len() >= limits.max_sessions {
            Err(StoreError::Full)
        } else {
            memory.records.insert(record.id.clone(), (record, Instant::now(), 0));
            Ok(())
        };
        Box::pin(std::future::ready(kept))
    }

    fn load<'a>(&'a self, id: &'a str, limits: SessionLimits) -> StoreFuture<'a, Option<SessionRecord>> {
        let found = lock(&self.inner).load(id, limits, |_| true);
        Box::pin(std::future::ready(Ok(found)))
    }

    fn load_for<'a>(
        &'a self,
        id: &'a str,
        owner: Option<&'a SessionOwner>,
        limits: SessionLimits,
    ) -> StoreFuture<'a, Option<SessionRecord>> {
        let found = lock(&self.inner).load(id, limits, |record| record.owner.as_ref() == owner);
        Box::pin(std::future::ready(Ok(found)))
    }

    /// The record only when its revision is not `seen`: every change to a
    /// session of this store goes through this process.
    fn touch<'a>(&'a self, id: &'a str, seen: Option<u64>, limits: SessionLimits) -> StoreFuture<'a, Touched> {
        let mut memory = lock(&self.inner);
        let now = Instant::now();
        let touched = match memory.records.get_mut(id) {
            Some((_, used, _)) if now.saturating_duration_since(*used) >= limits.idle_timeout => {
                memory.records.remove(id);
                Touched::Gone
            }
            Some((record, used, revision)) => {
                *used = now;
                if seen == Some(*revision) {
                    Touched::Unchanged
                } else {
                    Touched::Changed(Box::new(record.clone()), Some(*revision))
                }
            }
            None => Touched::Gone,
        };
        Box::pin(std::future::ready(Ok(touched)))
    }

    fn update<'a>(&'a self, id: &'a str, change: SessionChange) -> StoreFuture<'a, bool> {
        let applied = match lock(&self.inner).records.get_mut(id) {
            Some((record, _, revision)) => {
                record.apply(&change);
                *revision += 1;
                true
            }
            None => false,
        };
        Box::pin(std::future::ready(Ok(applied)))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let removed = lock(&self.inner).records.remove(id).is_some();
        Box::pin(std::future::ready(Ok(removed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::principal::Principal;

    fn now<T>(f: StoreFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(f).expect("the memory store never waits").expect("no failure")
    }

    #[test]
    fn a_stranger_loads_nothing_and_leaves_the_idle_clock_alone() {
        let store = MemorySessionStore::new();
        let limits = SessionLimits::new(8, Duration::from_secs(60));
        let alice = SessionOwner::of(&Principal::new("alice"));
        let mut record = SessionRecord::new("s", "2025-11-25");
        record.owner = Some(alice.clone());
        now(store.create(record.clone(), limits));
        let used = || lock(&store.inner).records["s"].1;
        // Long enough ago that a use now shows, however coarse the clock.
        let created = Instant::now() - Duration::from_secs(5);
        lock(&store.inner).records.get_mut("s").expect("kept").1 = created;

        let bob = SessionOwner::of(&Principal::new("bob"));
        for stranger in [Some(&bob), None] {
            assert_eq!(now(store.load_for("s", stranger, limits)), None);
            assert_eq!(used(), created, "a stranger's request is no use of the session");
        }
        let loaded = now(store.load_for("s", Some(&alice), limits));
        assert_eq!(loaded, Some(record));
        assert!(used() > created, "the owner's is");
    }

    #[test]
    fn a_touch_returns_the_record_only_when_it_changed_since_the_revision_seen() {
        let store = MemorySessionStore::new();
        let limits = SessionLimits::new(8, Duration::from_secs(60));
        now(store.create(SessionRecord::new("s", "2025-11-25"), limits));
        let Touched::Changed(record, Some(first)) = now(store.touch("s", None, limits)) else {
            panic!("a copy that knows no revision gets the record")
        };
        assert_eq!(record.id, "s");
        assert_eq!(now(store.touch("s", Some(first), limits)), Touched::Unchanged);
        assert!(now(store.update("s", SessionChange::Initialized)));
        let Touched::Changed(record, Some(second)) = now(store.touch("s", Some(first), limits)) else {
            panic!("a change is seen")
        };
        assert!(record.initialized && second != first);
        assert_eq!(now(store.touch("s", Some(second), limits)), Touched::Unchanged);
        assert!(now(store.remove("s")));
        assert_eq!(now(store.touch("s", Some(second), limits)), Touched::Gone);
    }

    #[test]
    fn a_record_from_before_owners_reads_as_having_none() {
        let stored = r#"{"id":"s","protocolVersion":"2025-11-25","initialized":true,"createdMs":1}"#;
        let record: SessionRecord = serde_json::from_str(stored).unwrap();
        assert_eq!(record.owner, None);
        let json = serde_json::to_value(&record).unwrap();
        assert!(json.get("owner").is_none(), "no owner, no field: {json}");
    }
}
