//! Row 4 (no request to the client before `notifications/initialized`)
//! and row 12 (only object output schemas and structured content reach a
//! session).

use std::time::Duration;

use mcp_runtime::ToolEntry;
use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::transport::http::HttpConfig;
use serde_json::{Value, json};

use crate::fixture::{builder, server};
use crate::http::HttpSession;
use crate::stdio::Stdio;

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
}

/// Whether a message is a request other than `ping`.
fn is_request_but_ping(message: &Value) -> bool {
    message.get("id").is_some() && message.get("method").is_some_and(|m| m != "ping")
}

/// Row 4: until `notifications/initialized` arrives the server sends no
/// request but `ping`. On the paused clock the read times out only once
/// every task of the runtime waits, so nothing is missed by racing.
#[tokio::test(start_paused = true)]
async fn no_request_but_ping_before_initialized_over_stdio() {
    let mut client = Stdio::start(server());
    client.initialize("2025-11-25", json!({"elicitation": {}})).await;
    client.write(&call(1, "ask")).await;
    client.patience = Duration::from_secs(5);
    if let Ok(Some(early)) = tokio::time::timeout(Duration::from_secs(1), client.next()).await {
        assert!(!is_request_but_ping(&early), "sent before `initialized`: {early}");
    }
    // Then `initialized` lets the waiting request go out.
    client.notify("notifications/initialized", json!({})).await;
    let asked = client.next().await.expect("the elicitation once initialized");
    assert_eq!(asked["method"], "elicitation/create");
}

/// Row 4, over HTTP: nothing asked on the call's stream before `initialized`.
#[tokio::test(start_paused = true)]
async fn no_request_but_ping_before_initialized_over_http() {
    let service = server().http_service(HttpConfig::default());
    let (session, _) = HttpSession::initialize(&service, "2025-11-25", json!({"elicitation": {}})).await;
    let mut stream = session.post(&call(1, "ask")).await;
    if let Ok(Some(early)) = tokio::time::timeout(Duration::from_secs(1), stream.next_message()).await {
        assert!(!is_request_but_ping(&early), "sent before `initialized`: {early}");
    }
    // Then `initialized` lets the waiting request go out on the call's stream.
    assert_eq!(session.notify("notifications/initialized", json!({})).await.status, 202);
    let asked = loop {
        let message = stream.next_message().await.expect("the elicitation once initialized");
        if is_request_but_ping(&message) {
            break message;
        }
    };
    assert_eq!(asked["method"], "elicitation/create");
}

/// Row 12: a tool whose output schema's root is not an object (legal at
/// 2026-07-28) is listed and answered on a session without it.
#[tokio::test]
async fn a_non_object_output_schema_never_reaches_a_session() {
    let schema = json!({"type": "array", "items": {"type": "integer"}});
    let array = ToolEntry::new("array", || async { CallToolResult::structured(json!([1, 2])) })
        .output_schema(schema.as_object().unwrap().clone());
    let mut client = Stdio::open(builder().tool(array).build().unwrap(), "2025-11-25", json!({})).await;
    // Both answers are checked against the 2025-11-25 schema as they are read.
    client.request(1, "tools/list", json!({})).await;
    client.request(2, "tools/call", json!({"name": "array"})).await;
    client.close().await;
}
