//! [`SqliteTaskStore`]: tasks in an SQLite file, so that they outlive the
//! process.
//!
//! One table, `mcp_tasks`: the record as JSON, its revision and its expiry
//! beside it, so that compare-and-set is one conditional `UPDATE` and the
//! expired are found by an index. The file is in WAL mode with SQLite's
//! default full sync: a task created is on disk when `create` returns.
//! Each operation runs on Tokio's blocking pool.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension as _, params};

use super::clock::now_ms;
use super::memory::quota_full;
use super::record::TaskRecord;
use super::store::{DEFAULT_MAX_TASKS_PER_QUOTA, TaskStore, TaskStoreError, TaskStoreFuture};
use crate::sync::lock;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS mcp_tasks (
    task_id TEXT PRIMARY KEY NOT NULL,
    record TEXT NOT NULL,
    revision INTEGER NOT NULL,
    expires_at_ms INTEGER
);
CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON mcp_tasks (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
";

/// The quota column, added to a table made before it had one.
const QUOTA: &str = "
ALTER TABLE mcp_tasks ADD COLUMN quota TEXT;
";

const QUOTA_INDEX: &str = "
CREATE INDEX IF NOT EXISTS mcp_tasks_quota ON mcp_tasks (quota) WHERE quota IS NOT NULL;
";

/// How many tasks the store holds at most unless told otherwise.
const DEFAULT_MAX_TASKS: usize = 100_000;

/// Tasks in an SQLite file: they survive a restart of the server.
///
/// A task that finished before the restart reads as it ended, result
/// included, until its time to live runs out. One that was running reads
/// `failed` ("the process running the task stopped") once the lease of the
/// process that ran it lapsed
/// ([`ServerBuilder::task_lease`](crate::ServerBuilder::task_lease), 30 s by
/// default): the handler itself does not come back.
///
/// ```no_run
/// use mcp_runtime::{Server, tasks::SqliteTaskStore};
///
/// let store = SqliteTaskStore::open("tasks.db")?;
/// let server = Server::builder("jobs", "1.0.0").task_store(store).build()?;
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Meant for one server process per file; replicas share tasks through
/// `RedisTaskStore` (feature `redis`) instead.
///
/// It holds at most 100,000 unexpired tasks ([`with_max_tasks`](Self::with_max_tasks)),
/// and at most [`DEFAULT_MAX_TASKS_PER_QUOTA`] of one caller
/// ([`with_max_tasks_per_quota`](Self::with_max_tasks_per_quota)): past
/// either, creating one fails until some expire.
#[derive(Clone)]
pub struct SqliteTaskStore {
    connection: Arc<Mutex<Connection>>,
    max_tasks: usize,
    max_per_quota: usize,
}

fn failed(e: impl fmt::Display) -> TaskStoreError {
    TaskStoreError(format!("SQLite: {e}"))
}

impl SqliteTaskStore {
    /// Opens (creating if need be) the database at `path` and its table.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TaskStoreError> {
        let connection = Connection::open(path).map_err(failed)?;
        Self::with_connection(connection)
    }

    /// Keeps tasks in `connection`'s database (one the application opened
    /// for its own data, say), creating the `mcp_tasks` table if need be.
    pub fn with_connection(connection: Connection) -> Result<Self, TaskStoreError> {
        // In memory, the journal mode stays `memory`: nothing to check.
        let _mode: String = connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)).map_err(failed)?;
        connection.busy_timeout(std::time::Duration::from_secs(5)).map_err(failed)?;
        connection.execute_batch(SCHEMA).map_err(failed)?;
        let has_quota: bool = connection
            .query_row("SELECT COUNT(*) FROM pragma_table_info('mcp_tasks') WHERE name = 'quota'", [], |row| row.get(0))
            .map_err(failed)?;
        if !has_quota {
            connection.execute_batch(QUOTA).map_err(failed)?;
        }
        connection.execute_batch(QUOTA_INDEX).map_err(failed)?;
        Ok(SqliteTaskStore {
            connection: Arc::new(Mutex::new(connection)),
            max_tasks: DEFAULT_MAX_TASKS,
            max_per_quota: DEFAULT_MAX_TASKS_PER_QUOTA,
        })
    }

    /// Holds at most `max_tasks` unexpired tasks (at least 1; default 100,000).
    pub fn with_max_tasks(mut self, max_tasks: usize) -> Self {
        self.max_tasks = max_tasks.max(1);
        self
    }

    /// Holds at most `max_tasks` unexpired tasks of one caller (at least 1;
    /// default [`DEFAULT_MAX_TASKS_PER_QUOTA`]; see [`TaskRecord::quota`]).
    pub fn with_max_tasks_per_quota(mut self, max_tasks: usize) -> Self {
        self.max_per_quota = max_tasks.max(1);
        self
    }

    /// Runs `work` on the connection, off the async workers.
    fn with<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, TaskStoreError> + Send + 'static,
    ) -> TaskStoreFuture<'_, T> {
        let connection = Arc::clone(&self.connection);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || work(&lock(&connection)))
                .await
                .map_err(|e| TaskStoreError(format!("an SQLite operation did not finish: {e}")))?
        })
    }
}

impl fmt::Debug for SqliteTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = lock(&self.connection).path().map(str::to_owned);
        f.debug_struct("SqliteTaskStore").field("path", &path).finish()
    }
}

/// A revision as SQLite's signed integer, the same bits.
fn signed(revision: u64) -> i64 {
    i64::from_ne_bytes(revision.to_ne_bytes())
}

fn saturated(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

fn json(record: &TaskRecord) -> Result<String, TaskStoreError> {
    serde_json::to_string(record).map_err(|e| TaskStoreError(format!("a task record did not serialize: {e}")))
}

impl TaskStore for SqliteTaskStore {
    fn create(&self, record: TaskRecord) -> TaskStoreFuture<'_, ()> {
        let (max_tasks, max_per_quota) = (self.max_tasks, self.max_per_quota);
        self.with(move |db| {
            let body = json(&record)?;
            let expires = record.expires_at_ms().map(saturated);
            // Counted and inserted in one write transaction: another process
            // on the file cannot slip a task in between.
            let transaction = rusqlite::Transaction::new_unchecked(db, rusqlite::TransactionBehavior::Immediate)
                .map_err(failed)?;
            let now = saturated(now_ms());
            let live = "(expires_at_ms IS NULL OR expires_at_ms > ?1)";
            let count = |sql: &str, quota: Option<&str>| -> Result<usize, TaskStoreError> {
                let counted: i64 = match quota {
                    Some(quota) => transaction.query_row(sql, params![now, quota], |row| row.get(0)),
                    None => transaction.query_row(sql, params![now], |row| row.get(0)),
                }
                .map_err(failed)?;
                Ok(usize::try_from(counted).unwrap_or(usize::MAX))
            };
            if count(&format!("SELECT COUNT(*) FROM mcp_tasks WHERE {live}"), None)? >= max_tasks {
                return Err(TaskStoreError(format!("the store holds its maximum of {max_tasks} tasks")));
            }
            if let Some(quota) = record.quota.as_deref() {
                let sql = format!("SELECT COUNT(*) FROM mcp_tasks WHERE quota = ?2 AND {live}");
                if count(&sql, Some(quota))? >= max_per_quota {
                    return Err(quota_full(max_per_quota));
                }
            }
            let inserted = transaction
                .execute(
                    "INSERT INTO mcp_tasks (task_id, record, revision, expires_at_ms, quota) VALUES (?1, ?2, ?3, ?4, ?5) \
                     ON CONFLICT (task_id) DO NOTHING",
                    params![record.task_id, body, signed(record.revision), expires, record.quota],
                )
                .map_err(failed)?;
            transaction.commit().map_err(failed)?;
            if inserted == 1 { Ok(()) } else { Err(TaskStoreError("a task with that id exists".into())) }
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, Option<TaskRecord>> {
        let task_id = task_id.to_owned();
        self.with(move |db| {
            let body: Option<String> = db
                .query_row("SELECT record FROM mcp_tasks WHERE task_id = ?1", [&task_id], |row| row.get(0))
                .optional()
                .map_err(failed)?;
            let Some(body) = body else { return Ok(None) };
            let record: TaskRecord = serde_json::from_str(&body)
                .map_err(|e| TaskStoreError(format!("the record of task `{task_id}` is not readable: {e}")))?;
            Ok(Some(record).filter(|r| !r.is_expired(now_ms())))
        })
    }

    fn compare_and_set(&self, expected_revision: u64, record: TaskRecord) -> TaskStoreFuture<'_, bool> {
        self.with(move |db| {
            let body = json(&record)?;
            let updated = db
                .execute(
                    "UPDATE mcp_tasks SET record = ?1, revision = ?2 WHERE task_id = ?3 AND revision = ?4",
                    params![body, signed(record.revision), record.task_id, signed(expected_revision)],
                )
                .map_err(failed)?;
            Ok(updated == 1)
        })
    }

    fn list_expired(&self, now_ms: u64, limit: usize) -> TaskStoreFuture<'_, Vec<String>> {
        self.with(move |db| {
            let mut query = db
                .prepare_cached("SELECT task_id FROM mcp_tasks WHERE expires_at_ms <= ?1 LIMIT ?2")
                .map_err(failed)?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let ids = query.query_map(params![saturated(now_ms), limit], |row| row.get(0)).map_err(failed)?;
            ids.collect::<Result<Vec<String>, _>>().map_err(failed)
        })
    }

    fn delete<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, ()> {
        let task_id = task_id.to_owned();
        self.with(move |db| {
            db.execute("DELETE FROM mcp_tasks WHERE task_id = ?1", [&task_id]).map_err(failed)?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn records_survive_reopening_and_are_replaced_only_at_the_expected_revision() {
        let dir = std::env::temp_dir().join(format!("mcp-sqlite-tasks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tasks.db");
        let _ = std::fs::remove_file(&path);
        let now = now_ms();
        {
            let store = SqliteTaskStore::open(&path).unwrap();
            store.create(TaskRecord::new("a", Some("ann".into()), now, Some(60_000), None)).await.unwrap();
            assert!(store.create(TaskRecord::new("a", None, now, None, None)).await.is_err());
            store.create(TaskRecord::new("old", None, 0, Some(1), None)).await.unwrap();
            let mut next = store.get("a").await.unwrap().unwrap();
            next.revision = 1;
            assert!(store.compare_and_set(0, next.clone()).await.unwrap());
            assert!(!store.compare_and_set(0, next).await.unwrap(), "a stale revision loses");
        }
        let store = SqliteTaskStore::open(&path).unwrap();
        let a = store.get("a").await.unwrap().unwrap();
        assert_eq!(a.quota.as_deref(), Some("ann"), "counted in its owner's quota");
        assert_eq!((a.revision, a.owner.as_deref()), (1, Some("ann")));
        assert_eq!(store.get("old").await.unwrap(), None, "expired reads as absent");
        assert_eq!(store.list_expired(now_ms(), 10).await.unwrap(), vec!["old".to_owned()]);
        store.delete("old").await.unwrap();
        assert!(store.list_expired(now_ms(), 10).await.unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn one_caller_cannot_fill_the_store_for_everyone() {
        let connection = Connection::open_in_memory().unwrap();
        // A table made before quotas: the column is added.
        connection.execute_batch(SCHEMA).unwrap();
        let store = SqliteTaskStore::with_connection(connection).unwrap().with_max_tasks(5).with_max_tasks_per_quota(2);
        let now = now_ms();
        let task =
            |id: &str, quota: &str| TaskRecord::new(id, None, now, Some(60_000), None).in_quota(Some(quota.into()));
        store.create(task("a1", "address:192.0.2.1")).await.unwrap();
        store.create(task("a2", "address:192.0.2.1")).await.unwrap();
        let refused = store.create(task("a3", "address:192.0.2.1")).await.unwrap_err();
        assert!(refused.0.contains("maximum of 2"), "{refused}");
        store.create(task("b1", "address:192.0.2.2")).await.expect("another caller has room");
        // An expired task makes room at once.
        store.create(TaskRecord::new("c0", None, 0, Some(1), None).in_quota(Some("c".into()))).await.unwrap();
        store.create(task("c1", "c")).await.unwrap();
        store.create(task("c2", "c")).await.expect("the expired one does not count");
        let full = store.create(TaskRecord::new("n", None, now, None, None)).await.unwrap_err();
        assert!(full.0.contains("maximum of 5"), "{full}");
        store.delete("a1").await.unwrap();
        store.create(task("a3", "address:192.0.2.1")).await.expect("room again");
    }
}
