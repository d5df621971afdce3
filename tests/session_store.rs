//! The contract of `SessionStore` (see its documentation), run against the
//! in-memory store and against the Redis one on a `redis-server` of the
//! test's own; and, for the Redis one, the delivery of messages between
//! replicas.

use std::time::{Duration, Instant};

use mcp_runtime::protocol::LoggingLevel;
use mcp_runtime::redis::RedisSessionStore;
use mcp_runtime::session::{
    MemorySessionStore, SessionChange, SessionLimits, SessionRecord, SessionStore, StoreError, Touched,
};
use serde_json::json;

/// The idle timeout of the stores under test: the idle part of the
/// contract takes as long.
const IDLE: Duration = Duration::from_secs(1);

fn record(id: &str) -> SessionRecord {
    let mut record = SessionRecord::new(id, "2025-11-25");
    record.client_capabilities = serde_json::from_value(json!({"elicitation": {}, "roots": {}})).expect("capabilities");
    record.client_info = Some(serde_json::from_value(json!({"name": "test", "version": "1.0.0"})).expect("info"));
    record
}

async fn contract(store: &dyn SessionStore) {
    let limits = SessionLimits::new(2, IDLE);
    let mut a = record("a");
    store.create(a.clone(), limits).await.expect("created");
    assert_eq!(store.load("a", limits).await.expect("loaded"), Some(a.clone()), "kept as given");

    for change in [
        SessionChange::LogLevel { level: LoggingLevel::Debug },
        SessionChange::Subscribe { uri: "mem://one".into() },
        SessionChange::Subscribe { uri: "mem://two".into() },
        SessionChange::Unsubscribe { uri: "mem://one".into() },
    ] {
        assert!(store.update("a", change.clone()).await.expect("updated"));
        a.apply(&change);
    }
    assert_eq!(store.load("a", limits).await.expect("loaded"), Some(a.clone()), "changes applied");

    // A touch returns the record only when it changed since the revision
    // seen (or, from a store that keeps no revisions, every time).
    let Touched::Changed(touched, seen) = store.touch("a", None, limits).await.expect("touched") else {
        panic!("a copy that knows no revision gets the record");
    };
    assert_eq!(*touched, a);
    if let Some(seen) = seen {
        assert_eq!(store.touch("a", Some(seen), limits).await.expect("touched"), Touched::Unchanged);
        let change = SessionChange::LogLevel { level: LoggingLevel::Error };
        assert!(store.update("a", change.clone()).await.expect("updated"));
        a.apply(&change);
        let Touched::Changed(touched, Some(next)) = store.touch("a", Some(seen), limits).await.expect("touched") else {
            panic!("a change since the revision seen is read");
        };
        assert_eq!((*touched, next != seen), (a.clone(), true));
    }
    assert_eq!(store.touch("nobody", None, limits).await.expect("touched"), Touched::Gone);
    assert!(!store.update("nobody", SessionChange::LogLevel { level: LoggingLevel::Info }).await.expect("answered"));

    // The cap: no live session is evicted for a new one.
    store.create(record("b"), limits).await.expect("a second");
    assert!(matches!(store.create(record("c"), limits).await, Err(StoreError::Full)), "beyond the cap");
    let mut a_used = Instant::now();
    assert!(store.load("a", limits).await.expect("loaded").is_some());

    // Removal ends the session, for good, and makes room.
    assert!(store.remove("b").await.expect("removed"));
    assert!(!store.remove("b").await.expect("answered"), "removed once");
    assert_eq!(store.load("b", limits).await.expect("answered"), None);
    assert!(!store.update("b", SessionChange::Subscribe { uri: "mem://x".into() }).await.expect("answered"));
    assert_eq!(store.load("b", limits).await.expect("answered"), None, "an update does not bring it back");
    store.create(record("c"), limits).await.expect("room made by the removal");
    let c_idle_since = Instant::now();

    // Loading counts as use: `a`, loaded again and again, outlives `c`,
    // which nothing loads. Expiry goes by the clock, so the test waits for
    // the clock: until `c` has been idle for the whole timeout (and 2 ms
    // more: Redis counts whole milliseconds, and ends a key only after its
    // last one), `a` is loaded several times a timeout, as by a client in
    // session.
    let c_expired = c_idle_since + IDLE + Duration::from_millis(2);
    let mut use_a = tokio::time::interval(IDLE / 8);
    while Instant::now() < c_expired {
        use_a.tick().await;
        let loading = Instant::now();
        let loaded = store.load("a", limits).await.expect("loaded");
        // The longest the store can have seen `a` idle: from the start of
        // the load before to the end of this one.
        let idle = a_used.elapsed();
        assert!(loaded.is_some() || idle >= IDLE, "a session in use lives on, yet expired idle for at most {idle:?}");
        assert!(loaded.is_some(), "the test was held up for {idle:?}, past the idle timeout: nothing can be concluded");
        a_used = loading;
    }
    assert_eq!(store.load("c", limits).await.expect("answered"), None, "an idle session expired");
    assert!(!store.update("c", SessionChange::Subscribe { uri: "mem://x".into() }).await.expect("answered"));
    store.create(record("d"), limits).await.expect("room made by the expiry");
    assert!(store.load("a", limits).await.expect("loaded").is_some());
}

#[tokio::test]
async fn the_memory_store_keeps_the_contract_and_shares_nothing() {
    let store = MemorySessionStore::new();
    contract(&store).await;
    assert!(store.replica_id().is_none());
    assert!(store.subscribe().is_none());
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test]
async fn the_redis_store_keeps_the_contract_and_carries_messages_between_replicas() {
    let redis = mcp_tests::redis::start().await;
    let one = RedisSessionStore::connect(&redis.url, "mcp:contract").await.expect("connected");
    contract(&one).await;

    let two = RedisSessionStore::connect(&redis.url, "mcp:contract").await.expect("connected");
    let limits = SessionLimits::new(10, IDLE);
    assert!(two.load("a", limits).await.expect("loaded").is_some(), "a record made through one, read through two");
    let other = RedisSessionStore::connect(&redis.url, "mcp:other").await.expect("connected");
    assert_eq!(other.load("a", limits).await.expect("answered"), None, "prefixes keep servers apart");

    let (here, there) = (one.replica_id().expect("an id"), two.replica_id().expect("an id"));
    assert_ne!(here, there);
    assert!(!here.contains(':'));
    let (mut to_one, mut to_two) = (one.subscribe().expect("messages"), two.subscribe().expect("messages"));
    one.publish(Some(there), "for two".to_owned()).await.expect("published");
    one.publish(None, "for all".to_owned()).await.expect("published");
    let next = async |rx: &mut tokio::sync::broadcast::Receiver<String>| {
        tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.expect("a message in time").expect("open")
    };
    assert_eq!(next(&mut to_two).await, "for two");
    assert_eq!(next(&mut to_two).await, "for all");
    assert_eq!(next(&mut to_one).await, "for all", "one got nothing meant for two alone");
    drop(redis);
}
