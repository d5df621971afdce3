//! Middleware at the MCP level: layers that see a request as MCP sees it
//! (its method, the tool, prompt or resource it names, its arguments, its
//! caller) rather than as bytes and headers, on every transport and in both
//! eras.
//!
//! A [`Layer`] is registered on the builder with
//! [`ServerBuilder::layer`](crate::ServerBuilder::layer) (the first one
//! registered is the outermost), or on one tool with
//! [`ToolEntry::layer`](crate::entry::ToolEntry::layer) or
//! `#[tool(layer = ...)]` (inside the server's layers). It receives the
//! request's [`McpRequest`] view and the [`Next`] step, and can pass the
//! request on (`next.run(request).await`), answer it itself
//! ([`McpRequest::error`], [`McpRequest::reply`]), or read and replace
//! the response on its way out.
//!
//! ```
//! use mcp_runtime::middleware::{self, McpRequest, Next};
//! use mcp_runtime::protocol::{ErrorObject, Method};
//!
//! /// Adds two numbers.
//! #[mcp_runtime::tool]
//! async fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! let server = mcp_runtime::Server::builder("calculator", "1.0.0")
//!     .tools(mcp_runtime::tools![add])
//!     .layer(middleware::from_fn(|request: McpRequest, next: Next| async move {
//!         if request.method() == Method::ToolsCall && request.target() == Some("delete_everything") {
//!             return request.error(ErrorObject::invalid_params("Refused by policy"));
//!         }
//!         next.run(request).await
//!     }))
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```
//!
//! # What layers see, and when
//!
//! - **After validation, before the handler.** A request reaches the layers
//!   once its envelope, `_meta`, headers, version, method and params have
//!   been checked, and once the caller's scopes allow it: a request refused
//!   for its scopes (403, or `-32001` in a batch) never reaches a layer.
//! - **The methods the dispatcher runs**, in both eras: `tools/call`,
//!   `prompts/get`, `resources/read`, the lists, `completion/complete`,
//!   `server/discover`, `subscriptions/listen` and the task methods. A
//!   2025-era session's own housekeeping (`initialize`, `ping`,
//!   `logging/setLevel`, `resources/subscribe`) is the session's, and
//!   passes no layer.
//! - **Lists are not filtered by layers**: a layer that refuses a tool does
//!   not hide it from `tools/list` (scopes do that); a layer may still
//!   rewrite a list's response.
//! - **Input requests: every round.** A handler that asks for input is
//!   answered `input_required` and run again with the answers; each run is
//!   a request of its own and passes the layers
//!   ([`McpRequest::is_later_round`] tells them apart).
//! - **Tasks: once, around the task's work.** A `tools/call` that becomes
//!   a task passes the layers in the task: they see the call
//!   ([`McpRequest::is_task`]) and the tool's final result, once; what the
//!   client is answered at once (the task's handle) passes none. A layer
//!   that answers by itself ends the task with its answer. The later
//!   `tasks/get`, `tasks/update` and `tasks/cancel` pass the layers as
//!   requests of their own.
//!
//! A server without layers pays one check per request for them: no view
//! is made, no future is boxed.

mod audit;
mod layer;
mod refusal;
mod request;
mod time_limit;

#[cfg(feature = "cache")]
pub(crate) mod cache;
#[cfg(feature = "rate-limit")]
mod rate_limit;

pub use audit::Audit;
#[cfg(feature = "cache")]
pub use cache::{ResultCache, ResultStore};
#[cfg(feature = "rate-limit")]
pub use rate_limit::{RETRY_AFTER, RateLimit};
pub use time_limit::TimeLimit;

pub use crate::handler::caller::Caller;
pub use layer::{BoxFuture, FromFn, Layer, Next, from_fn};
pub(crate) use layer::{Layers, ServerLayers, admission, run_layered, tell};
pub use refusal::{Refusal, RefusalReason};
pub use request::McpRequest;
pub(crate) use request::{Answer, View};

pub use crate::response::Response;
