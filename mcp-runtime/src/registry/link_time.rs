//! The link-time registry: the slices every `#[tool]`, `#[prompt]` and
//! `#[resource]` puts its static descriptor into (linkme), which
//! [`server!`](crate::server!) reads into a builder.
//!
//! This crate declares the slices but never registers into them itself,
//! which keeps it (and every user crate) free of `unsafe` code. What a
//! binary sees, and what is guaranteed about it, is documented on
//! [`server!`](crate::server!).

use crate::registry::entry::{PromptDescriptor, ResourceDescriptor, ToolDescriptor};

/// Every `#[tool]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static TOOLS: [ToolDescriptor];

/// Every `#[prompt]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static PROMPTS: [PromptDescriptor];

/// Every `#[resource]` linked into the binary, in no particular order.
#[linkme::distributed_slice]
pub static RESOURCES: [ResourceDescriptor];
