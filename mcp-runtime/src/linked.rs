//! The link-time slices every `#[tool]`, `#[prompt]` and `#[resource]`
//! puts its static descriptor into (linkme), and their reading into a
//! builder for [`server!`](crate::server).
//!
//! This crate declares the slices but never registers into them itself,
//! which keeps it (and every user crate) free of `unsafe` code. What a
//! binary sees, and what is guaranteed about it, is documented on
//! [`server!`](crate::server).

use crate::entry::{PromptDescriptor, PromptEntry, ResourceDescriptor, ResourceEntry, ToolDescriptor, ToolEntry};
use crate::error::BuildError;
use crate::server::{Server, ServerBuilder};

/// Every `#[tool]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static TOOLS: [ToolDescriptor];

/// Every `#[prompt]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static PROMPTS: [PromptDescriptor];

/// Every `#[resource]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static RESOURCES: [ResourceDescriptor];

impl ServerBuilder {
    /// Adds every `#[tool]`, `#[prompt]` and `#[resource]` linked into the
    /// binary; [`server!`](crate::server) says what that covers (which is
    /// also why this example runs as its own crate: doctests merged into
    /// one binary would all see each other's tools).
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, tool};
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let server = Server::builder("calculator", "1.0.0").registered().build()?;
    /// assert!(server.tools().any(|t| t.definition().name == "add"));
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// ```
    pub fn registered(self) -> Self {
        self.tools(TOOLS.iter().map(ToolEntry::from_descriptor))
            .prompts(PROMPTS.iter().map(PromptEntry::from_descriptor))
            .resources(RESOURCES.iter().map(ResourceEntry::from_descriptor))
    }
}

impl Server {
    /// A server named `name` `version` serving everything registered with
    /// the macros (see [`ServerBuilder::registered`]). To report your crate's
    /// own name and version, use [`server!`](crate::server) instead.
    pub fn from_registry(name: impl Into<String>, version: impl Into<String>) -> Result<Server, BuildError> {
        Server::builder(name, version).registered().build()
    }
}
