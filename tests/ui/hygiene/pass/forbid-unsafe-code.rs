//! Registration (linkme) and the generated code keep a user crate free of
//! `unsafe`.
#![forbid(unsafe_code)]

use mcp_runtime::{prompt, resource, tool};

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Asks for a haiku.
#[prompt]
fn haiku() -> &'static str {
    "Write a haiku"
}

/// The read-me.
#[resource("docs://readme")]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {
    let server = mcp_runtime::server!("safe", "1.0.0").build();
    let server = match server {
        Ok(server) => server,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(server.tools().count(), 1);
}
