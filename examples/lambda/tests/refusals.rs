//! What the function refuses, and how the refusal reaches the client
//! through Lambda: the HTTP status of the response document and a
//! JSON-RPC error body.

mod support;

use serde_json::{Value, json};
use support::{SHAPES, Shape, event, exchange, exchange_with, handler, invoke, request};

/// An `initialize` of a 2025-era client, which sends no `_meta`.
fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "old-client", "version": "1.0"},
        },
    })
}

#[tokio::test]
async fn a_2025_era_initialize_is_refused_naming_the_version_served() {
    let function = handler();
    let body = serde_json::to_vec(&initialize()).expect("JSON");
    let with_version = [("MCP-Protocol-Version".to_owned(), "2025-06-18".to_owned())];
    for shape in SHAPES {
        // Without and with the version header a 2025-era client sends
        // after initializing: no session is ever opened.
        for headers in [&[][..], &with_version[..]] {
            let reply = invoke(&function, shape, &event(shape, &body, false, headers)).await;
            assert_eq!(reply.status, 400, "{shape:?}: {:?}", reply.raw);
            assert!(reply.header("mcp-session-id").is_none(), "{:?}", reply.raw);
            let error = reply.json()["error"].clone();
            assert_eq!(error["code"], -32602, "{error}");
            assert!(error["message"].as_str().is_some_and(|m| m.contains("does not serve `initialize`")), "{error}");
            assert_eq!(error["data"]["supported"], json!(["2026-07-28"]), "{error}");
        }
    }
}

#[tokio::test]
async fn a_listen_stream_is_not_offered() {
    // A buffered response would hold the stream until the function timed
    // out: the server does not advertise list changes, so the method does
    // not exist here.
    let function = handler();
    let listen = request(3, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), json!({}));
    for shape in SHAPES {
        let reply = exchange(&function, shape, &listen).await;
        assert_eq!(reply.status, 404, "{shape:?}: {:?}", reply.raw);
        let body = reply.json();
        assert_eq!(body["id"], 3);
        assert_eq!(body["error"]["code"], -32601, "{body}");
        assert_eq!(body["error"]["message"], "Method not found: subscriptions/listen");
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_parse_error() {
    let function = handler();
    for shape in SHAPES {
        let reply = invoke(&function, shape, &event(shape, b"{\"jsonrpc\": \"2.0\", \"id\": 1,", false, &[])).await;
        assert_eq!(reply.status, 400, "{shape:?}: {:?}", reply.raw);
        let body = reply.json();
        assert_eq!(body["error"]["code"], -32700, "{body}");
        assert_eq!(body["id"], Value::Null, "{body}");
    }
}

#[tokio::test]
async fn transport_refusals_keep_their_status_and_headers() {
    let function = handler();
    let call = request(4, "tools/call", json!({"name": "test_simple_text", "arguments": {}}), json!({}));

    // A page of another origin: 403.
    let reply = exchange_with(&function, Shape::FunctionUrl, &call, &[("Origin", "https://elsewhere.example")]).await;
    assert_eq!(reply.status, 403, "{:?}", reply.raw);
    assert_eq!(reply.json()["error"]["code"], -32600);
    // The function's own origin is accepted.
    let own = "https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-west-2.on.aws";
    let reply = exchange_with(&function, Shape::FunctionUrl, &call, &[("Origin", own)]).await;
    assert_eq!(reply.status, 200, "{:?}", reply.raw);

    // Not JSON: 415. Taking neither JSON nor a stream: 406.
    let reply = exchange_with(&function, Shape::RestApi, &call, &[("Content-Type", "text/plain")]).await;
    assert_eq!(reply.status, 415, "{:?}", reply.raw);
    let reply = exchange_with(&function, Shape::RestApi, &call, &[("Accept", "text/html")]).await;
    assert_eq!(reply.status, 406, "{:?}", reply.raw);

    // A GET (a 2025-era client opening its stream): 405, `Allow: POST`.
    for shape in SHAPES {
        let mut get: Value = serde_json::from_str(&event(shape, b"", false, &[])).expect("JSON");
        match shape {
            Shape::RestApi => get["httpMethod"] = json!("GET"),
            Shape::HttpApi | Shape::FunctionUrl => get["requestContext"]["http"]["method"] = json!("GET"),
        }
        get["body"] = Value::Null;
        let reply = invoke(&function, shape, &get.to_string()).await;
        assert_eq!(reply.status, 405, "{shape:?}: {:?}", reply.raw);
        assert_eq!(reply.header("allow"), Some("POST"), "{shape:?}: {:?}", reply.raw);
        assert_eq!(reply.json()["error"]["code"], -32600);
    }
}

#[tokio::test]
async fn a_notification_is_accepted_without_a_body() {
    let function = handler();
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let body = serde_json::to_vec(&cancelled).expect("JSON");
    for shape in SHAPES {
        let reply = invoke(&function, shape, &event(shape, &body, false, &[])).await;
        assert_eq!(reply.status, 202, "{shape:?}: {:?}", reply.raw);
        assert!(reply.body.is_empty(), "{:?}", reply.raw);
        assert!(reply.header("content-type").is_none(), "{:?}", reply.raw);
    }
}
