//! The wire types of MCP revision 2026-07-28.
//!
//! Module names follow the method families, so a JSON-RPC `method` leads to a
//! file: `tools/call` → [`tools`], `resources/read` → [`resources`], and so on.
//! Results here hold only their own fields; the dispatcher adds `resultType`,
//! `_meta["io.modelcontextprotocol/serverInfo"]` and cache hints.
//!
//! Serde types and nothing that runs, so that a client, a gateway or a test
//! can read and write MCP messages without a server. `mcp-runtime`
//! re-exports this crate as `mcp_runtime::protocol`.
//!
//! ```
//! use mcp_runtime_protocol::{CallToolParams, PROTOCOL_VERSION};
//!
//! let params: CallToolParams = serde_json::from_str(r#"{"name":"add","arguments":{"a":1,"b":2}}"#)?;
//! assert_eq!(params.name, "add");
//! assert_eq!(PROTOCOL_VERSION, "2026-07-28");
//! # Ok::<(), serde_json::Error>(())
//! ```

pub mod completion;
pub mod content;
pub mod discover;
pub mod icon;
pub mod jsonrpc;
// Readers of JSON members for mcp-runtime's one-pass request parsing: not
// part of this crate's API.
#[doc(hidden)]
pub mod member;
pub mod meta;
pub mod method;
pub mod mrtr;
pub mod notifications;
pub mod prompts;
pub mod resources;
pub mod result;
pub mod revision;
pub mod skills;
pub mod subscriptions;
pub mod tools;
// The check of the URIs params name, for mcp-runtime: not part of this
// crate's API.
#[doc(hidden)]
pub mod uri;

pub use completion::*;
pub use content::*;
pub use discover::*;
pub use icon::*;
pub use jsonrpc::*;
pub use meta::*;
pub use method::{Method, Target};
pub use mrtr::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use result::*;
pub use revision::{ProtocolVersion, UnknownProtocolVersion};
pub use skills::*;
pub use subscriptions::*;
pub use tools::*;

/// The protocol revision this crate implements
/// ([`ProtocolVersion::LATEST`], as text).
pub const PROTOCOL_VERSION: &str = ProtocolVersion::LATEST.as_str();

/// Every revision the dispatcher accepts.
pub const SUPPORTED_VERSIONS: &[&str] = &[PROTOCOL_VERSION];
