//! A [`SessionStore`] in Redis, shared by every replica of a server.
//!
//! Each session is one hash, `{<prefix>}:session:<id>`: its record as JSON
//! under `record`, the log level under `level`, one `sub:<uri>` field per
//! subscription, so that a change is one field written and two replicas
//! changing different things do not overwrite each other; the owner, also
//! in the record, is repeated under `owner` for the load script to compare
//! before it counts a use (a record without it has no owner). The key expires
//! after the idle timeout, and loading the record pushes that back: expiry
//! is Redis's job. The sorted set `{<prefix>}:sessions` scores each live
//! session by its last use; `create` drops the entries older than the idle
//! timeout and counts the rest against the cap. Each step runs as one Lua
//! script, atomic in Redis, with Redis's own clock. The braces are a hash
//! tag: on a Redis Cluster every key of the store lives in the one slot of
//! `<prefix>`, so that a script that touches a session and the index runs
//! on one node (the store's load is then one master's, whatever the size
//! of the cluster).
//!
//! Messages between replicas travel by pub/sub: on `<prefix>:replica:<id>`
//! for one replica, on `<prefix>:replicas` for all. A lost connection is
//! made again: the commands' at once, the subscription's with a growing
//! delay (at most 5 s).

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;

use super::commands::{Commands, script};
use super::subscription::Subscription;
use crate::protocol::LoggingLevel;
use crate::session::{
    SessionChange, SessionLimits, SessionOwner, SessionRecord, SessionStore, StoreError, StoreFuture, Touched,
};

/// Keeps a new session unless the live ones are as many as allowed.
/// KEYS: the session, the index. ARGV: id, record, idle ms, cap, owner
/// (empty for none).
const CREATE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'owner', ARGV[5]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], now, ARGV[1])
return 1
";

/// A live session's fields, its expiry pushed back.
/// KEYS: the session, the index. ARGV: id, idle ms.
const LOAD: &str = r"
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return false end
local t = redis.call('TIME')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
return fields
";

/// As [`LOAD`], for a request by the owner ARGV[3] (empty for none); for
/// another, nothing, as for no session, and no use counted.
/// KEYS: the session, the index. ARGV: id, idle ms, owner.
const LOAD_FOR: &str = r"
if (redis.call('HGET', KEYS[1], 'owner') or '') ~= ARGV[3] then return false end
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return false end
local t = redis.call('TIME')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
return fields
";

/// As [`LOAD`], but the fields only when the record's revision (`rev`,
/// which every update bumps) is not ARGV[3]; an empty array when it is.
/// KEYS: the session, the index. ARGV: id, idle ms, revision seen ('' for none).
const TOUCH: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local t = redis.call('TIME')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
if (redis.call('HGET', KEYS[1], 'rev') or '0') == ARGV[3] then return {} end
return redis.call('HGETALL', KEYS[1])
";

/// Removes a session and its entry in the index.
/// KEYS: the session, the index. ARGV: id.
const REMOVE: &str = r"
local removed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return removed
";

/// Sets (or, with an empty value, deletes) one field of a live session.
/// KEYS: the session. ARGV: field, value.
const UPDATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
";

/// Sessions kept in Redis, so that a session opened on one replica is
/// served by any other.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::Server;
/// use mcp_runtime::redis::RedisSessionStore;
/// use mcp_runtime::transport::http::HttpConfig;
///
/// let store = RedisSessionStore::connect("redis://127.0.0.1:6379/", "mcp:notes").await?;
/// let server = Server::builder("notes", "1.0.0").build()?;
/// server.serve_http_with("0.0.0.0:3000", HttpConfig::default().allow_any_host().session_store(store)).await?;
/// # Ok(()) }
/// ```
///
/// Every replica connects with the same `prefix` and gets a random
/// replica id of its own. The cap on live sessions
/// ([`HttpConfig::max_sessions`](crate::transport::http::HttpConfig::max_sessions))
/// counts the sessions of every replica, as recorded in Redis; it may be
/// passed by a few when sessions go idle and come back at once. The memory
/// each replica spends stays bounded by the same number: it holds copies
/// of the sessions it serves, at most that many, and forgets the idle ones.
/// On a Redis Cluster (a `redis+cluster://` URL, see [the module](crate::redis))
/// the store's keys share one hash slot and its messages travel by sharded
/// pub/sub.
#[derive(Clone)]
pub struct RedisSessionStore {
    commands: Commands,
    prefix: Arc<str>,
    replica: Arc<str>,
    incoming: broadcast::Sender<String>,
}

impl RedisSessionStore {
    /// Connects to Redis at `url`, keeping sessions under the keys and
    /// channels that start with `prefix`. Fails when the first connection
    /// cannot be made; later outages are retried.
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Self> {
        let commands = Commands::connect(url).await?;
        let mut bytes = [0u8; 8];
        let _ = getrandom::fill(&mut bytes);
        let replica: Arc<str> = bytes.iter().map(|b| format!("{b:02x}")).collect::<String>().into();
        let channels = [format!("{prefix}:replica:{replica}"), format!("{prefix}:replicas")];
        let subscription = Subscription::open(commands.address(), &channels).await?;
        let (incoming, _) = broadcast::channel(1024);
        tokio::spawn(subscribe_loop(subscription, channels, incoming.downgrade()));
        Ok(RedisSessionStore { commands, prefix: prefix.into(), replica, incoming })
    }

    fn key(&self, id: &str) -> String {
        format!("{{{}}}:session:{id}", self.prefix)
    }

    fn index(&self) -> String {
        format!("{{{}}}:sessions", self.prefix)
    }

    /// Runs `command`, connecting again once if the connection was lost.
    async fn run<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> Result<T, StoreError> {
        self.commands.run(command).await.map_err(StoreError::backend)
    }
}

fn millis(duration: Duration) -> String {
    duration.as_millis().max(1).to_string()
}

/// The `owner` field of a session's hash: the owner as JSON, which is
/// written the same way each time, so that the scripts compare texts;
/// empty for none.
fn owner_field(owner: Option<&SessionOwner>) -> Result<String, StoreError> {
    owner.map_or(Ok(String::new()), |owner| serde_json::to_string(owner).map_err(StoreError::backend))
}

/// The record a session's hash holds.
fn record_of(fields: HashMap<String, String>) -> Result<SessionRecord, StoreError> {
    let mut record = None;
    let mut level = None;
    let mut initialized = false;
    let mut subscriptions = BTreeSet::new();
    for (field, value) in fields {
        match field.as_str() {
            "record" => record = Some(serde_json::from_str::<SessionRecord>(&value).map_err(StoreError::backend)?),
            "level" => level = serde_json::from_value::<LoggingLevel>(value.into()).ok(),
            "initialized" => initialized = value == "1",
            // A copy of the record's, for the scripts.
            "owner" => {}
            _ => {
                if let Some(uri) = field.strip_prefix("sub:") {
                    subscriptions.insert(uri.to_owned());
                }
            }
        }
    }
    let mut record = record.ok_or_else(|| StoreError::backend("a session without its record"))?;
    record.log_level = level.or(record.log_level);
    record.subscriptions.extend(subscriptions);
    record.initialized |= initialized;
    Ok(record)
}

impl fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisSessionStore").field("prefix", &self.prefix).field("replica", &self.replica).finish()
    }
}

impl SessionStore for RedisSessionStore {
    fn create(&self, record: SessionRecord, limits: SessionLimits) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let json = serde_json::to_string(&record).map_err(StoreError::backend)?;
            let owner = owner_field(record.owner.as_ref())?;
            let (key, index) = (self.key(&record.id), self.index());
            let (idle, cap) = (millis(limits.idle_timeout), limits.max_sessions.to_string());
            let command = script(CREATE, &[&key, &index], &[&record.id, &json, &idle, &cap, &owner]);
            match self.run::<i64>(&command).await? {
                1 => Ok(()),
                _ => Err(StoreError::Full),
            }
        })
    }

    fn load<'a>(&'a self, id: &'a str, limits: SessionLimits) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(async move {
            let (key, index, idle) = (self.key(id), self.index(), millis(limits.idle_timeout));
            let fields: Option<HashMap<String, String>> =
                self.run(&script(LOAD, &[&key, &index], &[id, &idle])).await?;
            fields.map(record_of).transpose()
        })
    }

    fn load_for<'a>(
        &'a self,
        id: &'a str,
        owner: Option<&'a SessionOwner>,
        limits: SessionLimits,
    ) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(async move {
            let owner = owner_field(owner)?;
            let (key, index, idle) = (self.key(id), self.index(), millis(limits.idle_timeout));
            let fields: Option<HashMap<String, String>> =
                self.run(&script(LOAD_FOR, &[&key, &index], &[id, &idle, &owner])).await?;
            fields.map(record_of).transpose()
        })
    }

    /// Reads the record only when another update came since the revision
    /// `seen`: a request to a session no one changed is one round trip that
    /// returns nothing.
    fn touch<'a>(&'a self, id: &'a str, seen: Option<u64>, limits: SessionLimits) -> StoreFuture<'a, Touched> {
        Box::pin(async move {
            let (key, index, idle) = (self.key(id), self.index(), millis(limits.idle_timeout));
            let seen = seen.map(|seen| seen.to_string()).unwrap_or_default();
            let fields: Option<HashMap<String, String>> =
                self.run(&script(TOUCH, &[&key, &index], &[id, &idle, &seen])).await?;
            Ok(match fields {
                None => Touched::Gone,
                Some(fields) if fields.is_empty() => Touched::Unchanged,
                Some(fields) => {
                    let revision = fields.get("rev").map_or(Some(0), |rev| rev.parse().ok());
                    Touched::Changed(Box::new(record_of(fields)?), revision)
                }
            })
        })
    }

    fn update<'a>(&'a self, id: &'a str, change: SessionChange) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let (field, value) = match &change {
                SessionChange::LogLevel { level } => ("level".to_owned(), level.as_str().to_owned()),
                SessionChange::Subscribe { uri } => (format!("sub:{uri}"), "1".to_owned()),
                SessionChange::Unsubscribe { uri } => (format!("sub:{uri}"), String::new()),
                SessionChange::Initialized => ("initialized".to_owned(), "1".to_owned()),
            };
            let applied: i64 = self.run(&script(UPDATE, &[&self.key(id)], &[&field, &value])).await?;
            Ok(applied == 1)
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let removed: i64 = self.run(&script(REMOVE, &[&self.key(id), &self.index()], &[id])).await?;
            Ok(removed > 0)
        })
    }

    fn replica_id(&self) -> Option<&str> {
        Some(&self.replica)
    }

    fn publish<'a>(&'a self, to: Option<&'a str>, message: String) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let channel = match to {
                Some(replica) => format!("{}:replica:{replica}", self.prefix),
                None => format!("{}:replicas", self.prefix),
            };
            self.commands.publish(&channel, &message).await.map_err(StoreError::backend)
        })
    }

    fn subscribe(&self) -> Option<broadcast::Receiver<String>> {
        Some(self.incoming.subscribe())
    }

    fn ready(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move { self.commands.ping().await.map_err(StoreError::backend) })
    }
}

async fn subscribe_loop(subscription: Subscription, channels: [String; 2], incoming: broadcast::WeakSender<String>) {
    let wanted = || incoming.upgrade().is_some();
    // The store is gone once its last handle is dropped.
    let deliver = |payload: String| match incoming.upgrade() {
        Some(incoming) => {
            let _ = incoming.send(payload);
            true
        }
        None => false,
    };
    // Signals other replicas sent meanwhile are lost; no listener here
    // keeps anything to announce again.
    let resumed = || {};
    super::subscription::follow(subscription, channels.into(), "session store", wanted, deliver, resumed).await;
}
