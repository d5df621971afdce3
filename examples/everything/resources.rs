//! Fixed resources, a resource template, and completion of its variable.

use mcp_runtime::{resource, tool};
use serde_json::json;

use crate::fixtures::PIXEL_PNG;

/// A static text resource.
#[resource("test://static-text", name = "static_text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource: a 1×1 PNG.
#[resource("test://static-binary", name = "static_binary", mime_type = "image/png")]
fn static_binary() -> Vec<u8> {
    PIXEL_PNG.to_vec()
}

fn complete_id(typed: &str) -> Vec<String> {
    (1..=20).map(|n| n.to_string()).filter(|id| id.starts_with(typed)).collect()
}

/// Data for one id.
#[resource("test://template/{id}/data", name = "template_data", mime_type = "application/json")]
fn template_data(#[arg(complete = complete_id)] id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

/// Returns a link to the static text resource.
#[tool(annotations(read_only))]
fn test_resource_link() -> mcp_runtime::protocol::ContentBlock {
    mcp_runtime::protocol::ContentBlock::resource_link("test://static-text", "static_text")
}
