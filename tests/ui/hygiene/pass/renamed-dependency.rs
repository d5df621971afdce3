//! The runtime is reachable only as `renamed`: `::mcp_runtime` names this
//! crate itself, which has no `__private`, so any generated path that
//! forgot `crate = ...` would fail to resolve.

extern crate self as mcp_runtime;
extern crate mcp_runtime as renamed;

use renamed::{Server, prompt, resource, tool};

/// Adds two numbers.
#[tool(crate = ::renamed)]
fn add(a: i64, #[arg(default = 1)] b: i64) -> i64 {
    a + b
}

/// Asks for a haiku.
#[prompt(crate = ::renamed)]
fn haiku(topic: String) -> String {
    format!("Write a haiku about {topic}")
}

/// One note.
#[resource("notes://{id}", crate = ::renamed)]
fn note(id: u64) -> String {
    format!("note {id}")
}

fn main() {
    let server = Server::builder("renamed", "1.0.0")
        .tools(renamed::tools![add])
        .prompts(renamed::prompts![haiku])
        .resources(renamed::resources![note])
        .build();
    assert!(server.is_ok());
}
