//! Redis, for replicas behind a load balancer that routes by nothing: the
//! [`RedisBus`] (list changes and resource updates reach every replica's
//! listen streams), the [`RedisTaskStore`] (any replica serves any task) and
//! the [`RedisSessionStore`] (any replica serves any 2025-era session), over
//! connections that are made again when lost.
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
#![cfg_attr(not(feature = "tasks"), doc = "\n\n[`RedisTaskStore`]: crate::tasks::TaskSupport")]
#![cfg_attr(not(feature = "legacy"), doc = "\n\n[`RedisSessionStore`]: crate::server::Eras")]

mod bus;
mod commands;
#[cfg(feature = "cache")]
mod results;
#[cfg(feature = "legacy")]
mod sessions;
mod subscription;
#[cfg(feature = "tasks")]
mod tasks;

pub use bus::RedisBus;
#[cfg(feature = "cache")]
#[cfg_attr(docsrs, doc(cfg(feature = "cache")))]
pub use results::RedisResultStore;
#[cfg(feature = "legacy")]
#[cfg_attr(docsrs, doc(cfg(feature = "legacy")))]
pub use sessions::RedisSessionStore;
#[cfg(feature = "tasks")]
#[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
pub use tasks::RedisTaskStore;
