//! Helpers shared by the `macros_*` tests: requests whose every message is
//! checked against the official schema, and JSON snapshots.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::path::PathBuf;

use mcp_runtime::client::{Client, Error};
use mcp_tests::heard::hearing;
use mcp_tests::wire_schema::{assert_valid_notification, assert_valid_response};
use serde_json::{Value, json};

/// Sends `method` once, without answering questions, checks the response
/// and its notifications against the schema, and returns the response
/// (`{"result": ...}`, an `input_required` result included, or
/// `{"error": ...}`) with the notifications.
pub(crate) async fn exchange(client: &Client, method: &str, params: Value) -> (Value, Vec<Value>) {
    let (client, heard) = hearing(client.clone());
    let response = match client.request(method, params).await {
        Ok(result) | Err(Error::InputRequired(result)) => json!({"result": result}),
        Err(Error::Rpc(error)) => json!({"error": error}),
        Err(other) => panic!("`{method}` brought no response: {other}"),
    };
    // The result or error as it came, in an envelope of its own (the wire
    // message itself is checked by the observers of a `checked` client).
    let mut envelope = response.clone();
    envelope["jsonrpc"] = json!("2.0");
    envelope["id"] = json!(1);
    assert_valid_response(method, &envelope);
    let notifications = heard.take();
    for n in &notifications {
        assert_valid_notification(n);
    }
    (response, notifications)
}

/// The result of a request that must succeed.
#[track_caller]
pub(crate) fn result(response: &Value) -> &Value {
    assert!(response.get("error").is_none(), "unexpected error: {response}");
    &response["result"]
}

/// The error of a request that must fail.
#[track_caller]
pub(crate) fn error(response: &Value) -> &Value {
    assert!(response.get("result").is_none(), "unexpected result: {response}");
    &response["error"]
}

/// `tools/call` that must succeed, returning the result.
pub(crate) async fn call_tool(client: &Client, name: &str, arguments: Value) -> Value {
    let (response, _) = exchange(client, "tools/call", json!({"name": name, "arguments": arguments})).await;
    result(&response).clone()
}

/// Compares `actual` with `snapshots/<name>.json`; `UPDATE_SNAPSHOTS=1`
/// rewrites the file instead, except under `CI=true`, where it fails.
#[track_caller]
pub(crate) fn assert_snapshot(name: &str, actual: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("snapshots").join(format!("{name}.json"));
    let pretty = serde_json::to_string_pretty(actual).unwrap_or_default() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "UPDATE_SNAPSHOTS is not honoured under CI=true: CI checks the committed snapshots, it never rewrites them"
        );
        std::fs::write(&path, &pretty).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {} ({e}); run with UPDATE_SNAPSHOTS=1 to create it", path.display()));
    assert!(
        expected == pretty,
        "snapshot {name} differs (run with UPDATE_SNAPSHOTS=1 to accept):\n--- expected\n{expected}\n--- actual\n{pretty}"
    );
}
