//! The contract of `ProxyStore` (see its documentation), run against the
//! in-memory store, the SQLite one on a file of the test's own and the
//! Redis one on a `redis-server` of the test's own: values read back and
//! replaced, `put_new` refusing a live key, expiry, a value taken once of
//! sixteen concurrent takers, deletion. And, for Redis, where the records
//! are.
//!
//! The Redis tests need `redis-server` on the PATH, the key check
//! `redis-cli` too; without them they are reported as ignored (`build.rs`),
//! except under CI, where they fail.

use std::time::{Duration, Instant};

use mcp_runtime::oauth_proxy::{MemoryProxyStore, ProxyStore, SqliteProxyStore};
use mcp_runtime::redis::RedisProxyStore;

/// The time to live of the values meant to expire during the test.
const SHORT: Duration = Duration::from_millis(200);

/// How long a value with [`SHORT`] to live may take to read as expired: a
/// slow machine, not the store, is the reason to wait longer than `SHORT`.
const EXPIRY_DEADLINE: Duration = Duration::from_secs(10);

/// Waits until `key` reads as absent, polling; panics past the deadline.
async fn until_expired(store: &dyn ProxyStore, key: &str) {
    let start = Instant::now();
    while store.get(key).await.expect("read").is_some() {
        assert!(start.elapsed() < EXPIRY_DEADLINE, "`{key}` still there {EXPIRY_DEADLINE:?} after it was to expire");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn contract(store: &dyn ProxyStore) {
    // Read back, replaced.
    assert_eq!(store.get("client:a").await.expect("read"), None);
    store.put("client:a", "one", None).await.expect("stored");
    assert_eq!(store.get("client:a").await.expect("read").as_deref(), Some("one"));
    store.put("client:a", "two", None).await.expect("replaced");
    assert_eq!(store.get("client:a").await.expect("read").as_deref(), Some("two"));

    // `put_new` refuses a live key, with or without a time to live, and
    // stores once it expired.
    assert!(!store.put_new("client:a", "three", None).await.expect("answered"), "a live key is refused");
    assert_eq!(store.get("client:a").await.expect("read").as_deref(), Some("two"), "and kept");
    assert!(store.put_new("key", "first", Some(SHORT)).await.expect("answered"), "an absent key is stored");
    assert!(!store.put_new("key", "second", None).await.expect("answered"), "refused while live");
    // A value that expires, replaced by one that does not.
    store.put("kept", "soon gone", Some(SHORT)).await.expect("stored");
    store.put("kept", "for good", None).await.expect("replaced");
    store.put("short", "v", Some(SHORT)).await.expect("stored");
    until_expired(store, "key").await;
    until_expired(store, "short").await;
    assert_eq!(store.take("short").await.expect("answered"), None, "an expired value is not taken");
    assert!(store.put_new("key", "third", None).await.expect("answered"), "stored once the first expired");
    assert_eq!(store.get("key").await.expect("read").as_deref(), Some("third"));

    // No time to live: still there after the short ones expired.
    assert_eq!(store.get("client:a").await.expect("read").as_deref(), Some("two"));
    assert_eq!(store.get("kept").await.expect("read").as_deref(), Some("for good"), "the replacement lost the ttl");

    // Taken once.
    store.put("code:x", "grant", Some(Duration::from_secs(60))).await.expect("stored");
    assert_eq!(store.take("code:x").await.expect("taken").as_deref(), Some("grant"));
    assert_eq!(store.take("code:x").await.expect("answered"), None, "taken already");
    assert_eq!(store.get("code:x").await.expect("read"), None);

    // Of sixteen concurrent takers, one gets it; several rounds, for the
    // interleavings.
    for round in 0..8 {
        let key = format!("refresh:{round}");
        store.put(&key, "grant", Some(Duration::from_secs(60))).await.expect("stored");
        let taken = futures_util::future::join_all((0..16).map(|_| store.take(&key))).await;
        let taken: Vec<Option<String>> = taken.into_iter().map(|t| t.expect("answered")).collect();
        let got: Vec<&String> = taken.iter().flatten().collect();
        assert_eq!(got, [&"grant".to_owned()], "round {round}: one taker of sixteen gets it: {taken:?}");
    }

    // Of sixteen replicas starting together, one stores its signing key,
    // and all then read that one.
    let stored = futures_util::future::join_all(
        (0..16).map(|i| async move { (i, store.put_new("signing-key", &format!("key {i}"), None).await) }),
    )
    .await;
    let winners: Vec<usize> = stored.into_iter().filter_map(|(i, put)| put.expect("answered").then_some(i)).collect();
    assert_eq!(winners.len(), 1, "one put_new of sixteen stores: {winners:?}");
    let kept = store.get("signing-key").await.expect("read");
    assert_eq!(kept, Some(format!("key {}", winners[0])), "the one stored is the one kept");

    // Deleted.
    store.put("gone", "v", None).await.expect("stored");
    store.delete("gone").await.expect("deleted");
    assert_eq!(store.get("gone").await.expect("read"), None);
    assert_eq!(store.take("gone").await.expect("answered"), None);
    store.delete("gone").await.expect("deleting nothing is no error");
    assert!(store.put_new("gone", "again", None).await.expect("answered"), "a deleted key is free");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_memory_store_keeps_the_contract() {
    contract(&MemoryProxyStore::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_store_keeps_the_contract_and_the_records() {
    let dir = std::env::temp_dir().join(format!("mcp-oauth-proxy-contract-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    let path = dir.join("proxy.db");
    contract(&SqliteProxyStore::open(&path).expect("opened")).await;
    let reopened = SqliteProxyStore::open(&path).expect("opened again");
    assert_eq!(reopened.get("kept").await.expect("read").as_deref(), Some("for good"), "kept in the file");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_store_keeps_the_contract_and_shares_the_records() {
    let redis = mcp_tests::redis::start().await;
    let one = RedisProxyStore::connect(&redis.url, "mcp:contract").await.expect("connected");
    contract(&one).await;
    let two = RedisProxyStore::connect(&redis.url, "mcp:contract").await.expect("connected");
    assert_eq!(
        two.get("kept").await.expect("read").as_deref(),
        Some("for good"),
        "stored through one, read through two"
    );
    let other = RedisProxyStore::connect(&redis.url, "mcp:other").await.expect("connected");
    assert_eq!(other.get("kept").await.expect("read"), None, "prefixes keep servers apart");
    drop(redis);
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[cfg_attr(no_redis_cli, ignore = "redis-cli is not on PATH: apt-get install redis-tools")]
#[tokio::test]
async fn the_redis_store_keeps_its_records_under_its_prefix_with_their_ttl() {
    let redis = mcp_tests::redis::start().await;
    let cli = async |args: &[&str]| mcp_tests::redis_cluster::cli(redis.port, args).await.trim().to_owned();
    let store = RedisProxyStore::connect(&redis.url, "notes").await.expect("connected");
    assert!(format!("{store:?}").contains("notes"), "{store:?}");
    store.put("client:abc", "{}", Some(Duration::from_secs(3600))).await.expect("stored");
    store.put("signing-key", "k", None).await.expect("stored");
    store.put("now", "v", Some(Duration::ZERO)).await.expect("a zero ttl is taken as a millisecond");

    let mut keys: Vec<String> = cli(&["KEYS", "*"]).await.lines().map(str::to_owned).collect();
    keys.sort();
    // `now` may have expired already.
    keys.retain(|key| key != "notes:oauth:now");
    assert_eq!(keys, ["notes:oauth:client:abc", "notes:oauth:signing-key"]);
    assert_eq!(cli(&["GET", "notes:oauth:client:abc"]).await, "{}");
    let ttl: i64 = cli(&["PTTL", "notes:oauth:client:abc"]).await.parse().expect("a number");
    assert!((3_500_000..=3_600_000).contains(&ttl), "PTTL {ttl}");
    assert_eq!(cli(&["PTTL", "notes:oauth:signing-key"]).await, "-1", "no expiry");
    assert_eq!(store.take("client:abc").await.expect("taken").as_deref(), Some("{}"));
    assert_eq!(cli(&["EXISTS", "notes:oauth:client:abc"]).await, "0");
}
