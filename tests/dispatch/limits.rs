//! Hostile sizes and shapes: deep nesting anywhere in a message and very
//! large messages get an error or a normal answer, never a crash.

use mcp_tests::exchange::{request, send, send_bytes};
use mcp_tests::wire_schema::request_meta;
use serde_json::json;

use crate::fixture;

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[tokio::test]
async fn deep_nesting_is_rejected_wherever_it_is() {
    let server = fixture::full();
    let meta = request_meta();
    for depth in [200, 10_000, 1_000_000] {
        let deep = nested(depth);
        let messages = [
            deep.clone(),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{deep}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":{deep},"params":{{"_meta":{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":{deep},"method":"tools/list"}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"x":{deep}}}}}}}"#),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{meta},"name":"add","arguments":{{"a":{deep}}}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"_meta":{meta},"name":"greet","arguments":{{"name":{deep}}}}}}}"#
            ),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{meta},"cursor":{deep}}}}}"#),
        ];
        for message in messages {
            let reply = send_bytes(&server, message.as_bytes()).await;
            let response = reply.response();
            // Whatever the answer, it is a well-formed one; an error is the
            // usual outcome, a tool error result the only other.
            let ok = response.get("error").is_some() || response["result"]["isError"] == json!(true);
            assert!(ok, "depth {depth}: {}", &response.to_string()[..response.to_string().len().min(300)]);
        }
    }
}

#[tokio::test]
async fn very_large_messages_are_answered() {
    let server = fixture::full();
    let big = "x".repeat(8 * 1024 * 1024);
    let reply =
        send(&server, &request(1, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2, "pad": big}})))
            .await;
    assert_eq!(reply.result()["content"][0]["text"], json!("3"), "unknown arguments are ignored by `add`");
    let many_keys: serde_json::Map<String, serde_json::Value> =
        (0..200_000).map(|i| (format!("k{i}"), json!(i))).collect();
    let reply = send(&server, &request(2, "tools/list", json!({"_meta": request_meta(), "extra": many_keys}))).await;
    reply.result();
    let reply =
        send(&server, &request(3, "resources/read", json!({"uri": format!("notes://{}", "9".repeat(100_000))}))).await;
    assert_eq!(reply.code(), -32602, "a URI that cannot name a resource is not found");
}
