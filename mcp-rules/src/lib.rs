//! The rules that `mcp-runtime` and its attribute macros must both apply,
//! each written once.
//!
//! The macros (`#[tool]`, `#[prompt]`, `#[resource]`) check them at compile
//! time and the runtime's builders when a server is built, so a tool built by
//! hand with `ToolEntry::new` obeys exactly the rules of one written with
//! `#[tool]`. Every rule is a plain function, constant or parsed model, usable
//! from a proc-macro crate and from the runtime alike: tool names, header
//! names, OAuth scopes, context types, structured output, the URI-template
//! grammar the runtime matches with ([`uri_template`]) and the absolute-URI
//! rule every resource URI and every URI a client names must meet ([`uri`]).
//!
//! ```
//! use mcp_runtime_rules::{header, tool_name, uri, uri_template::Template};
//!
//! assert!(tool_name::check("get_weather").is_ok());
//! assert!(header::check_name("Region").is_ok());
//! assert_eq!(header::lookup_key("Region"), "mcp-param-region");
//! assert!(uri::check_absolute("docs://readme").is_ok());
//! assert!(Template::parse("users://{id}/profile").is_ok());
//! ```

#![forbid(unsafe_code)]

pub mod context;
pub mod header;
pub mod output;
pub mod scope;
#[cfg(feature = "skills")]
pub mod skill;
pub mod tool_name;
pub mod uri;
pub mod uri_template;
pub mod view;
