//! [`RedisTaskStore`]: tasks in Redis, shared by every replica of a server.
//!
//! Each task is one hash, `<prefix>:task:<id>`: the record as JSON under
//! `record`, its revision under `revision`, the quota it counts in under
//! `quota`. The key expires when the task's time to live runs out
//! (`PEXPIREAT`): expiry is Redis's job, so there is nothing for
//! [`list_expired`](TaskStore::list_expired) to list. Creating and
//! compare-and-set each run as one Lua script, atomic in Redis.
//!
//! What each caller holds is counted in sorted sets of task ids scored by
//! their expiry: `{<prefix>}:quota:all`, and `{<prefix>}:quota:of:<quota>`
//! per quota. Their keys share one hash tag, so that one script checks and
//! takes both places atomically on a cluster too; a task's own key lives
//! elsewhere, so the place is taken first, and given back if the task
//! cannot be stored.

use std::fmt;
use std::sync::Arc;

use super::commands::{Commands, script};
use crate::tasks::quota_full;
use crate::tasks::{DEFAULT_MAX_TASKS_PER_QUOTA, TaskRecord, TaskStore, TaskStoreError, TaskStoreFuture, now_ms};

/// Stores a task unless its id is taken, expiring with its time to live.
/// KEYS: the task. ARGV: record, revision, expiry in ms since the epoch or
/// '', quota or ''.
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'revision', ARGV[2], 'quota', ARGV[4])
if ARGV[3] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
return 1
";

/// Takes a place for a task among all, and in its quota: 0 when taken, 1
/// when the store is full, 2 when the quota is. Places whose task expired
/// are dropped first. A set expires with its last task.
/// KEYS: all, the quota (absent for a task in none). ARGV: now in ms, task
/// id, expiry in ms or '+inf', the total limit, the quota's limit.
const RESERVE: &str = r"
local function expire_with_last(key)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] == 'inf' then redis.call('PERSIST', key)
  elseif last[2] then redis.call('PEXPIREAT', key, math.floor(tonumber(last[2])) + 1000) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
if KEYS[2] then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
  expire_with_last(KEYS[2])
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
expire_with_last(KEYS[1])
return 0
";

/// Gives a task's places back. KEYS: all, the quota (absent for a task in
/// none). ARGV: task id.
const RELEASE: &str = r"
for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
return 0
";

/// How many tasks the store holds at most unless told otherwise.
const DEFAULT_MAX_TASKS: usize = 100_000;

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
///
/// It holds at most 100,000 unexpired tasks ([`with_max_tasks`](Self::with_max_tasks)),
/// and at most [`DEFAULT_MAX_TASKS_PER_QUOTA`] of one caller
/// ([`with_max_tasks_per_quota`](Self::with_max_tasks_per_quota)): past
/// either, creating one fails until some expire.
#[derive(Clone)]
pub struct RedisTaskStore {
    commands: Commands,
    prefix: Arc<str>,
    max_tasks: usize,
    max_per_quota: usize,
}

impl RedisTaskStore {
    /// Connects to Redis at `url`, keeping tasks under the keys that start
    /// with `prefix`. Fails when the first connection cannot be made; later
    /// outages are retried.
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Self> {
        let commands = Commands::connect(url).await?;
        Ok(RedisTaskStore {
            commands,
            prefix: prefix.into(),
            max_tasks: DEFAULT_MAX_TASKS,
            max_per_quota: DEFAULT_MAX_TASKS_PER_QUOTA,
        })
    }

    /// Holds at most `max_tasks` unexpired tasks (at least 1; default
    /// 100,000), counted by every replica alike.
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

    fn key(&self, task_id: &str) -> String {
        format!("{}:task:{task_id}", self.prefix)
    }

    /// The sets counting every task, and those of `quota`.
    fn quota_keys(&self, quota: Option<&str>) -> Vec<String> {
        let mut keys = vec![format!("{{{}}}:quota:all", self.prefix)];
        keys.extend(quota.map(|quota| format!("{{{}}}:quota:of:{quota}", self.prefix)));
        keys
    }

    /// Gives the places of `task_id` in `quota` back.
    async fn release(&self, task_id: &str, quota: Option<&str>) -> Result<(), TaskStoreError> {
        let keys = self.quota_keys(quota);
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        self.run::<i64>(&script(RELEASE, &keys, &[task_id])).await.map(drop)
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
            let quota = record.quota.as_deref();
            let keys = self.quota_keys(quota);
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let score = if expires.is_empty() { "+inf" } else { &expires };
            let (now, max_tasks, max_per_quota) =
                (now_ms().to_string(), self.max_tasks.to_string(), self.max_per_quota.to_string());
            let args = [now.as_str(), &record.task_id, score, &max_tasks, &max_per_quota];
            match self.run::<i64>(&script(RESERVE, &keys, &args)).await? {
                0 => {}
                1 => return Err(TaskStoreError(format!("the store holds its maximum of {} tasks", self.max_tasks))),
                _ => return Err(quota_full(self.max_per_quota)),
            }
            let (body, revision) = (json(&record)?, record.revision.to_string());
            let args = [body.as_str(), &revision, &expires, quota.unwrap_or_default()];
            let created = self.run::<i64>(&script(CREATE, &[&self.key(&record.task_id)], &args)).await;
            if !matches!(created, Ok(1)) {
                self.release(&record.task_id, quota).await?;
            }
            if created? == 1 { Ok(()) } else { Err(TaskStoreError("a task with that id exists".into())) }
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
            let mut quota = redis::cmd("HGET");
            quota.arg(self.key(task_id)).arg("quota");
            let quota = self.run::<Option<String>>(&quota).await?.filter(|q| !q.is_empty());
            let mut command = redis::cmd("DEL");
            command.arg(self.key(task_id));
            self.run::<i64>(&command).await?;
            self.release(task_id, quota.as_deref()).await
        })
    }
}
