//! Tasks: the `io.modelcontextprotocol/tasks` extension, in which a
//! `tools/call` is answered at once with a task handle and the client
//! polls for the result.
//!
//! A tool takes part by declaring it, with `#[tool(task)]` (may run as a
//! task) or `#[tool(task(required))]` (only as one), or
//! [`ToolEntry::task`](crate::ToolEntry::task). Its body stays an ordinary
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
//!   created it ([`ServerBuilder::task_owner`](crate::ServerBuilder::task_owner)):
//!   another owner's requests find no such task (`-32602`, as for an
//!   unknown one);
//! - a listen stream asking for `taskIds` gets `notifications/tasks`, the
//!   whole task, on each change;
//! - progress and log messages of a handler running as a task go nowhere:
//!   the extension carries neither.
//!
//! The record a store keeps ([`TaskRecord`]) is serde data, for stores
//! shared by replicas. The handler itself runs in the process that created
//! the task, which renews a lease on it ([`RunnerLease`]): a task whose
//! lease lapsed before it finished reads as `failed`. Tasks are a 2026-07-28
//! feature: 2025-era sessions see neither the extension nor its methods.

mod clock;
mod config;
mod id;
mod link;
mod memory;
mod record;
mod runner;
mod service;
mod store;
mod support;

pub use memory::{DEFAULT_MAX_TASKS, MemoryTaskStore};
pub use record::{RunnerLease, TaskRecord, TaskStatus};
pub use store::{TaskStore, TaskStoreError, TaskStoreFuture};
pub use support::TaskSupport;

pub(crate) use config::TaskConfig;
pub(crate) use id::new_task_id;
pub(crate) use link::TaskLink;
pub(crate) use runner::{Work, spawn};
pub(crate) use service::Tasks;

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
