//! [`MemoryTaskStore`]: tasks in a map inside the process, bounded in
//! number in all and per caller, expired ones dropped.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard};

use super::clock::now_ms;
use super::record::TaskRecord;
use super::store::{DEFAULT_MAX_TASKS_PER_QUOTA, TaskStore, TaskStoreError, TaskStoreFuture};

/// The default number of tasks a [`MemoryTaskStore`] holds at once.
pub const DEFAULT_MAX_TASKS: usize = 10_000;

/// Tasks in memory: fast, and gone with the process.
///
/// Expired tasks read as absent at once and are dropped when the server
/// sweeps (on task creation, at most once a second) or when the store is
/// full. At most [`max_tasks`](Self::with_max_tasks) tasks are held, and
/// at most [`max_tasks_per_quota`](Self::with_max_tasks_per_quota) of one
/// caller ([`TaskRecord::quota`]): past either, creating one fails
/// (`-32603`) until some expire.
///
/// ```
/// use mcp_runtime::{Server, tasks::MemoryTaskStore};
/// let server = Server::builder("jobs", "1.0.0").task_store(MemoryTaskStore::new().with_max_tasks(100)).build()?;
/// # let _ = server;
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
pub struct MemoryTaskStore {
    tasks: Mutex<Held>,
    max_tasks: usize,
    max_per_quota: usize,
}

/// The tasks, and how many each quota holds.
#[derive(Default)]
struct Held {
    tasks: HashMap<String, TaskRecord>,
    per_quota: HashMap<String, usize>,
}

impl Held {
    fn insert(&mut self, record: TaskRecord) {
        if let Some(quota) = &record.quota {
            *self.per_quota.entry(quota.clone()).or_insert(0) += 1;
        }
        self.tasks.insert(record.task_id.clone(), record);
    }

    fn remove(&mut self, task_id: &str) {
        let Some(record) = self.tasks.remove(task_id) else { return };
        self.uncount(&record);
    }

    fn uncount(&mut self, record: &TaskRecord) {
        let Some(quota) = &record.quota else { return };
        if let Some(held) = self.per_quota.get_mut(quota) {
            *held -= 1;
            if *held == 0 {
                self.per_quota.remove(quota);
            }
        }
    }

    fn drop_expired(&mut self, now: u64) {
        let expired: Vec<String> =
            self.tasks.values().filter(|r| r.is_expired(now)).map(|r| r.task_id.clone()).collect();
        for task_id in expired {
            self.remove(&task_id);
        }
    }

    fn held_by(&self, quota: Option<&String>) -> usize {
        quota.and_then(|quota| self.per_quota.get(quota)).copied().unwrap_or(0)
    }
}

impl MemoryTaskStore {
    /// An empty store holding up to [`DEFAULT_MAX_TASKS`].
    pub fn new() -> Self {
        MemoryTaskStore {
            tasks: Mutex::new(Held::default()),
            max_tasks: DEFAULT_MAX_TASKS,
            max_per_quota: DEFAULT_MAX_TASKS_PER_QUOTA,
        }
    }

    /// Holds at most `max_tasks` tasks (at least 1).
    pub fn with_max_tasks(mut self, max_tasks: usize) -> Self {
        self.max_tasks = max_tasks.max(1);
        self
    }

    /// Holds at most `max_tasks` tasks of one caller (at least 1; default
    /// [`DEFAULT_MAX_TASKS_PER_QUOTA`]).
    pub fn with_max_tasks_per_quota(mut self, max_tasks: usize) -> Self {
        self.max_per_quota = max_tasks.max(1);
        self
    }

    /// How many tasks it holds, expired ones not yet dropped included.
    pub fn len(&self) -> usize {
        self.lock().tasks.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        crate::sync::lock(&self.tasks)
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new()
    }
}

impl fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("tasks", &self.len())
            .field("max_tasks", &self.max_tasks)
            .field("max_tasks_per_quota", &self.max_per_quota)
            .finish()
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> TaskStoreFuture<'_, ()> {
        let outcome = (|| {
            let mut held = self.lock();
            let quota = record.quota.as_ref();
            if held.tasks.len() >= self.max_tasks || held.held_by(quota) >= self.max_per_quota {
                held.drop_expired(now_ms());
            }
            if held.tasks.len() >= self.max_tasks {
                return Err(TaskStoreError(format!("the store holds its maximum of {} tasks", self.max_tasks)));
            }
            if held.held_by(quota) >= self.max_per_quota {
                return Err(quota_full(self.max_per_quota));
            }
            if held.tasks.contains_key(&record.task_id) {
                return Err(TaskStoreError("a task with that id exists".into()));
            }
            held.insert(record);
            Ok(())
        })();
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, Option<TaskRecord>> {
        let now = now_ms();
        let found = self.lock().tasks.get(task_id).filter(|r| !r.is_expired(now)).cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn compare_and_set(&self, expected_revision: u64, record: TaskRecord) -> TaskStoreFuture<'_, bool> {
        let mut held = self.lock();
        let swapped = match held.tasks.get_mut(&record.task_id) {
            // The quota a task counts in stays the one it was created in.
            Some(stored) if stored.revision == expected_revision => {
                let quota = stored.quota.take();
                *stored = TaskRecord { quota, ..record };
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(swapped)))
    }

    fn list_expired(&self, now_ms: u64, limit: usize) -> TaskStoreFuture<'_, Vec<String>> {
        let ids = self
            .lock()
            .tasks
            .values()
            .filter(|r| r.is_expired(now_ms))
            .take(limit)
            .map(|r| r.task_id.clone())
            .collect();
        Box::pin(std::future::ready(Ok(ids)))
    }

    fn delete<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, ()> {
        self.lock().remove(task_id);
        Box::pin(std::future::ready(Ok(())))
    }
}

/// The refusal of a task whose caller holds its limit.
pub(crate) fn quota_full(limit: usize) -> TaskStoreError {
    TaskStoreError(format!(
        "this caller holds its maximum of {limit} tasks; they make room as their time to live runs out"
    ))
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

    #[test]
    fn one_caller_cannot_fill_the_store_for_everyone() {
        let store = MemoryTaskStore::new().with_max_tasks(10).with_max_tasks_per_quota(3);
        let now = now_ms();
        let task =
            |id: &str, quota: &str| TaskRecord::new(id, None, now, Some(60_000), None).in_quota(Some(quota.into()));
        for id in ["a1", "a2", "a3"] {
            block(store.create(task(id, "address:192.0.2.1"))).unwrap();
        }
        let refused = block(store.create(task("a4", "address:192.0.2.1"))).unwrap_err();
        assert!(refused.0.contains("maximum of 3"), "{refused}");
        block(store.create(task("b1", "address:192.0.2.2"))).expect("another caller still has room");
        // Tasks that count in no quota count in the total only.
        block(store.create(TaskRecord::new("n1", None, now, None, None))).unwrap();
        // A task done with makes room.
        block(store.delete("a1")).unwrap();
        block(store.create(task("a4", "address:192.0.2.1"))).expect("room again");
        // An expired one too, and a record replaced keeps its quota.
        block(store.create(TaskRecord::new("old", None, 0, Some(1), None).in_quota(Some("q".into())))).unwrap();
        let mut replaced = block(store.get("b1")).unwrap().unwrap();
        replaced.quota = Some("elsewhere".into());
        replaced.revision = 1;
        assert!(block(store.compare_and_set(0, replaced)).unwrap());
        assert_eq!(block(store.get("b1")).unwrap().unwrap().quota.as_deref(), Some("address:192.0.2.2"));
    }
}
