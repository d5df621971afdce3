//! Tasks: the `io.modelcontextprotocol/tasks` extension, in which a
//! `tools/call` is answered at once with a task handle and the client
//! polls for the result.
//!
//! A tool takes part by declaring it, with `#[tool(task)]` (may run as a
//! task) or `#[tool(task(required))]` (only as one), or
//! [`ToolEntry::task`](crate::entry::ToolEntry::task). Its body stays an ordinary
//! async function: [`Input`](crate::Input) works inside a task (the task
//! turns `input_required` and `tasks/update` brings the answers), and its
//! [`CancellationToken`](crate::CancellationToken) fires on `tasks/cancel`.
//!
//! ```
//! use std::time::Duration;
//! use mcp_runtime::{CancellationToken, tool};
//!
//! /// Renders the report, which takes a while.
//! #[tool(task)]
//! async fn render_report(cancel: CancellationToken) -> String {
//!     tokio::select! {
//!         () = cancel.cancelled() => "stopped".to_owned(),
//!         () = tokio::time::sleep(Duration::from_secs(30)) => "rendered".to_owned(),
//!     }
//! }
//! ```
//!
//! The server then advertises the extension in `server/discover`, and
//! serves `tasks/get`, `tasks/update` and `tasks/cancel`:
//!
//! - a call becomes a task only when its request declares the extension in
//!   its client capabilities; otherwise an optional tool runs as an
//!   ordinary call and a required one is refused with `-32021`;
//! - a task is created in the [`TaskStore`] before the client hears of it,
//!   so that its first `tasks/get` finds it;
//! - its status is `working`, `input_required` (with `inputRequests`),
//!   `completed` (with `result`, a tool error with `isError` included),
//!   `failed` (with the JSON-RPC `error`, a panic included) or `cancelled`;
//! - task ids are 128 random bits, and a task is bound to the owner that
//!   created it ([`ServerBuilder::task_owner`]):
//!   another owner's requests find no such task (`-32602`, as for an
//!   unknown one);
//! - a listen stream asking for `taskIds` gets `notifications/tasks`, the
//!   whole task, on each change;
//! - progress a handler running as a task reports
//!   ([`Progress`](crate::extract::Progress)) becomes the task's `statusMessage`;
//!   its log messages go nowhere: the extension carries none.
//!
//! A test drives a task as a client would, declaring the extension:
//!
//! ```
//! use mcp_runtime::protocol::ClientCapabilities;
//! use mcp_runtime::tasks::{TASKS_EXTENSION, TaskSupport};
//! use mcp_runtime::{Server, client::Client, entry::ToolEntry};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let server = Server::builder("jobs", "1.0.0")
//!     .tool(ToolEntry::new("export", || async { "exported" }).task(TaskSupport::optional()))
//!     .build()
//!     .unwrap();
//! let client = Client::in_process(server)
//!     .capabilities(ClientCapabilities::default().with_extension(TASKS_EXTENSION, json!({})));
//! // A task is not a tool's result: the result is read as JSON.
//! let created = client.request("tools/call", json!({"name": "export", "arguments": {}})).await.unwrap();
//! assert_eq!(created["resultType"], "task");
//! let task_id = created["taskId"].clone();
//! let task = loop {
//!     let task = client.request("tasks/get", json!({"taskId": task_id})).await.unwrap();
//!     if task["status"] == "completed" {
//!         break task;
//!     }
//!     tokio::time::sleep(std::time::Duration::from_millis(10)).await;
//! };
//! assert_eq!(task["result"]["content"][0]["text"], "exported");
//! # });
//! ```
//!
//! The record a store keeps ([`TaskRecord`]) is serde data, for stores
//! that outlive a process: `RedisTaskStore` (feature `redis`), shared by
//! replicas, and `SqliteTaskStore` (feature `sqlite`), a file that
//! survives a restart. The handler itself runs in the process that created
//! the task, which renews a lease on it ([`RunnerLease`]): a task whose
//! lease lapsed before it finished reads as `failed`. A `tasks/cancel` or
//! `tasks/update` served by another replica is written into the record,
//! and the event bus (`RedisBus`, feature `redis`) has the
//! running replica read it and hand it to the handler. Tasks are a 2026-07-28
//! feature: 2025-era sessions see neither the extension nor its methods.
//!
//! All of it but [`TaskSupport`] and the extension's names is the `tasks`
//! feature (on by default). A build without it offers no extension, runs
//! a `task` tool as an ordinary call, answers `tasks/*` with `-32601`, and
//! refuses to build a server with a `task(required)` tool
//! ([`BuildError::MissingFeature`](crate::BuildError::MissingFeature)).
#![cfg_attr(feature = "tasks", doc = "\n\n[`ServerBuilder::task_owner`]: crate::ServerBuilder::task_owner")]
// Without the feature, the names lead to what is left of it.
#![cfg_attr(
    not(feature = "tasks"),
    doc = "\n\n[`TaskStore`]: TaskSupport\n[`TaskRecord`]: TaskSupport\n[`RunnerLease`]: TaskSupport\n\
           [`ServerBuilder::task_owner`]: crate::ServerBuilder"
)]

#[cfg(feature = "tasks")]
mod clock;
#[cfg(feature = "tasks")]
mod config;
#[cfg(feature = "tasks")]
mod id;
#[cfg(feature = "tasks")]
mod link;
#[cfg(feature = "tasks")]
mod memory;
#[cfg(feature = "tasks")]
mod record;
#[cfg(feature = "tasks")]
mod runner;
#[cfg(feature = "tasks")]
mod service;
#[cfg(feature = "tasks")]
mod settings;
#[cfg(all(feature = "tasks", feature = "sqlite"))]
mod sqlite;
#[cfg(feature = "tasks")]
mod store;
mod support;

#[cfg(feature = "tasks")]
pub use memory::{DEFAULT_MAX_TASKS, MemoryTaskStore};
#[cfg(feature = "tasks")]
pub use record::{RunnerLease, TaskRecord, TaskStatus};
#[cfg(all(feature = "tasks", feature = "sqlite"))]
pub use sqlite::SqliteTaskStore;
#[cfg(feature = "tasks")]
pub use store::{DEFAULT_MAX_TASKS_PER_QUOTA, TaskStore, TaskStoreError, TaskStoreFuture};
pub use support::TaskSupport;

#[cfg(all(feature = "tasks", feature = "redis"))]
pub(crate) use clock::now_ms;
#[cfg(feature = "tasks")]
pub(crate) use config::TaskConfig;
#[cfg(feature = "tasks")]
pub(crate) use id::new_task_id;
#[cfg(all(feature = "tasks", feature = "redis"))]
pub(crate) use memory::quota_full;
#[cfg(feature = "tasks")]
pub(crate) use runner::{Work, spawn};
#[cfg(feature = "tasks")]
pub(crate) use service::Tasks;

/// The input side of one running task of a server.
#[cfg(feature = "tasks")]
pub(crate) type TaskLink = link::TaskLink<Tasks>;

/// The extension's id, under `extensions` in capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// `notifications/tasks`: the whole task, on a listen stream that asked
/// for its id.
pub const TASKS_NOTIFICATION: &str = "notifications/tasks";

/// Whether `capabilities` (a request's client capabilities) declare the
/// tasks extension.
pub(crate) fn declared(capabilities: &crate::protocol::ClientCapabilities) -> bool {
    capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// `-32021` naming the tasks extension.
pub(crate) fn missing_extension(what: &str) -> crate::protocol::ErrorObject {
    let mut extensions = serde_json::Map::new();
    extensions.insert(TASKS_EXTENSION.into(), serde_json::Value::Object(serde_json::Map::new()));
    crate::protocol::ErrorObject::missing_client_capability(
        format!("{what} needs the client capability `extensions.{TASKS_EXTENSION}`"),
        serde_json::json!({ "extensions": extensions }),
    )
}
