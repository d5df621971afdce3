//! The client drives the `everything` binary, spawned, over its stdio; and
//! a command that ends at once is a clear error, not a hang.

use mcp_runtime::client::{Client, Error};
use serde_json::json;

#[tokio::test]
async fn a_spawned_server_is_listed_and_called_over_its_stdio() {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_everything"));
    command.arg("--stdio").env("RUST_LOG", "warn");
    let client = Client::spawn(command).expect("started");
    let tools = client.list_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "test_simple_text"), "{} tools", tools.len());
    let called = client.call_tool("test_simple_text", json!({})).await.expect("tools/call");
    let text = serde_json::to_value(&called.content).expect("JSON")[0]["text"].as_str().map(str::to_owned);
    assert!(text.is_some_and(|t| !t.is_empty()));
}

#[tokio::test]
async fn a_command_that_ends_at_once_is_an_error() {
    let client = Client::spawn(tokio::process::Command::new("true")).expect("started");
    match client.discover().await {
        Err(Error::Transport(_)) => {}
        other => panic!("a transport error, not {other:?}"),
    }
    match Client::spawn(tokio::process::Command::new("/nonexistent/mcp-server")) {
        Err(Error::Transport(why)) => assert!(why.starts_with("the server did not start"), "{why}"),
        other => panic!("not started, not {:?}", other.map(|_| ())),
    }
}
