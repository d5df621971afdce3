//! [`RedisProxyStore`]: the OAuth front's records in Redis, shared by every
//! replica of a server.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::commands::Commands;
use crate::handler::BoxFuture;
use crate::oauth_proxy::{ProxyStore, StoreError};

/// The longest time to live given to Redis, in milliseconds: Redis refuses
/// an expiry past the largest 64-bit millisecond timestamp, and about
/// seventy million years is as good as none.
const LONGEST_PX: u64 = (i64::MAX / 4) as u64;

/// The OAuth front's records (registered clients, authorizations in
/// progress, codes, refresh tokens, the signing key) in Redis, shared by
/// every replica of a server: a client registered through one is known to
/// all, a code issued by one is redeemed at any, once, and all sign with
/// one key.
///
/// Each record is one key, `<prefix>:oauth:<key>`, written with `SET` (with
/// `PX` for a time to live, `NX` for [`put_new`](ProxyStore::put_new)) and
/// taken with `GETDEL`, each one command and so atomic in Redis, on a
/// cluster too; expiry is Redis's job. `GETDEL` needs Redis 6.2 or later, or
/// Valkey. Every replica connects with the same `prefix`. While Redis
/// is out of reach the front answers 503: a record that could not be read
/// is not taken as absent.
///
/// ```no_run
/// use std::time::Duration;
///
/// use mcp_runtime::oauth_proxy::ProxyStore;
/// use mcp_runtime::redis::RedisProxyStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = RedisProxyStore::connect("redis://127.0.0.1:6379", "notes").await?;
/// store.put("client:abc", "{}", Some(Duration::from_secs(3600))).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisProxyStore {
    commands: Commands,
    prefix: Arc<str>,
}

impl RedisProxyStore {
    /// Connects to Redis at `url` (any form [the module](super) takes),
    /// keeping records under the keys that start with `prefix`. Fails when
    /// the first connection cannot be made.
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Self> {
        let commands = Commands::connect(url).await?;
        Ok(RedisProxyStore { commands, prefix: prefix.into() })
    }

    fn key(&self, key: &str) -> String {
        format!("{}:oauth:{key}", self.prefix)
    }

    /// `SET` of `value` under `key`, for `ttl`, only if absent when
    /// `only_new`: whether it was set.
    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>, only_new: bool) -> Result<bool, StoreError> {
        let mut command = redis::cmd("SET");
        command.arg(self.key(key)).arg(value);
        if only_new {
            command.arg("NX");
        }
        if let Some(ttl) = ttl {
            // Redis refuses `PX 0`; a value that expires at once lives a millisecond.
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).clamp(1, LONGEST_PX);
            command.arg("PX").arg(ms);
        }
        // `OK` when set, nil when `NX` found the key there.
        let set: Option<String> = self.commands.run(&command).await.map_err(failed)?;
        Ok(set.is_some())
    }
}

fn failed(e: redis::RedisError) -> StoreError {
    StoreError(format!("Redis: {e}"))
}

impl fmt::Debug for RedisProxyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisProxyStore").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl ProxyStore for RedisProxyStore {
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.set(key, value, ttl, false).await.map(drop) })
    }

    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.set(key, value, ttl, true))
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let mut command = redis::cmd("GET");
            command.arg(self.key(key));
            self.commands.run(&command).await.map_err(failed)
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            // Read and deleted in one command: of two takers, one gets nil.
            let mut command = redis::cmd("GETDEL");
            command.arg(self.key(key));
            self.commands.run(&command).await.map_err(failed)
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut command = redis::cmd("DEL");
            command.arg(self.key(key));
            self.commands.run::<i64>(&command).await.map(drop).map_err(failed)
        })
    }
}
