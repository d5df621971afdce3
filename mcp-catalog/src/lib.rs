//! Keep an MCP server's tool API stable, and check it against the model
//! providers that will call it.
//!
//! A server built with `mcp-runtime` writes its whole catalog (the
//! `server/discover` result and every tool, prompt, resource and template
//! definition, sorted, in a stable format) with `--dump-catalog`; commit
//! that snapshot, and this crate:
//!
//! - compares two snapshots and classifies each change as breaking for
//!   existing clients or compatible ([`diff`]);
//! - checks each tool's schemas against the documented tool-calling rules
//!   of OpenAI (strict function calling), Google Gemini (function
//!   declarations) and Anthropic (tool use), citing the rule each rejection
//!   breaks ([`profile`]); the rules are data, in `rules/providers.json`.
//!
//! The `mcp-catalog` command line does both:
//!
//! ```text
//! mcp-catalog diff OLD.json NEW.json                 # exit 1 when a change is breaking
//! mcp-catalog check --profile openai catalog.json   # exit 1 when a tool is rejected
//! ```

#![forbid(unsafe_code)]

pub mod diff;
pub mod profile;
pub mod snapshot;
