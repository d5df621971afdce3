//! Row 4 (no request to the client before `notifications/initialized`)
//! and row 12 (only object output schemas and structured content reach a
//! session).

use std::time::Duration;

use mcp_runtime::input::Elicitation;
use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Input, RequestContext, Server, entry::ToolEntry};
use serde_json::{Value, json};

use crate::fixture::builder;
use crate::http::HttpSession;
use crate::stdio::Stdio;

/// The checklist's server, with a tool that reports progress and then
/// asks the client: a notification, which may go out before
/// `initialized`, ahead of a request, which may not.
fn server() -> Server {
    let report_then_ask = ToolEntry::new("report_then_ask", |cx: RequestContext, input: Input| async move {
        cx.progress(1.0, Some(2.0), None);
        let answer = input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
        format!("Hello, {}!", answer.field("name").unwrap_or_default())
    });
    builder().tool(report_then_ask).build().expect("a valid server")
}

/// A call of `report_then_ask`, with a progress token.
fn call(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "report_then_ask", "arguments": {}, "_meta": {"progressToken": "early"},
    }})
}

/// Whether a message is a request other than `ping`.
fn is_request_but_ping(message: &Value) -> bool {
    message.get("id").is_some() && message.get("method").is_some_and(|m| m != "ping")
}

/// Row 4: until `notifications/initialized` arrives the server sends no
/// request but `ping`. Every message before it is read: on the paused
/// clock the read times out only once every task of the runtime waits, so
/// nothing is missed by racing.
#[tokio::test(start_paused = true)]
async fn no_request_but_ping_before_initialized_over_stdio() {
    let mut client = Stdio::start(server());
    client.initialize("2025-11-25", json!({"elicitation": {}})).await;
    client.write(&call(1)).await;
    client.patience = Duration::from_secs(5);
    let mut early = Vec::new();
    while let Ok(Some(message)) = tokio::time::timeout(Duration::from_secs(1), client.next()).await {
        early.push(message);
    }
    assert!(!early.iter().any(is_request_but_ping), "sent before `initialized`: {early:?}");
    // Then `initialized` lets the waiting request go out.
    client.notify("notifications/initialized", json!({})).await;
    let asked = loop {
        let message = client.next().await.expect("the elicitation once initialized");
        if is_request_but_ping(&message) {
            break message;
        }
    };
    assert_eq!(asked["method"], "elicitation/create");
}

/// Row 4, over HTTP: nothing asked on the call's stream before `initialized`.
#[tokio::test(start_paused = true)]
async fn no_request_but_ping_before_initialized_over_http() {
    let service = server().http_service(HttpConfig::default());
    let (session, _) = HttpSession::initialize(&service, "2025-11-25", json!({"elicitation": {}})).await;
    let mut stream = session.post(&call(1)).await;
    let mut early = Vec::new();
    while let Ok(Some(message)) = tokio::time::timeout(Duration::from_secs(1), stream.next_message()).await {
        early.push(message);
    }
    assert!(!early.iter().any(is_request_but_ping), "sent before `initialized`: {early:?}");
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
