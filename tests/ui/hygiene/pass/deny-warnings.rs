//! The generated code raises no warnings, even under strict lints.
#![deny(warnings, missing_docs, unreachable_pub, unused_qualifications, unused_results, rust_2018_idioms)]
//! A server.

use mcp_runtime::{RequestContext, prompt, resource, tool, extract::{Logger, Progress}};

/// Adds two numbers.
#[tool]
pub async fn add(a: i64, b: i64, progress: Progress, log: Logger, cx: &RequestContext) -> i64 {
    let _ = (progress.report(1.0, None), log.info("adding"), cx.is_cancelled());
    a + b
}

/// Asks for a haiku.
#[prompt]
pub fn haiku(#[arg(default = "the sea")] topic: String) -> String {
    format!("Write a haiku about {topic}")
}

/// One note.
#[resource("notes://{id}")]
pub fn note(id: u64) -> String {
    format!("note {id}")
}

fn main() {}
