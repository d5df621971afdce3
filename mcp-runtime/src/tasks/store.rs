//! Where tasks are kept: the [`TaskStore`] trait, whose operations are the
//! ones a store shared by replicas can do atomically (create if absent,
//! read, compare-and-set on a revision, list and delete the expired), and
//! the error its implementations report.

use std::future::Future;
use std::pin::Pin;

use super::record::TaskRecord;
use crate::protocol::ErrorObject;

/// How many tasks one caller may have stored at once unless a store is told
/// otherwise (see [`TaskRecord::quota`]), so that no caller fills a store
/// for everyone: tasks stay stored, results included, until their time to
/// live runs out.
pub const DEFAULT_MAX_TASKS_PER_QUOTA: usize = 500;

/// The future a [`TaskStore`] method returns.
pub type TaskStoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// A store's failure, reported to the client as `-32603`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TaskStoreError(pub String);

impl From<TaskStoreError> for ErrorObject {
    fn from(e: TaskStoreError) -> Self {
        ErrorObject::internal(format!("The task store failed: {}", e.0))
    }
}

/// Keeps [`TaskRecord`]s.
///
/// The default is [`MemoryTaskStore`](super::MemoryTaskStore), inside the
/// process. A store shared by several replicas (so that `tasks/get` works
/// on any of them) implements the same operations with its engine's atomic
/// primitives: a record serializes to JSON with serde, `create` is an
/// insert-if-absent, `compare_and_set` a conditional write on the
/// revision.
///
/// `create` must be durable when it returns: the client is told of the task
/// only then, and its first `tasks/get` must find it. It must also keep
/// each caller to its share: a record whose [`quota`](TaskRecord::quota)
/// holds as many unexpired tasks as the store allows one quota is refused,
/// as is any record once the store holds its total.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record; fails if its id is taken, if its quota holds
    /// its limit of tasks, or if the store is full.
    fn create(&self, record: TaskRecord) -> TaskStoreFuture<'_, ()>;

    /// The record of `task_id`, unless absent or expired (an expired record
    /// reads as absent even before it is deleted).
    fn get<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, Option<TaskRecord>>;

    /// Replaces the stored record of `record.task_id` with `record` if the
    /// stored one's revision is `expected_revision`; returns whether it
    /// did. The caller bumps `record.revision`.
    fn compare_and_set(&self, expected_revision: u64, record: TaskRecord) -> TaskStoreFuture<'_, bool>;

    /// The ids of up to `limit` records whose time to live ran out by `now_ms`.
    fn list_expired(&self, now_ms: u64, limit: usize) -> TaskStoreFuture<'_, Vec<String>>;

    /// Deletes the record of `task_id`, if any.
    fn delete<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, ()>;
}
