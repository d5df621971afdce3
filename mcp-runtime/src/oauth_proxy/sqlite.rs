//! [`SqliteProxyStore`]: the OAuth front's records in an SQLite file, so
//! that registered clients, refresh tokens and the signing key outlive a
//! restart.
//!
//! One table, `mcp_oauth_proxy`: the value and its expiry beside it, in
//! milliseconds of the wall clock (the file outlives the process, an
//! `Instant` would not). Expired rows read as absent to every operation;
//! each `put` deletes a few of them by an index, and a store that finds
//! itself full deletes all of them before it refuses anything. The file is
//! in WAL mode with SQLite's default full sync, and each operation runs on
//! Tokio's blocking pool.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension as _, TransactionBehavior, params};

use super::store::{ProxyStore, StoreError};
use crate::handler::BoxFuture;
use crate::sync::lock;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS mcp_oauth_proxy (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL,
    expires_at_ms INTEGER
);
CREATE INDEX IF NOT EXISTS mcp_oauth_proxy_expiry ON mcp_oauth_proxy (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
";

/// How many rows the store holds unless told otherwise.
const DEFAULT_CAPACITY: usize = 1_000_000;

/// How many expired rows one write deletes on its way: enough to keep up
/// with the rows that expire, few enough that no write waits on a sweep.
const SWEEP: i64 = 100;

/// The front's records in an SQLite file: they survive a restart, so
/// clients stay registered, refresh tokens stay valid and tokens already
/// issued stay verifiable (the signing key is among the records).
///
/// ```no_run
/// use std::time::Duration;
///
/// use mcp_runtime::oauth_proxy::{ProxyStore, SqliteProxyStore};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = SqliteProxyStore::open("oauth.db")?;
/// store.put("client:abc", "{}", Some(Duration::from_secs(3600))).await?;
/// # Ok(())
/// # }
/// ```
///
/// Meant for one server process per file. Several processes on one file
/// still agree, since [`take`](ProxyStore::take) is one statement and
/// [`put_new`](ProxyStore::put_new) one write transaction, but each then
/// counts the table again before storing a new key; replicas on several
/// machines share a `redis::RedisProxyStore` (feature `redis`) instead.
///
/// Expiry follows the wall clock: a clock set back keeps records longer.
/// The store holds at most 1,000,000 unexpired records
/// ([`with_capacity`](Self::with_capacity)): past that, a new key is refused
/// (the request gets 503) rather than a record in use forgotten.
#[derive(Clone)]
pub struct SqliteProxyStore {
    db: Arc<Mutex<Database>>,
    capacity: usize,
}

/// The connection, and how many rows the table has as far as it knows.
struct Database {
    connection: Connection,
    /// The rows of the table as this connection left them: counting them
    /// takes a pass over the table, too slow under the write lock for every
    /// new key of a table of a million. `None` until counted, and after a
    /// failure that may have left it wrong.
    rows: Option<Rows>,
}

/// A number of rows, true while the file's `data_version` is `version`:
/// SQLite changes that number when another connection commits, not when
/// this one does.
#[derive(Clone, Copy)]
struct Rows {
    count: usize,
    version: i64,
}

/// The rows as counted before, if no other connection wrote the file
/// since; taken out, so that a failure before they are put back leaves none.
fn known(rows: &mut Option<Rows>, version: i64) -> Option<usize> {
    rows.take().filter(|rows| rows.version == version).map(|rows| rows.count)
}

fn data_version(db: &Connection) -> Result<i64, StoreError> {
    db.query_row("PRAGMA data_version", [], |row| row.get(0)).map_err(failed)
}

fn count_rows(db: &Connection) -> Result<usize, StoreError> {
    let counted: i64 = db.query_row("SELECT COUNT(*) FROM mcp_oauth_proxy", [], |row| row.get(0)).map_err(failed)?;
    Ok(usize::try_from(counted).unwrap_or(usize::MAX))
}

fn failed(e: impl fmt::Display) -> StoreError {
    StoreError(format!("SQLite: {e}"))
}

/// Milliseconds since the Unix epoch, now, as SQLite's integer.
fn now_ms() -> i64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// When a record stored now for `ttl` expires; a part of a millisecond
/// counts as a whole one, so that a short time to live is not cut to none.
fn expiry(now: i64, ttl: Option<Duration>) -> Option<i64> {
    let ttl = ttl?;
    let ms = ttl.as_millis() + u128::from(ttl.subsec_nanos() % 1_000_000 != 0);
    Some(now.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX)))
}

impl SqliteProxyStore {
    /// Opens (creating if need be) the database at `path` and its table.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let connection = Connection::open(path).map_err(failed)?;
        // In memory, the journal mode stays `memory`: nothing to check.
        let _mode: String = connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)).map_err(failed)?;
        // Another process writing the file holds its lock briefly.
        connection.busy_timeout(Duration::from_secs(5)).map_err(failed)?;
        connection.execute_batch(SCHEMA).map_err(failed)?;
        let db = Database { connection, rows: None };
        Ok(SqliteProxyStore { db: Arc::new(Mutex::new(db)), capacity: DEFAULT_CAPACITY })
    }

    /// Holds at most `capacity` unexpired records (at least 1; default
    /// 1,000,000).
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// Runs `work` on the connection, off the async workers.
    fn with<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Database) -> Result<T, StoreError> + Send + 'static,
    ) -> BoxFuture<'_, Result<T, StoreError>> {
        let db = Arc::clone(&self.db);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || work(&mut lock(&db)))
                .await
                .map_err(|e| StoreError(format!("an SQLite operation did not finish: {e}")))?
        })
    }

    /// Stores `value` under `key` (unless `only_new` and an unexpired value
    /// is there): `Ok(true)` when stored.
    fn insert(
        &self,
        key: &str,
        value: &str,
        ttl: Option<Duration>,
        only_new: bool,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let (key, value, capacity) = (key.to_owned(), value.to_owned(), self.capacity);
        self.with(move |db| {
            // Read, counted and written in one write transaction: another
            // process on the file cannot store the key, or fill the table,
            // in between.
            let transaction =
                rusqlite::Transaction::new_unchecked(&db.connection, TransactionBehavior::Immediate).map_err(failed)?;
            let version = data_version(&transaction)?;
            let mut rows = known(&mut db.rows, version);
            let now = now_ms();
            let swept = transaction
                .execute(
                    "DELETE FROM mcp_oauth_proxy WHERE rowid IN \
                     (SELECT rowid FROM mcp_oauth_proxy WHERE expires_at_ms <= ?1 LIMIT ?2)",
                    params![now, SWEEP],
                )
                .map_err(failed)?;
            rows = rows.map(|count| count.saturating_sub(swept));
            let there: Option<Option<i64>> = transaction
                .query_row("SELECT expires_at_ms FROM mcp_oauth_proxy WHERE key = ?1", [&key], |row| row.get(0))
                .optional()
                .map_err(failed)?;
            let stored = match there {
                Some(until) if only_new && until.is_none_or(|until| until > now) => false,
                // A row replaced, live or expired, takes no more room.
                Some(_) => true,
                None => {
                    let mut count = match rows {
                        Some(count) => count,
                        None => count_rows(&transaction)?,
                    };
                    if count >= capacity {
                        // Full, perhaps of the expired: all of them go before
                        // a new key is refused (by the index, so a table
                        // full of live records is not read through).
                        let deleted = transaction
                            .execute("DELETE FROM mcp_oauth_proxy WHERE expires_at_ms <= ?1", [now])
                            .map_err(failed)?;
                        count = count.saturating_sub(deleted);
                    }
                    if count >= capacity {
                        transaction.commit().map_err(failed)?;
                        db.rows = Some(Rows { count, version });
                        return Err(StoreError(format!("full: {capacity} records")));
                    }
                    rows = Some(count + 1);
                    true
                }
            };
            if stored {
                transaction
                    .execute(
                        "INSERT INTO mcp_oauth_proxy (key, value, expires_at_ms) VALUES (?1, ?2, ?3) \
                         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at_ms = excluded.expires_at_ms",
                        params![key, value, expiry(now, ttl)],
                    )
                    .map_err(failed)?;
            }
            transaction.commit().map_err(failed)?;
            db.rows = rows.map(|count| Rows { count, version });
            Ok(stored)
        })
    }

    /// Runs `delete`, a statement that deletes at most the row of one key,
    /// and returns what `read` makes of the row it returned, if any.
    fn remove<T: Send + 'static>(
        &self,
        key: &str,
        delete: &'static str,
        read: fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> BoxFuture<'_, Result<Option<T>, StoreError>> {
        let key = key.to_owned();
        self.with(move |db| {
            // Another connection's commit after this reading changes the
            // version again, and the count kept is dropped at the next use.
            let version = data_version(&db.connection)?;
            let rows = known(&mut db.rows, version);
            let removed = db.connection.query_row(delete, [&key], read).optional().map_err(failed)?;
            let gone = usize::from(removed.is_some());
            db.rows = rows.map(|count| Rows { count: count.saturating_sub(gone), version });
            Ok(removed)
        })
    }
}

impl fmt::Debug for SqliteProxyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = lock(&self.db).connection.path().map(str::to_owned);
        f.debug_struct("SqliteProxyStore").field("path", &path).field("capacity", &self.capacity).finish()
    }
}

impl ProxyStore for SqliteProxyStore {
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>> {
        let inserted = self.insert(key, value, ttl, false);
        Box::pin(async move { inserted.await.map(drop) })
    }

    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.insert(key, value, ttl, true)
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        let key = key.to_owned();
        self.with(move |db| {
            db.connection
                .query_row(
                    "SELECT value FROM mcp_oauth_proxy WHERE key = ?1 AND (expires_at_ms IS NULL OR expires_at_ms > ?2)",
                    params![key, now_ms()],
                    |row| row.get(0),
                )
                .optional()
                .map_err(failed)
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        // One statement, so one taker of all those on the file deletes the
        // row and reads it; an expired row goes too, unread.
        let taken =
            self.remove(key, "DELETE FROM mcp_oauth_proxy WHERE key = ?1 RETURNING value, expires_at_ms", |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, Option<i64>>(1)?))
            });
        Box::pin(async move {
            let now = now_ms();
            Ok(taken.await?.filter(|(_, until)| until.is_none_or(|until| until > now)).map(|(value, _)| value))
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let deleted = self.remove(key, "DELETE FROM mcp_oauth_proxy WHERE key = ?1 RETURNING 1", |_| Ok(()));
        Box::pin(async move { deleted.await.map(drop) })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// A folder of one test's own, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(test: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("mcp-oauth-proxy-{}-{test}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn db(&self) -> PathBuf {
            self.0.join("proxy.db")
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// How many rows the file holds, expired or not.
    fn rows(store: &SqliteProxyStore) -> usize {
        count_rows(&lock(&store.db).connection).unwrap()
    }

    /// Stores `key` as if it had expired a second ago (behind the store's
    /// back: the count it kept is dropped).
    fn expired(store: &SqliteProxyStore, key: &str) {
        let mut db = lock(&store.db);
        db.rows = None;
        db.connection
            .execute(
                "INSERT OR REPLACE INTO mcp_oauth_proxy (key, value, expires_at_ms) VALUES (?1, 'old', ?2)",
                params![key, now_ms() - 1000],
            )
            .unwrap();
    }

    #[tokio::test]
    async fn a_value_is_read_back_and_replaced() {
        let scratch = Scratch::new("replace");
        let store = SqliteProxyStore::open(scratch.db()).unwrap();
        assert_eq!(store.get("a").await.unwrap(), None);
        store.put("a", "1", None).await.unwrap();
        assert_eq!(store.get("a").await.unwrap().as_deref(), Some("1"));
        store.put("a", "2", Some(Duration::from_secs(60))).await.unwrap();
        assert_eq!(store.get("a").await.unwrap().as_deref(), Some("2"));
        store.put("a", "3", None).await.unwrap();
        let until: Option<i64> = lock(&store.db)
            .connection
            .query_row("SELECT expires_at_ms FROM mcp_oauth_proxy WHERE key = 'a'", [], |row| row.get(0))
            .unwrap();
        assert_eq!(until, None, "a value put without a time to live lives until deleted");
        assert_eq!(rows(&store), 1);
        assert!(format!("{store:?}").contains("proxy.db"), "{store:?}");
    }

    #[tokio::test]
    async fn put_new_refuses_a_live_key_and_takes_an_expired_one() {
        let scratch = Scratch::new("put-new");
        let store = SqliteProxyStore::open(scratch.db()).unwrap();
        assert!(store.put_new("k", "1", Some(Duration::from_secs(60))).await.unwrap());
        assert!(!store.put_new("k", "2", None).await.unwrap());
        assert_eq!(store.get("k").await.unwrap().as_deref(), Some("1"), "the first value stays");
        expired(&store, "k");
        assert!(store.put_new("k", "3", None).await.unwrap(), "an expired value is no value");
        assert_eq!(store.get("k").await.unwrap().as_deref(), Some("3"));
    }

    #[tokio::test]
    async fn expired_rows_are_invisible_and_swept() {
        let scratch = Scratch::new("expiry");
        let store = SqliteProxyStore::open(scratch.db()).unwrap();
        store.put("now", "1", Some(Duration::ZERO)).await.unwrap();
        assert_eq!(store.get("now").await.unwrap(), None, "expired at once");
        store.put("soon", "1", Some(Duration::from_millis(50))).await.unwrap();
        assert_eq!(store.get("soon").await.unwrap().as_deref(), Some("1"));
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(store.get("soon").await.unwrap(), None);
        for key in ["a", "b", "c"] {
            expired(&store, key);
        }
        assert_eq!(store.get("a").await.unwrap(), None);
        assert_eq!(store.take("a").await.unwrap(), None, "an expired value is not taken");
        // `now` went with the sweep of the write of `soon`, `a` with the take.
        assert_eq!(rows(&store), 3, "the take removed the expired row");
        store.put("live", "1", None).await.unwrap();
        assert_eq!(rows(&store), 1, "a write swept the expired rows");
        assert_eq!(store.get("live").await.unwrap().as_deref(), Some("1"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_value_is_taken_once_of_all_takers_on_the_file() {
        let scratch = Scratch::new("take");
        let (one, two) = (SqliteProxyStore::open(scratch.db()).unwrap(), SqliteProxyStore::open(scratch.db()).unwrap());
        one.put("code", "v", None).await.unwrap();
        assert_eq!(one.take("code").await.unwrap().as_deref(), Some("v"));
        assert_eq!(one.take("code").await.unwrap(), None);
        assert_eq!(two.get("code").await.unwrap(), None);
        // Two connections to the file, as two processes would have.
        for round in 0..20 {
            let key = format!("code-{round}");
            one.put(&key, "v", Some(Duration::from_secs(60))).await.unwrap();
            let (a, b) = tokio::join!(
                tokio::spawn({
                    let (one, key) = (one.clone(), key.clone());
                    async move { one.take(&key).await.unwrap() }
                }),
                tokio::spawn({
                    let (two, key) = (two.clone(), key.clone());
                    async move { two.take(&key).await.unwrap() }
                }),
            );
            let taken = [a.unwrap(), b.unwrap()];
            assert_eq!(taken.iter().flatten().count(), 1, "round {round}: {taken:?}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_new_key_is_put_once_of_all_writers_on_the_file() {
        let scratch = Scratch::new("put-new-race");
        let (one, two) = (SqliteProxyStore::open(scratch.db()).unwrap(), SqliteProxyStore::open(scratch.db()).unwrap());
        for round in 0..20 {
            let key = format!("key-{round}");
            let (a, b) = tokio::join!(
                tokio::spawn({
                    let (one, key) = (one.clone(), key.clone());
                    async move { one.put_new(&key, "one", None).await.unwrap() }
                }),
                tokio::spawn({
                    let (two, key) = (two.clone(), key.clone());
                    async move { two.put_new(&key, "two", None).await.unwrap() }
                }),
            );
            let (a, b) = (a.unwrap(), b.unwrap());
            assert!(a != b, "round {round}: one of the two stores ({a}, {b})");
            let kept = one.get(&key).await.unwrap();
            assert_eq!(kept.as_deref(), Some(if a { "one" } else { "two" }), "round {round}");
        }
    }

    #[tokio::test]
    async fn a_deleted_value_is_gone() {
        let scratch = Scratch::new("delete");
        let store = SqliteProxyStore::open(scratch.db()).unwrap();
        store.put("a", "1", None).await.unwrap();
        store.delete("a").await.unwrap();
        assert_eq!(store.get("a").await.unwrap(), None);
        store.delete("a").await.expect("deleting nothing is no error");
        assert_eq!(rows(&store), 0);
    }

    #[tokio::test]
    async fn a_full_store_refuses_new_keys_until_some_expire() {
        let scratch = Scratch::new("capacity");
        let store = SqliteProxyStore::open(scratch.db()).unwrap().with_capacity(2);
        store.put("a", "1", None).await.unwrap();
        store.put("b", "1", Some(Duration::from_secs(60))).await.unwrap();
        let full = store.put("c", "1", None).await.unwrap_err();
        assert!(full.0.contains("full: 2 records"), "{full}");
        assert!(store.put_new("c", "1", None).await.is_err());
        store.put("b", "2", None).await.expect("replacing takes no room");
        assert!(!store.put_new("a", "2", None).await.unwrap(), "a live key is refused before any count");
        expired(&store, "b");
        store.put_new("c", "1", None).await.expect("the expired row made room");
        assert_eq!(store.get("b").await.unwrap(), None);
        assert!(store.put("d", "1", None).await.is_err());
        store.delete("a").await.unwrap();
        store.put("d", "1", None).await.expect("room again");
    }

    /// Whether the count `store` kept, if any and if still current, is the
    /// table's.
    fn kept_count_holds(store: &SqliteProxyStore) -> bool {
        let db = lock(&store.db);
        let Some(rows) = db.rows else { return true };
        data_version(&db.connection).unwrap() != rows.version || rows.count == count_rows(&db.connection).unwrap()
    }

    #[tokio::test]
    async fn the_count_kept_follows_the_writes_of_every_connection() {
        let scratch = Scratch::new("count");
        let one = SqliteProxyStore::open(scratch.db()).unwrap().with_capacity(4);
        let two = SqliteProxyStore::open(scratch.db()).unwrap();
        one.put("a", "1", None).await.unwrap();
        assert!(lock(&one.db).rows.is_some(), "counted once, then kept");
        two.put("b", "1", None).await.unwrap();
        two.put("c", "1", Some(Duration::from_secs(60))).await.unwrap();
        one.put("d", "1", None).await.unwrap();
        assert!(kept_count_holds(&one));
        let full = one.put("e", "1", None).await.unwrap_err();
        assert!(full.0.contains("full: 4"), "the rows another connection stored count: {full}");
        two.take("b").await.unwrap();
        one.put("e", "1", Some(Duration::ZERO)).await.expect("the row another connection took made room");
        assert!(kept_count_holds(&one));
        for (i, store) in [&one, &two, &one, &one, &two, &one].into_iter().enumerate() {
            let key = format!("k{i}");
            let _ = store.put(&key, "v", Some(Duration::from_millis(1))).await;
            let _ = store.put_new(&key, "v", None).await;
            let _ = store.take("a").await;
            let _ = store.delete(&key).await;
            let _ = store.put_new("a", "v", None).await;
            assert!(kept_count_holds(&one), "step {i}");
            assert!(kept_count_holds(&two), "step {i}");
        }
    }

    #[tokio::test]
    async fn records_survive_reopening_the_file() {
        let scratch = Scratch::new("reopen");
        {
            let store = SqliteProxyStore::open(scratch.db()).unwrap();
            store.put("key", "signing key", None).await.unwrap();
            store.put("refresh:x", "grant", Some(Duration::from_secs(3600))).await.unwrap();
            store.put("gone", "1", Some(Duration::ZERO)).await.unwrap();
        }
        let store = SqliteProxyStore::open(scratch.db()).unwrap();
        assert_eq!(store.get("key").await.unwrap().as_deref(), Some("signing key"));
        assert_eq!(store.take("refresh:x").await.unwrap().as_deref(), Some("grant"));
        assert_eq!(store.get("gone").await.unwrap(), None);
    }
}
