//! Generated code spells every std item from the crate root, so a crate
//! that shadows prelude names still compiles.
#![allow(dead_code, non_camel_case_types)]

use mcp_runtime::{prompt, resource, tool};

struct Result;
struct Option;
struct String;
struct Vec;
struct Box;
struct Some;
struct None;
struct Ok;
struct Err;
trait Send {}
trait Sync {}
trait From {}
trait Into {}
trait Default {}
trait ToString {}
struct str;
mod core {}
mod std {}
mod serde {}
mod serde_json {}
mod schemars {}
mod linkme {}

/// Adds two numbers.
#[tool(meta("com.example/kind" = "math"), icons = ["https://example.com/add.png"])]
fn add(a: i64, #[arg(default = 1)] b: i64) -> ::core::result::Result<i64, ::std::string::String> {
    ::core::result::Result::Ok(a + b)
}

/// Asks for a haiku.
#[prompt]
async fn haiku(topic: ::std::string::String, lines: ::core::option::Option<u8>) -> ::std::string::String {
    ::std::format!("Write a haiku about {topic} in {} lines", lines.unwrap_or(3))
}

/// One note.
#[resource("notes://{id}", mime_type = "text/plain")]
fn note(id: u64) -> ::core::option::Option<::std::string::String> {
    ::core::option::Option::Some(::std::format!("note {id}"))
}

fn main() {
    let server = mcp_runtime::server!("hygiene", "1.0.0").build();
    assert!(server.is_ok());
}
