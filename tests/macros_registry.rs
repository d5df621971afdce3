//! Link-time registration: every annotated function linked into this binary
//! is served without a central list, sorted by name, under the name and
//! version of the crate that builds the server.

#[path = "macros/common.rs"]
mod common;

use common::{exchange, result};
use mcp_runtime::{Server, prompt, resource, tool};
use mcp_tests::validated_client::checked;
use serde_json::json;

/// Declared first, listed last.
#[tool]
fn zeta() -> &'static str {
    "z"
}

/// Declared last, listed first.
#[tool]
fn alpha() -> &'static str {
    "a"
}

mod nested {
    /// Lives in a module nothing else refers to.
    #[mcp_runtime::tool]
    fn middle() -> &'static str {
        "m"
    }
}

/// A prompt.
#[prompt]
fn greeting() -> &'static str {
    "Hello"
}

/// A resource.
#[resource("test://registered")]
fn registered_resource() -> &'static str {
    "here"
}

fn server() -> Server {
    mcp_runtime::server!().build().unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test]
async fn everything_linked_in_is_served_sorted_by_name() {
    let client = checked(server());
    let (response, _) = exchange(&client, "tools/list", json!({})).await;
    let names: Vec<&str> =
        result(&response)["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["alpha", "middle", "zeta"]);
    let (response, _) = exchange(&client, "prompts/list", json!({})).await;
    assert_eq!(result(&response)["prompts"][0]["name"], "greeting");
    let (response, _) = exchange(&client, "resources/read", json!({"uri": "test://registered"})).await;
    assert_eq!(result(&response)["contents"][0]["text"], "here");
}

#[tokio::test]
async fn the_server_reports_the_calling_crate_and_derives_capabilities() {
    let server = server();
    assert_eq!(server.info().name, "mcp-tests");
    assert_eq!(server.info().version, env!("CARGO_PKG_VERSION"));
    let discover = checked(server).request("server/discover", json!({})).await.unwrap_or_default();
    let capabilities = &discover["capabilities"];
    for present in ["tools", "prompts", "resources"] {
        assert!(capabilities.get(present).is_some(), "{present} missing: {discover}");
    }
    assert!(capabilities.get("completions").is_none(), "{discover}");
}

#[test]
fn a_server_named_in_the_macro_serves_the_same_items_under_that_name() {
    let server = mcp_runtime::server!("named", "9.9.9").build().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((server.info().name.as_str(), server.info().version.as_str()), ("named", "9.9.9"));
    assert_eq!(server.tool_names(), ["alpha", "middle", "zeta"]);
}
