//! The link-time slices every `#[tool]`, `#[prompt]` and `#[resource]`
//! puts its static descriptor into (linkme), and their reading into a
//! builder for [`server!`](crate::server).
//!
//! This crate declares the slices but never registers into them itself,
//! which keeps it (and every user crate) free of `unsafe` code. What a
//! binary sees, and what is guaranteed about it, is documented on
//! [`server!`](crate::server).

use crate::entry::{PromptDescriptor, PromptEntry, ResourceDescriptor, ResourceEntry, ToolDescriptor, ToolEntry};
use crate::server::ServerBuilder;

/// Every `#[tool]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static TOOLS: [ToolDescriptor];

/// Every `#[prompt]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static PROMPTS: [PromptDescriptor];

/// Every `#[resource]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static RESOURCES: [ResourceDescriptor];

/// Adds every `#[tool]`, `#[prompt]` and `#[resource]` linked into the
/// binary to `builder`: what [`server!`](crate::server) expands to, the one
/// way to ask for them.
pub fn registered(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tools(TOOLS.iter().map(ToolEntry::from_descriptor))
        .prompts(PROMPTS.iter().map(PromptEntry::from_descriptor))
        .resources(RESOURCES.iter().map(ResourceEntry::from_descriptor))
}
