//! Handlers: async functions (or closures) whose parameters are extractors
//! and whose results become protocol results, as [`ToolHandler`],
//! [`PromptHandler`] and [`ResourceHandler`] describe them. What a
//! `#[tool]` function is, and what [`ToolEntry::new`](crate::entry::ToolEntry::new)
//! takes.
//!
//! Inside the crate this is the handler core: the call a handler serves and
//! its context, the extractors, the HTTP request view, notifications,
//! outcomes, shared state and the panic guard. It sits below the registry,
//! the server and the transports: it imports the protocol's types, and the
//! input module's, and nothing of what serves it.

pub(crate) mod call;
pub(crate) mod caller;
pub(crate) mod context;
#[cfg(feature = "http")]
pub(crate) mod extension;
pub(crate) mod extract;
pub(crate) mod functions;
pub(crate) mod http_request;
pub(crate) mod notify;
pub(crate) mod outcome;
pub(crate) mod panic_guard;
pub(crate) mod passed;
pub(crate) mod principal;
pub(crate) mod state;

pub use functions::{BoxFuture, PromptHandler, ResourceHandler, ToolHandler};
