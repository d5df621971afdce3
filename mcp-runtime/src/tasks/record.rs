//! A task as a store keeps it ([`TaskRecord`]), and as the wire shows it
//! (`CreateTaskResult`, the `tasks/get` result, `notifications/tasks`).
//!
//! A record is plain serde data, so that a store shared by replicas (SQLite,
//! Redis) can keep it as JSON. Everything a process holds only while it
//! runs the task (the handler's future, its cancellation token, the
//! senders that wake a handler waiting for input) stays out of it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::clock::iso8601;
use crate::protocol::ErrorObject;

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// The handler runs.
    Working,
    /// The handler waits for answers to the record's `inputRequests`.
    InputRequired,
    /// The handler returned a result (a tool error with `isError` too).
    Completed,
    /// The call ended with a JSON-RPC error (a handler's panic included).
    Failed,
    /// The client cancelled the task before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether nothing will change the task any more.
    pub const fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

/// Which process runs a task, and until when it vouches for it.
///
/// The process renews the lease while the handler runs. A task whose lease
/// lapsed while it was not finished belonged to a process that stopped
/// (crashed, killed, scaled away): reading it turns it `failed`, since no
/// one will ever finish it. With the in-memory store the task dies with the
/// process anyway; the lease matters to stores that outlive processes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunnerLease {
    /// A random id of the process, made when its server was built.
    pub process: String,
    /// Until when, in milliseconds since the Unix epoch.
    pub until_ms: u64,
}

/// A task as a [`TaskStore`](super::TaskStore) keeps it.
///
/// ```
/// use mcp_runtime::tasks::{TaskRecord, TaskStatus};
///
/// let record = TaskRecord::new("9f2c", None, 1_000, Some(60_000), Some(500));
/// assert_eq!(record.status, TaskStatus::Working);
/// let json = serde_json::to_string(&record).unwrap();
/// assert_eq!(serde_json::from_str::<TaskRecord>(&json).unwrap(), record);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id, unguessable.
    pub task_id: String,
    /// Who created it: only requests of the same owner see it. `None` when
    /// the server tells no callers apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The caller whose quota it counts in: its owner, else the
    /// [caller](crate::middleware::Caller) that created it (its address,
    /// say); `None` when nothing tells callers apart, for a task that
    /// counts in the store's total only. A store refuses to create a task
    /// whose quota holds its limit
    /// ([`DEFAULT_MAX_TASKS_PER_QUOTA`](super::DEFAULT_MAX_TASKS_PER_QUOTA)
    /// by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<String>,
    /// Where it is.
    pub status: TaskStatus,
    /// A line for people about the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub last_updated_at_ms: u64,
    /// How long after creation it may be discarded; `None` for never.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// How often clients should poll it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// The requests the handler waits on, by key, while `input_required`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_requests: Map<String, Value>,
    /// Answers `tasks/update` brought to a process other than the one
    /// running the task, waiting for that one to hand them to the handler.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_responses: Map<String, Value>,
    /// The handler's result, once `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The JSON-RPC error, once `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// The process running it, while it is not finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<RunnerLease>,
    /// Bumped by every change, for [`TaskStore::compare_and_set`](super::TaskStore::compare_and_set).
    #[serde(default)]
    pub revision: u64,
}

impl TaskRecord {
    /// A `working` task created at `now_ms`.
    pub fn new(
        task_id: impl Into<String>,
        owner: Option<String>,
        now_ms: u64,
        ttl_ms: Option<u64>,
        poll_interval_ms: Option<u64>,
    ) -> Self {
        TaskRecord {
            task_id: task_id.into(),
            quota: owner.clone(),
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now_ms,
            last_updated_at_ms: now_ms,
            ttl_ms,
            poll_interval_ms,
            input_requests: Map::new(),
            input_responses: Map::new(),
            result: None,
            error: None,
            runner: None,
            revision: 0,
        }
    }

    /// Counts the task in `quota` (see [`quota`](Self::quota)).
    #[must_use]
    pub fn in_quota(mut self, quota: Option<String>) -> Self {
        self.quota = quota;
        self
    }

    /// When the task may be discarded, if ever.
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl| self.created_at_ms.saturating_add(ttl))
    }

    /// Whether its time to live has run out at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms().is_some_and(|at| at <= now_ms)
    }

    /// Whether it is unfinished and its runner stopped vouching for it
    /// before `now_ms`.
    pub fn is_orphaned(&self, now_ms: u64) -> bool {
        !self.status.is_terminal() && self.runner.as_ref().is_some_and(|lease| lease.until_ms < now_ms)
    }

    /// The task as the wire shows it: the `Task` fields, and those of its
    /// status (`inputRequests`, `result`, `error`) when `detailed`.
    pub(crate) fn wire(&self, detailed: bool) -> WireTask<'_> {
        let only = |yes: bool| detailed && yes;
        WireTask {
            task_id: &self.task_id,
            status: self.status,
            status_message: self.status_message.as_deref(),
            created_at: iso8601(self.created_at_ms),
            last_updated_at: iso8601(self.last_updated_at_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
            input_requests: (only(self.status == TaskStatus::InputRequired)).then_some(&self.input_requests),
            result: self.result.as_ref().filter(|_| only(self.status == TaskStatus::Completed)),
            error: self.error.as_ref().filter(|_| only(self.status == TaskStatus::Failed)),
        }
    }
}

/// A task on the wire. `ttlMs` is always present (`null` for unlimited).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireTask<'a> {
    task_id: &'a str,
    status: TaskStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<&'a str>,
    created_at: String,
    last_updated_at: String,
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    poll_interval_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<&'a Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ErrorObject>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_wire_shows_what_the_status_has_and_nothing_of_the_store() {
        let mut record = TaskRecord::new("t1", Some("alice".into()), 0, Some(60_000), Some(500));
        record.runner = Some(RunnerLease { process: "p".into(), until_ms: 10 });
        let created = serde_json::to_value(record.wire(false)).unwrap();
        assert_eq!(
            created,
            json!({"taskId": "t1", "status": "working", "createdAt": "1970-01-01T00:00:00.000Z",
                   "lastUpdatedAt": "1970-01-01T00:00:00.000Z", "ttlMs": 60_000, "pollIntervalMs": 500})
        );
        record.status = TaskStatus::Completed;
        record.result = Some(json!({"content": []}));
        let detailed = serde_json::to_value(record.wire(true)).unwrap();
        assert_eq!(detailed["result"], json!({"content": []}));
        assert!(serde_json::to_value(record.wire(false)).unwrap().get("result").is_none());
        record.ttl_ms = None;
        assert_eq!(serde_json::to_value(record.wire(true)).unwrap()["ttlMs"], Value::Null);
    }

    #[test]
    fn expiry_and_orphans() {
        let mut record = TaskRecord::new("t", None, 1_000, Some(100), None);
        assert!(!record.is_expired(1_099));
        assert!(record.is_expired(1_100));
        assert!(!record.is_orphaned(5_000), "no lease, nothing to lapse");
        record.runner = Some(RunnerLease { process: "p".into(), until_ms: 2_000 });
        assert!(!record.is_orphaned(2_000));
        assert!(record.is_orphaned(2_001));
        record.status = TaskStatus::Completed;
        assert!(!record.is_orphaned(9_000));
    }
}
