//! [`RedisTaskStore`]: tasks in Redis, shared by every replica of a server.
//!
//! Each task is one hash, `<prefix>:task:<id>`: the record as JSON under
//! `record`, its revision under `revision`. The key expires when the task's
//! time to live runs out (`PEXPIREAT`): expiry is Redis's job, so there is
//! nothing for [`list_expired`](TaskStore::list_expired) to list. Creating
//! and compare-and-set each run as one Lua script, atomic in Redis.

use std::fmt;
use std::sync::Arc;

use super::commands::{Commands, script};
use crate::tasks::{TaskRecord, TaskStore, TaskStoreError, TaskStoreFuture, now_ms};

/// Stores a task unless its id is taken, expiring with its time to live.
/// KEYS: the task. ARGV: record, revision, expiry in ms since the epoch or ''.
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'revision', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
return 1
";

/// Replaces a task's record if its revision is the expected one; the expiry
/// stays.
/// KEYS: the task. ARGV: expected revision, record, its revision.
const COMPARE_AND_SET: &str = r"
if redis.call('HGET', KEYS[1], 'revision') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'revision', ARGV[3])
return 1
";

/// Tasks kept in Redis, so that any replica answers `tasks/get`,
/// `tasks/update` and `tasks/cancel` for a task another replica runs.
///
/// The handler still runs in the replica that created the task; with a
/// [`RedisBus`](crate::redis::RedisBus) as the server's event bus, a
/// cancel or an answer given on another replica reaches it at once (and
/// otherwise when it next renews its lease,
/// [`ServerBuilder::task_lease`](crate::ServerBuilder::task_lease)). A
/// replica that dies leaves its unfinished tasks to read `failed` once
/// their lease lapsed.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::{Server, redis::RedisBus, redis::RedisTaskStore};
/// let url = "redis://127.0.0.1:6379/";
/// let server = Server::builder("jobs", "1.0.0")
///     .event_bus(RedisBus::connect(url, "mcp:jobs:events").await?)
///     .task_store(RedisTaskStore::connect(url, "mcp:jobs").await?)
///     .build()?;
/// # let _ = server; Ok(()) }
/// ```
///
/// Every replica connects with the same `prefix`. A lost connection is
/// made again at the next command.
#[derive(Clone)]
pub struct RedisTaskStore {
    commands: Commands,
    prefix: Arc<str>,
}

impl RedisTaskStore {
    /// Connects to Redis at `url`, keeping tasks under the keys that start
    /// with `prefix`. Fails when the first connection cannot be made; later
    /// outages are retried.
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Self> {
        let commands = Commands::connect(url).await?;
        Ok(RedisTaskStore { commands, prefix: prefix.into() })
    }

    fn key(&self, task_id: &str) -> String {
        format!("{}:task:{task_id}", self.prefix)
    }

    async fn run<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> Result<T, TaskStoreError> {
        self.commands.run(command).await.map_err(|e| TaskStoreError(format!("Redis: {e}")))
    }
}

impl fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisTaskStore").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

fn json(record: &TaskRecord) -> Result<String, TaskStoreError> {
    serde_json::to_string(record).map_err(|e| TaskStoreError(format!("a task record did not serialize: {e}")))
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> TaskStoreFuture<'_, ()> {
        Box::pin(async move {
            let expires = record.expires_at_ms().map(|at| at.to_string()).unwrap_or_default();
            let (body, revision) = (json(&record)?, record.revision.to_string());
            let created: i64 =
                self.run(&script(CREATE, &[&self.key(&record.task_id)], &[&body, &revision, &expires])).await?;
            if created == 1 { Ok(()) } else { Err(TaskStoreError("a task with that id exists".into())) }
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let mut command = redis::cmd("HGET");
            command.arg(self.key(task_id)).arg("record");
            let Some(body) = self.run::<Option<String>>(&command).await? else { return Ok(None) };
            let record: TaskRecord = serde_json::from_str(&body)
                .map_err(|e| TaskStoreError(format!("the record of task `{task_id}` is not readable: {e}")))?;
            // Redis expires keys within a millisecond or so; the record says exactly.
            Ok(Some(record).filter(|r| !r.is_expired(now_ms())))
        })
    }

    fn compare_and_set(&self, expected_revision: u64, record: TaskRecord) -> TaskStoreFuture<'_, bool> {
        Box::pin(async move {
            let (body, revision, expected) =
                (json(&record)?, record.revision.to_string(), expected_revision.to_string());
            let key = self.key(&record.task_id);
            let swapped: i64 = self.run(&script(COMPARE_AND_SET, &[&key], &[&expected, &body, &revision])).await?;
            Ok(swapped == 1)
        })
    }

    /// Nothing: Redis drops a task's key when its time to live runs out.
    fn list_expired(&self, _now_ms: u64, _limit: usize) -> TaskStoreFuture<'_, Vec<String>> {
        Box::pin(std::future::ready(Ok(Vec::new())))
    }

    fn delete<'a>(&'a self, task_id: &'a str) -> TaskStoreFuture<'a, ()> {
        Box::pin(async move {
            let mut command = redis::cmd("DEL");
            command.arg(self.key(task_id));
            self.run::<i64>(&command).await.map(drop)
        })
    }
}
