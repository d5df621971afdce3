//! [`RedisReplayStore`]: the DPoP proofs every replica of a server has
//! accepted, in Redis.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::commands::{Commands, script};
use crate::auth::ReplayStore;
use crate::handler::BoxFuture;

/// The ids of accepted DPoP proofs, in Redis, shared by every replica of a
/// server: a proof accepted by one is refused by all as a replay (see
/// [`Dpop::replay_store`](crate::auth::Dpop::replay_store)).
///
/// Each proof is one key, `<prefix>:dpop:{<caller>}:<digest of its key and
/// jti>`, which expires when the proof could no longer be accepted, so
/// expiry is Redis's job. Every replica connects with the same `prefix`.
/// One caller (the digest of its token's issuer, subject and client) may
/// record at most [`caller_share`](Self::caller_share) proofs in each
/// window of that length (62,500 by default, as the memory store); past
/// it, its DPoP requests are answered 503 until the next window, and other
/// callers' are not: one caller cannot fill Redis with proofs. A proof is
/// checked, counted and recorded in one script, one round trip, its keys
/// in the caller's hash slot on a cluster. While Redis is out of reach
/// DPoP requests are answered 503: a proof that could not be recorded is
/// not accepted.
///
/// ```no_run
/// use mcp_runtime::auth::{Authorization, Dpop};
/// use mcp_runtime::redis::RedisReplayStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = RedisReplayStore::connect("redis://127.0.0.1:6379", "notes").await?;
/// let auth = Authorization::new("https://auth.example.com", "https://mcp.example.com/mcp")
///     .dpop(Dpop::new().replay_store(store));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisReplayStore {
    commands: Commands,
    prefix: Arc<str>,
    share: u64,
}

/// Records a proof unless it is there (0) or its caller has recorded its
/// share in this window (-1); 1 when recorded. KEYS: the proof, its
/// caller's count in this window. ARGV: the proof's ttl in milliseconds,
/// the share, how long the count lives in milliseconds.
const RECORD: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
if count > tonumber(ARGV[2]) then return -1 end
redis.call('SET', KEYS[1], 1, 'PX', ARGV[1])
return 1
";

impl RedisReplayStore {
    /// Connects to Redis at `url` (any form [the module](super) takes),
    /// keeping proof ids under the keys that start with `prefix`. Fails
    /// when the first connection cannot be made.
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Self> {
        let commands = Commands::connect(url).await?;
        Ok(RedisReplayStore { commands, prefix: prefix.into(), share: crate::auth::dpop::CALLER_SHARE as u64 })
    }

    /// How many proofs one caller may record in each window as long as a
    /// proof is remembered (default 62,500: about a hundred requests a
    /// second with the default five-minute `max_age`, whose proofs are
    /// remembered ten minutes). Every replica should say the same.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_runtime::redis::RedisReplayStore;
    ///
    /// // A busy service account: up to 1,000 requests a second.
    /// let store = RedisReplayStore::connect("redis://127.0.0.1:6379", "notes").await?.caller_share(600_000);
    /// # let _ = store; Ok(()) }
    /// ```
    pub fn caller_share(mut self, proofs: u64) -> Self {
        self.share = proofs.max(1);
        self
    }
}

impl fmt::Debug for RedisReplayStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisReplayStore")
            .field("prefix", &self.prefix)
            .field("caller_share", &self.share)
            .finish_non_exhaustive()
    }
}

impl ReplayStore for RedisReplayStore {
    fn first_use<'a>(&'a self, caller: &'a str, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            // Windows as long as a proof lives, numbered alike on every replica.
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
            let window = u64::try_from(now).unwrap_or(u64::MAX) / ms;
            let tag = format!("{}:dpop:{{{caller}}}", self.prefix);
            let (proof, count) = (format!("{tag}:{key}"), format!("{tag}:count:{window}"));
            let args = [ms.to_string(), self.share.to_string(), (2 * ms).to_string()];
            let command = script(RECORD, &[&proof, &count], &[&args[0], &args[1], &args[2]]);
            let recorded: i64 = self.commands.run(&command).await.map_err(|e| format!("Redis: {e}"))?;
            match recorded {
                1 => Ok(true),
                0 => Ok(false),
                _ => Err("one caller sent too many DPoP proofs lately; it may try again later".to_owned()),
            }
        })
    }
}
