//! [`MemoryTaskStore`]: tasks in a map inside the process, bounded in
//! number, expired ones dropped.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard};

use super::clock::now_ms;
use super::record::TaskRecord;
use super::store::{TaskStore, TaskStoreError, TaskStoreFuture};

/// The default number of tasks a [`MemoryTaskStore`] holds at once.
pub const DEFAULT_MAX_TASKS: usize = 10_000;

/// Tasks in memory: fast, and gone with the process.
///
/// Expired tasks read as absent at once and are dropped when the server
/// sweeps (on task creation, at most once a second) or when the store is
/// full. At most [`max_tasks`](Self::with_max_tasks) tasks are held: past
/// that, creating one fails (`-32603`) until some expire.
///
/// ```
/// use mcp_runtime::{Server, tasks::MemoryTaskStore};
/// let server = Server::builder("jobs", "1.0.0").task_store(MemoryTaskStore::new().with_max_tasks(100)).build()?;
/// # let _ = server;
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    max_tasks: usize,
}

impl MemoryTaskStore {
    /// An empty store holding up to [`DEFAULT_MAX_TASKS`].
    pub fn new() -> Self {
        MemoryTaskStore { tasks: Mutex::new(HashMap::new()), max_tasks: DEFAULT_MAX_TASKS }
    }

    /// Holds at most `max_tasks` tasks (at least 1).
    pub fn with_max_tasks(mut self, max_tasks: usize) -> Self {
        self.max_tasks = max_tasks.max(1);
        self
    }

    /// How many tasks it holds, expired ones not yet dropped included.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new()
    }
}

impl fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTaskStore").field("tasks", &self.len()).field("max_tasks", &self.max_tasks).finish()
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> TaskStoreFuture<'_, ()> {
        let outcome = (|| {
            let mut tasks = self.lock();
            if tasks.len() >= self.max_tasks {
                let now = now_ms();
                tasks.retain(|_, r| !r.is_expired(now));
            }
            if tasks.len() >= self.max_tasks {
                return Err(TaskStoreError(format!("the store holds its maximum of {} tasks", self.max_tasks)));
            }
            if tasks.contains_key(&record.task_id) {
                return Err(TaskStoreError("a task with that id exists".into()));
            }
            tasks.insert(record.task_id.clone(), record);
            Ok(())
        })();
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, Option<TaskRecord>> {
        let now = now_ms();
        let found = self.lock().get(task_id).filter(|r| !r.is_expired(now)).cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn compare_and_set(&self, expected_revision: u64, record: TaskRecord) -> TaskStoreFuture<'_, bool> {
        let mut tasks = self.lock();
        let swapped = match tasks.get_mut(&record.task_id) {
            Some(stored) if stored.revision == expected_revision => {
                *stored = record;
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(swapped)))
    }

    fn list_expired(&self, now_ms: u64, limit: usize) -> TaskStoreFuture<'_, Vec<String>> {
        let ids =
            self.lock().values().filter(|r| r.is_expired(now_ms)).take(limit).map(|r| r.task_id.clone()).collect();
        Box::pin(std::future::ready(Ok(ids)))
    }

    fn delete<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, ()> {
        self.lock().remove(task_id);
        Box::pin(std::future::ready(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: TaskStoreFuture<'_, T>) -> Result<T, TaskStoreError> {
        futures_util::FutureExt::now_or_never(f).expect("the memory store never waits")
    }

    #[test]
    fn records_are_created_once_and_replaced_only_at_the_expected_revision() {
        let store = MemoryTaskStore::new();
        let now = now_ms();
        block(store.create(TaskRecord::new("a", None, now, Some(60_000), None))).unwrap();
        assert!(block(store.create(TaskRecord::new("a", None, now, None, None))).is_err());
        let mut next = block(store.get("a")).unwrap().unwrap();
        next.revision = 1;
        assert!(block(store.compare_and_set(0, next.clone())).unwrap());
        assert!(!block(store.compare_and_set(0, next)).unwrap(), "a stale revision loses");
        assert_eq!(block(store.get("a")).unwrap().unwrap().revision, 1);
    }

    #[test]
    fn expired_records_read_as_absent_and_make_room() {
        let store = MemoryTaskStore::new().with_max_tasks(2);
        block(store.create(TaskRecord::new("old", None, 0, Some(1), None))).unwrap();
        block(store.create(TaskRecord::new("kept", None, now_ms(), None, None))).unwrap();
        assert_eq!(block(store.get("old")).unwrap(), None);
        assert_eq!(block(store.list_expired(now_ms(), 10)).unwrap(), vec!["old".to_owned()]);
        block(store.create(TaskRecord::new("new", None, now_ms(), None, None))).unwrap();
        assert_eq!(store.len(), 2, "the expired one was dropped to make room");
        assert!(block(store.create(TaskRecord::new("over", None, now_ms(), None, None))).is_err());
        block(store.delete("kept")).unwrap();
        assert_eq!(block(store.get("kept")).unwrap(), None);
    }
}
