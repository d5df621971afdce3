//! Link-time registration: every `#[tool]`, `#[prompt]` and `#[resource]`
//! linked into the binary, collected without a central list.
//!
//! Each annotated function puts one static descriptor into a distributed
//! slice (linkme) declared here. [`ServerBuilder::registered`] adds them all.
//!
//! Guarantees: the server sorts everything by name (resources by name, then
//! URI), so lists are stable across builds whatever order the linker chose,
//! and two definitions with one name are a [`BuildError`] naming both source
//! locations.
//!
//! Not guaranteed: which items a binary sees is decided by the linker. Each
//! test binary sees the items linked into it; a module nothing refers to in a
//! library may be dropped by some linkers; targets linkme does not support
//! (such as wasm) need the explicit lists ([`tools!`](crate::tools),
//! [`prompts!`](crate::prompts), [`resources!`](crate::resources)) instead.
//!
//! This crate declares the slices but never registers into them itself,
//! which keeps it (and every user crate) free of `unsafe` code.

use crate::error::BuildError;
use crate::registry::{PromptDescriptor, PromptEntry, ResourceDescriptor, ResourceEntry, ToolDescriptor, ToolEntry};
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
    /// binary (which is why this example runs as its own crate: doctests
    /// merged into one binary would all see each other's tools).
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
