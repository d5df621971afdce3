//! The client against a server written by others: the official Python
//! SDK's (pinned in `.ci/interop/requirements.txt`), which speaks both
//! eras, over its stdio and over Streamable HTTP, in 2026-07-28 (what the
//! client settles on by itself) and in a 2025-era session (what it is told).

use mcp_runtime::client::{Client, Revision};
use mcp_tests::python_sdk;
use serde_json::json;

/// Lists, calls and reads through `client`, which must speak `version`.
async fn exercise(client: &Client, version: &str) {
    assert_eq!(client.protocol_version().await.expect("negotiated"), version);
    let discover = client.discover().await.expect("discover");
    assert!(discover.supported_versions.iter().any(|v| v == version), "{discover:?}");
    assert_eq!(discover.instructions.as_deref(), Some("Call echo."));
    let names: Vec<String> = client.list_tools().await.expect("tools/list").into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["echo"]);
    let called = client.call_tool("echo", json!({"text": format!("in {version}")})).await.expect("tools/call");
    assert_ne!(called.is_error, Some(true), "{called:?}");
    assert_eq!(serde_json::to_value(&called.content).expect("JSON")[0]["text"], format!("in {version}"));
    let readme = client.read_resource("docs://readme").await.expect("resources/read");
    assert_eq!(serde_json::to_value(&readme.contents).expect("JSON")[0]["text"], "# From Python");
}

#[tokio::test]
#[cfg_attr(no_python_sdk, ignore = "the official Python SDK is not installed: run .ci/install.sh (needs python3)")]
async fn the_python_sdks_server_over_stdio_in_both_eras() {
    let stateless = Client::spawn(python_sdk::stdio_server()).expect("spawned");
    exercise(&stateless, "2026-07-28").await;
    let session = Client::spawn(python_sdk::stdio_server()).expect("spawned").revision(Revision::Session);
    exercise(&session, "2025-11-25").await;
}

#[tokio::test]
#[cfg_attr(no_python_sdk, ignore = "the official Python SDK is not installed: run .ci/install.sh (needs python3)")]
async fn the_python_sdks_server_over_http_in_both_eras() {
    let (_server, url) = python_sdk::http_server().await;
    exercise(&Client::http(&url), "2026-07-28").await;
    exercise(&Client::http(&url).revision(Revision::Session), "2025-11-25").await;
}
