//! Write Model Context Protocol servers (revision 2026-07-28) in plain Rust.
//!
//! The runtime holds the protocol types ([`protocol`]), an immutable
//! [`Server`] built from tools, prompts and resources, the stateless
//! dispatcher that answers each request from that request alone, and the
//! transports.
//!
//! ```
//! use mcp_runtime::{Args, Server, ToolEntry};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add {
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! }
//!
//! let server = Server::builder("calculator", "1.0.0")
//!     .tool(ToolEntry::new("add", |Args(x): Args<Add>| async move { x.a + x.b }).description("Adds two numbers."))
//!     .build()
//!     .expect("a valid server");
//! // server.serve_stdio().await
//! # let _ = server;
//! ```
//!
//! With the attribute macros ([`tool`], [`prompt`], [`resource`]) the same
//! tool is a plain function. Every annotated function linked into the binary
//! is served (see [`registration`]), or list them explicitly with
//! [`tools!`], [`prompts!`] and [`resources!`]:
//!
//! ```standalone_crate
//! use mcp_runtime::tool;
//!
//! /// Adds two numbers.
//! #[tool(annotations(read_only))]
//! async fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! // Named after your crate, serving everything registered.
//! let server = mcp_runtime::server!().build()?;
//! assert_eq!(server.tools().count(), 1);
//! # Ok::<(), mcp_runtime::BuildError>(())
//! ```

mod call;
mod catalog;
mod context;
pub mod dispatch;
mod error;
pub mod events;
mod extension;
mod extract;
mod handler;
mod header_param;
mod header_value;
pub mod input;
mod macros;
mod notify;
mod outcome;
mod private;
pub mod protocol;
pub mod registration;
mod registry;
mod request_state;
pub mod schema;
mod server;
pub mod testing;
pub mod transport;
mod uri_template;

pub use call::{Call, CompleteCall, PromptCall, ResourceCall, ToolCall};
pub use context::{DiscardNotifications, NotificationSink, RequestContext, StateRequirement};
pub use error::BuildError;
#[cfg(feature = "http")]
pub use extension::Extension;
pub use extract::{Args, FromCall, Rejection, State};
pub use handler::{BoxFuture, PromptHandler, ResourceHandler, ToolHandler};
pub use header_value::HeaderValue;
pub use input::Input;
pub use mcp_runtime_macros::{prompt, resource, tool};
pub use notify::{Logger, Progress};
pub use outcome::{
    IntoPromptResult, IntoResourceContents, IntoToolResult, Json, NotFound, Outcome, PromptOutcome, ResourceOutcome,
    RpcError, ToolOutcome,
};
pub use registry::{
    CompleterFn, PromptDescriptor, PromptEntry, ResourceDefinition, ResourceDescriptor, ResourceEntry, SourceLocation,
    ToolDescriptor, ToolEntry,
};
pub use request_state::RequestStateKey;
pub use server::{DEFAULT_PAGE_SIZE, Server, ServerBuilder};
pub use tokio_util::sync::CancellationToken;
pub use uri_template::{TemplateError, UriTemplate};

#[doc(hidden)]
pub mod __private {
    //! Used by the code `#[tool]`, `#[prompt]` and `#[resource]` generate;
    //! not public API.
    pub use crate::private::*;
}
