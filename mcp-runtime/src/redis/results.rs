//! [`RedisResultStore`]: the results a shared
//! [`ResultCache`](crate::middleware::ResultCache) keeps, in Redis.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::commands::Commands;
use crate::middleware::{BoxFuture, ResultStore};

/// Tool results kept in Redis for a [`ResultCache`](crate::middleware::ResultCache)
/// that every replica shares: a result one replica computed answers the
/// same call on another until it expires.
///
/// Each result is one string, `<prefix>:result:<cache key>` (a digest of
/// the server's name, the revision, the tool, the caller and the
/// arguments, so two servers under one prefix never mix), written with its
/// time to live (`SET ... PX`): expiry is Redis's job. A tool's
/// generation (see [`ResultStore`]) is `<prefix>:generation:<tool>`, moved
/// on with `INCR`: a cached call reads it first, one round trip more.
/// Every replica connects with the same `prefix`. A lost connection is made
/// again at the next command; while Redis is away, calls run uncached.
#[derive(Clone)]
pub struct RedisResultStore {
    commands: Commands,
    prefix: Arc<str>,
}

impl RedisResultStore {
    /// Connects to Redis at `url`, keeping results under the keys that
    /// start with `prefix`. Fails when the first connection cannot be made.
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Self> {
        let commands = Commands::connect(url).await?;
        Ok(RedisResultStore { commands, prefix: prefix.into() })
    }

    /// The Redis key of a cache key, a digest already.
    fn key(&self, key: &str) -> String {
        format!("{}:result:{key}", self.prefix)
    }
}

impl fmt::Debug for RedisResultStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisResultStore").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl ResultStore for RedisResultStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, String>> {
        Box::pin(async move {
            let mut command = redis::cmd("GET");
            command.arg(self.key(key));
            self.commands.run(&command).await.map_err(|e| format!("Redis: {e}"))
        })
    }

    fn put<'a>(&'a self, key: &'a str, result: String, ttl: Duration) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let mut command = redis::cmd("SET");
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            command.arg(self.key(key)).arg(result).arg("PX").arg(ms);
            self.commands.run::<()>(&command).await.map_err(|e| format!("Redis: {e}"))
        })
    }

    fn generation<'a>(&'a self, tool: &'a str) -> BoxFuture<'a, Result<u64, String>> {
        Box::pin(async move {
            let mut command = redis::cmd("GET");
            command.arg(format!("{}:generation:{tool}", self.prefix));
            let generation: Option<u64> = self.commands.run(&command).await.map_err(|e| format!("Redis: {e}"))?;
            Ok(generation.unwrap_or(0))
        })
    }

    fn invalidate<'a>(&'a self, tool: &'a str) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let mut command = redis::cmd("INCR");
            command.arg(format!("{}:generation:{tool}", self.prefix));
            self.commands.run::<u64>(&command).await.map(drop).map_err(|e| format!("Redis: {e}"))
        })
    }
}
