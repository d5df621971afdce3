//! [`RedisReplayStore`]: the DPoP proofs every replica of a server has
//! accepted, in Redis.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::commands::Commands;
use crate::auth::ReplayStore;
use crate::handler::BoxFuture;

/// The ids of accepted DPoP proofs, in Redis, shared by every replica of a
/// server: a proof accepted by one is refused by all as a replay (see
/// [`Dpop::replay_store`](crate::auth::Dpop::replay_store)).
///
/// Each proof is one key, `<prefix>:dpop:<digest of its key and jti>`,
/// written with `SET … NX PX`: one round trip, atomic in Redis, and expiry
/// is Redis's job. Every replica connects with the same `prefix`. While
/// Redis is out of reach DPoP requests are answered 503: a proof that
/// could not be recorded is not accepted. Unlike the memory store, it
/// gives no caller a share of its own: Redis's memory limit (`maxmemory`,
/// with the `noeviction` or a `volatile-*` policy) bounds what all callers
/// together fill.
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
}

impl RedisReplayStore {
    /// Connects to Redis at `url` (any form [the module](super) takes),
    /// keeping proof ids under the keys that start with `prefix`. Fails
    /// when the first connection cannot be made.
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Self> {
        let commands = Commands::connect(url).await?;
        Ok(RedisReplayStore { commands, prefix: prefix.into() })
    }
}

impl fmt::Debug for RedisReplayStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisReplayStore").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl ReplayStore for RedisReplayStore {
    fn first_use<'a>(&'a self, _caller: &'a str, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            let mut command = redis::cmd("SET");
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            command.arg(format!("{}:dpop:{key}", self.prefix)).arg(1).arg("NX").arg("PX").arg(ms);
            // `OK` when set, nil when the key was there.
            let set: Option<String> = self.commands.run(&command).await.map_err(|e| format!("Redis: {e}"))?;
            Ok(set.is_some())
        })
    }
}
