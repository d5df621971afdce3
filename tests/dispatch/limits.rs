//! Hostile sizes and shapes: deep nesting anywhere in a message and very
//! large messages get an error or a normal answer, never a crash; nothing
//! nested too deep is skipped and served.

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
    const TOO_DEEP: &str = "Invalid request: arrays and objects nest more than 128 deep";
    for depth in [129, 200, 10_000, 1_000_000] {
        let deep = nested(depth);
        // Each message, and the refusal it must get: the code, whether the
        // id is echoed, and how the message begins (the positions after it
        // vary with the depth). What the envelope reader could not read is
        // refused for that; anything else that nests too deep, read or
        // skipped, is refused whole.
        let cases = [
            (deep.clone(), -32600, false, "Batches are not supported: send one message at a time"),
            (
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":{deep},"params":{{"_meta":{meta}}}}}"#),
                -32600,
                true,
                "`method` must be a string",
            ),
            (
                format!(r#"{{"jsonrpc":"2.0","id":{deep},"method":"tools/list"}}"#),
                -32600,
                false,
                "The request id must be a string of Unicode text or an integer within the range of a JSON number",
            ),
            (format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{deep}}}"#), -32600, true, TOO_DEEP),
            (
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"x":{deep}}}}}}}"#),
                -32600,
                true,
                TOO_DEEP,
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"_meta":{meta},"name":"greet","arguments":{{"name":{deep}}}}}}}"#
                ),
                -32600,
                true,
                TOO_DEEP,
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{meta},"cursor":{deep}}}}}"#
                ),
                -32600,
                true,
                TOO_DEEP,
            ),
            // Parts no reader reads: an argument the tool ignores, unknown
            // members of `params` and of the envelope.
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{meta},"name":"add","arguments":{{"a":1,"b":2,"x":{deep}}}}}}}"#
                ),
                -32600,
                true,
                TOO_DEEP,
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{meta},"name":"add","arguments":{{"a":1,"b":2}},"x":{deep}}}}}"#
                ),
                -32600,
                true,
                TOO_DEEP,
            ),
            (
                format!(r#"{{"jsonrpc":"2.0","id":1,"x":{deep},"method":"tools/list","params":{{"_meta":{meta}}}}}"#),
                -32600,
                true,
                TOO_DEEP,
            ),
        ];
        for (message, code, echoed, text) in cases {
            let reply = send_bytes(&server, message.as_bytes()).await;
            let error = reply.error();
            assert_eq!(error["code"], json!(code), "depth {depth}: {error}");
            let said = error["message"].as_str().unwrap_or_default();
            assert!(said.starts_with(text), "depth {depth}: {said:?} does not start with {text:?}");
            assert_eq!(reply.response()["id"] == json!(1), echoed, "depth {depth}: {}", reply.response());
        }
    }
    // As deep as a message may be: served, the parts read reading their
    // own depth.
    let deep = nested(125);
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{meta},"name":"add","arguments":{{"a":1,"b":2,"x":{deep}}}}}}}"#
    );
    let reply = send_bytes(&server, call.as_bytes()).await;
    assert_eq!(reply.result()["content"][0]["text"], json!("3"), "an ignored argument as deep as allowed");
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
