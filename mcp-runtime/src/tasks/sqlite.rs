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
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension as _, params};

use super::clock::now_ms;
use super::record::TaskRecord;
use super::store::{TaskStore, TaskStoreError, TaskStoreFuture};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS mcp_tasks (
    task_id TEXT PRIMARY KEY NOT NULL,
    record TEXT NOT NULL,
    revision INTEGER NOT NULL,
    expires_at_ms INTEGER
);
CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON mcp_tasks (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
";

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
#[derive(Clone)]
pub struct SqliteTaskStore {
    connection: Arc<Mutex<Connection>>,
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
        Ok(SqliteTaskStore { connection: Arc::new(Mutex::new(connection)) })
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

fn lock(connection: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    connection.lock().unwrap_or_else(|e| e.into_inner())
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
        self.with(move |db| {
            let body = json(&record)?;
            let expires = record.expires_at_ms().map(saturated);
            let inserted = db
                .execute(
                    "INSERT INTO mcp_tasks (task_id, record, revision, expires_at_ms) VALUES (?1, ?2, ?3, ?4) \
                     ON CONFLICT (task_id) DO NOTHING",
                    params![record.task_id, body, signed(record.revision), expires],
                )
                .map_err(failed)?;
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
        assert_eq!((a.revision, a.owner.as_deref()), (1, Some("ann")));
        assert_eq!(store.get("old").await.unwrap(), None, "expired reads as absent");
        assert_eq!(store.list_expired(now_ms(), 10).await.unwrap(), vec!["old".to_owned()]);
        store.delete("old").await.unwrap();
        assert!(store.list_expired(now_ms(), 10).await.unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
