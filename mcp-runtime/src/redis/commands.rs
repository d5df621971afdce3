//! Commands to Redis over one multiplexed connection that is made again
//! when it was lost: the command side of the session store, the task store
//! and the event bus (publishing, readiness).

use std::sync::{Arc, Mutex, MutexGuard};

use redis::aio::MultiplexedConnection;

/// A shared connection, replaced at the first command that finds it broken.
#[derive(Clone)]
pub(crate) struct Commands {
    client: redis::Client,
    connection: Arc<Mutex<MultiplexedConnection>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Commands {
    /// Connects once; fails when that first connection cannot be made.
    pub(crate) async fn connect(client: redis::Client) -> redis::RedisResult<Self> {
        let connection = client.get_multiplexed_async_connection().await?;
        Ok(Commands { client, connection: Arc::new(Mutex::new(connection)) })
    }

    /// The client, for subscriptions of its own.
    pub(crate) fn client(&self) -> &redis::Client {
        &self.client
    }

    /// Runs `command`, connecting again once if the connection was lost.
    pub(crate) async fn run<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> redis::RedisResult<T> {
        let mut connection = lock(&self.connection).clone();
        match command.query_async(&mut connection).await {
            Err(e) if e.is_connection_dropped() || e.is_unrecoverable_error() || e.is_io_error() => {
                let mut fresh = self.client.get_multiplexed_async_connection().await?;
                *lock(&self.connection) = fresh.clone();
                command.query_async(&mut fresh).await
            }
            result => result,
        }
    }
}

/// `EVAL source` on `keys` with `args`: one step, atomic in Redis. (The
/// stores' steps; the bus has none.)
#[cfg(any(feature = "legacy", feature = "tasks"))]
pub(crate) fn script(source: &str, keys: &[&str], args: &[&str]) -> redis::Cmd {
    let mut command = redis::cmd("EVAL");
    command.arg(source).arg(keys.len()).arg(keys).arg(args);
    command
}
