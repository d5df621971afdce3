//! Commands to Redis, on one server over one multiplexed connection made
//! again when it was lost, or on a cluster through the `redis` crate's
//! cluster connection, which follows `MOVED`/`ASK` redirections, refreshes
//! the topology when a node fails or a replica is promoted, and retries:
//! the command side of the session store, the task store, the result store
//! and the event bus (publishing, readiness).

use std::sync::{Arc, Mutex};

use redis::aio::MultiplexedConnection;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};

use super::address::Address;
use crate::sync::lock;

/// A shared connection to one server or to a cluster.
#[derive(Clone)]
pub(crate) enum Commands {
    /// One server: the connection is replaced at the first command that
    /// finds it broken.
    Single { client: redis::Client, connection: Arc<Mutex<MultiplexedConnection>> },
    /// A cluster: the connection repairs itself.
    Cluster { nodes: Arc<[redis::ConnectionInfo]>, connection: ClusterConnection },
}

impl Commands {
    /// Connects once to `url` (one of the forms of [`Address`]); fails when
    /// that first connection cannot be made.
    pub(crate) async fn connect(url: &str) -> redis::RedisResult<Self> {
        match Address::parse(url)? {
            Address::Single(client) => {
                let connection = client.get_multiplexed_async_connection().await?;
                Ok(Commands::Single { client, connection: Arc::new(Mutex::new(connection)) })
            }
            Address::Cluster(nodes) => {
                let connection = redis::cluster::ClusterClient::new(nodes.clone())?.get_async_connection().await?;
                Ok(Commands::Cluster { nodes: nodes.into(), connection })
            }
        }
    }

    /// Runs `command`, connecting again once if the connection was lost.
    pub(crate) async fn run<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> redis::RedisResult<T> {
        match self {
            Commands::Single { client, connection: shared } => {
                let mut connection = lock(shared).clone();
                match command.query_async(&mut connection).await {
                    Err(e) if e.is_connection_dropped() || e.is_unrecoverable_error() || e.is_io_error() => {
                        let mut fresh = client.get_multiplexed_async_connection().await?;
                        *lock(shared) = fresh.clone();
                        command.query_async(&mut fresh).await
                    }
                    result => result,
                }
            }
            Commands::Cluster { connection, .. } => command.query_async(&mut connection.clone()).await,
        }
    }

    /// Publishes `message` on `channel`: `PUBLISH` on one server, `SPUBLISH`
    /// (sharded pub/sub: the message travels only within the channel's
    /// shard, not over the whole cluster's bus) on a cluster.
    pub(crate) async fn publish(&self, channel: &str, message: &str) -> redis::RedisResult<()> {
        let mut command = redis::cmd(match self {
            Commands::Single { .. } => "PUBLISH",
            Commands::Cluster { .. } => "SPUBLISH",
        });
        command.arg(channel).arg(message);
        self.run::<i64>(&command).await.map(drop)
    }

    /// A `PING`: on one server, on a fresh connection when the last one
    /// broke; on a cluster, to any one node, so that a replica stays ready
    /// while the cluster promotes a replica of a failed master (the calls
    /// that need no Redis go on meanwhile).
    pub(crate) async fn ping(&self) -> redis::RedisResult<()> {
        match self {
            Commands::Single { .. } => self.run::<String>(&redis::cmd("PING")).await.map(drop),
            Commands::Cluster { connection, .. } => {
                // A node that just died may still be among those picked from:
                // a few tries.
                let mut connection = connection.clone();
                let mut answer = Ok(());
                for _ in 0..3 {
                    let random = RoutingInfo::SingleNode(SingleNodeRoutingInfo::Random);
                    answer = connection.route_command(redis::cmd("PING"), random).await.map(drop);
                    if answer.is_ok() {
                        break;
                    }
                }
                answer
            }
        }
    }

    /// Where subscriptions of this connection's own are made.
    pub(crate) fn address(&self) -> Address {
        match self {
            Commands::Single { client, .. } => Address::Single(client.clone()),
            Commands::Cluster { nodes, .. } => Address::Cluster(nodes.to_vec()),
        }
    }
}

/// `EVAL source` on `keys` with `args`: one step, atomic in Redis. On a
/// cluster every key of one script lives in one hash slot (the stores'
/// keys share a hash tag where a script touches more than one). (The
/// stores' steps; the bus has none.)
#[cfg(any(feature = "session", feature = "tasks", feature = "auth"))]
pub(crate) fn script(source: &str, keys: &[&str], args: &[&str]) -> redis::Cmd {
    let mut command = redis::cmd("EVAL");
    command.arg(source).arg(keys.len()).arg(keys).arg(args);
    command
}
