//! Redis, for replicas behind a load balancer that routes by nothing: the
//! [`RedisBus`] (list changes and resource updates reach every replica's
//! listen streams), the [`RedisTaskStore`] (any replica serves any task),
//! the [`RedisSessionStore`] (any replica serves any 2025-era session),
//! the [`RedisReplayStore`] (a DPoP proof accepted by one replica is
//! refused by all) and, with `oauth-proxy`, the `RedisProxyStore` (one
//! OAuth front across replicas), over connections that are made again when
//! lost.
//!
//! ```no_run
//! use mcp_runtime::Server;
//! use mcp_runtime::redis::{RedisBus, RedisSessionStore, RedisTaskStore};
//! use mcp_runtime::transport::http::HttpConfig;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let url = "redis://127.0.0.1:6379";
//! let server = Server::builder("jobs", "1.0.0")
//!     .event_bus(RedisBus::connect(url, "jobs").await?)
//!     .task_store(RedisTaskStore::connect(url, "jobs").await?)
//!     .build()?;
//! let config = HttpConfig::default().session_store(RedisSessionStore::connect(url, "jobs").await?);
//! server.serve_http_with("0.0.0.0:8080", config).await?;
//! # Ok(())
//! # }
//! ```
//!
//! # One server or a cluster
//!
//! Every `connect` takes the same URL forms:
//!
//! - `redis://host:port/` (`rediss://` for TLS, `unix://` for a socket):
//!   one Redis or Valkey server.
//! - `redis+cluster://host:port,host:port/` (`rediss+cluster://`): a Redis
//!   Cluster or Valkey cluster, named by one or more of its nodes (the rest
//!   are learnt from them), with credentials and query, if any, for all. A
//!   comma-separated list of plain URLs, one per node, says the same.
//!
//! On a cluster, commands follow `MOVED` and `ASK` redirections and the
//! topology as it changes (the `redis` crate's cluster connection): when a
//! master fails and the cluster promotes its replica, the commands that
//! meanwhile found no master are retried against the new one. The keys one
//! script touches share a hash tag. Messages between replicas travel by
//! sharded pub/sub (`SPUBLISH`/`SSUBSCRIBE`, Redis 7 or Valkey 7.2 and
//! later), which the connection moves to the channel's new master; the
//! [`RedisBus`] tells its listeners of the gap a failover leaves
//! ([`ServerEvent::EventsMissed`](crate::events::ServerEvent::EventsMissed)).
//! Replication in Redis is asynchronous: a write that a master acknowledged
//! just before it failed may be missing on the replica that takes over.
#![cfg_attr(not(feature = "tasks"), doc = "\n\n[`RedisTaskStore`]: crate::tasks::TaskSupport")]
#![cfg_attr(not(feature = "session"), doc = "\n\n[`RedisSessionStore`]: crate::server::Eras")]
#![cfg_attr(not(feature = "auth"), doc = "\n\n[`RedisReplayStore`]: crate::auth")]

mod address;
mod bus;
mod commands;
#[cfg(feature = "oauth-proxy")]
mod proxy;
#[cfg(feature = "auth")]
mod replay;
#[cfg(feature = "cache")]
mod results;
#[cfg(feature = "session")]
mod sessions;
mod subscription;
#[cfg(feature = "tasks")]
mod tasks;

pub use bus::RedisBus;
#[cfg(feature = "oauth-proxy")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth-proxy")))]
pub use proxy::RedisProxyStore;
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use replay::RedisReplayStore;
#[cfg(feature = "cache")]
#[cfg_attr(docsrs, doc(cfg(feature = "cache")))]
pub use results::RedisResultStore;
#[cfg(feature = "session")]
#[cfg_attr(docsrs, doc(cfg(feature = "session")))]
pub use sessions::RedisSessionStore;
#[cfg(feature = "tasks")]
#[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
pub use tasks::RedisTaskStore;
