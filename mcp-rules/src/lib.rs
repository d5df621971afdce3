//! The rules that `mcp-runtime` and its attribute macros must both apply,
//! each written once.
//!
//! The macros (`#[tool]`, `#[prompt]`, `#[resource]`) check them at compile
//! time and the runtime's builders when a server is built, so a tool built by
//! hand with `ToolEntry::new` obeys exactly the rules of one written with
//! `#[tool]`. Every rule is a plain function or constant without
//! dependencies, usable from a proc-macro crate and from the runtime alike.
//!
//! ```
//! use mcp_runtime_rules::{header, tool_name};
//!
//! assert!(tool_name::check("get_weather").is_ok());
//! assert!(header::check_name("Region").is_ok());
//! assert_eq!(header::lookup_key("Region"), "mcp-param-region");
//! ```

#![forbid(unsafe_code)]

pub mod context;
pub mod header;
pub mod output;
pub mod scope;
pub mod tool_name;
