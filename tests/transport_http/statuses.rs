//! Status codes: what the transport itself refuses (method, media types,
//! paths) and the HTTP status each dispatcher error maps to.

use http::{Method, StatusCode};
use mcp_runtime::transport::http::HttpConfig;
use mcp_tests::exchange::request;
use mcp_tests::wire_schema::request_meta;
use serde_json::{Value, json};

use crate::fixture::{Post, Probe, Running, call, fixture, standard};

#[tokio::test]
async fn a_request_is_answered_with_json() {
    let (server, _) = standard().await;
    let reply = Post::mcp(&request(1, "server/discover", Value::Null)).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    let value = reply.json("server/discover");
    assert_eq!(value["id"], 1);
    // The fixture serves both eras (the default): the 2025-era versions are listed too.
    assert_eq!(value["result"]["supportedVersions"], json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]));

    let reply = Post::mcp(&call(2, "echo", json!({"text": "hi"}))).send(server.addr).await;
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "hi");
    server.stop().await;
}

#[tokio::test]
async fn a_notification_is_accepted_with_an_empty_202() {
    let (server, _) = standard().await;
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let reply = Post::raw(serde_json::to_vec(&notification).expect("JSON")).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.body.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn only_post_is_allowed() {
    let (server, _) = standard().await;
    for method in [Method::GET, Method::DELETE, Method::PUT, Method::OPTIONS] {
        let reply = Post::raw("").method(method.clone()).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.headers["allow"], "POST", "{method}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_body_must_be_declared_json() {
    let (server, _) = standard().await;
    let body = serde_json::to_vec(&request(1, "server/discover", Value::Null)).expect("JSON");
    let reply = Post::raw(body.clone()).header("content-type", "text/plain").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let reply = Post::raw(body.clone()).without("content-type").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let message = request(1, "server/discover", Value::Null);
    let reply = Post::mcp(&message).header("content-type", "application/json; charset=utf-8").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn accept_must_allow_json_or_an_event_stream() {
    let (server, _) = standard().await;
    let message = request(1, "server/discover", Value::Null);
    let reply = Post::mcp(&message).header("accept", "text/html").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);
    for lenient in ["*/*", "application/*", "application/json"] {
        let reply = Post::mcp(&message).header("accept", lenient).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::OK, "{lenient}");
        reply.json("server/discover");
    }
    let reply = Post::mcp(&message).without("accept").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    // A client that only takes a stream gets one, even for a single message.
    let reply = Post::mcp(&message).header("accept", "text/event-stream").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.events("server/discover").len(), 1);
    server.stop().await;
}

#[tokio::test]
async fn other_paths_are_not_found() {
    let (server, _) = standard().await;
    let message = request(1, "server/discover", Value::Null);
    for path in ["/", "/mcp/", "/other"] {
        let reply = Post::mcp(&message).path(path).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
    }
    server.stop().await;

    let custom = Running::start(fixture(Probe::default()), HttpConfig::default().endpoint("api/mcp")).await;
    assert_eq!(Post::mcp(&message).path("/api/mcp").send(custom.addr).await.status, StatusCode::OK);
    assert_eq!(Post::mcp(&message).send(custom.addr).await.status, StatusCode::NOT_FOUND);
    custom.stop().await;
}

#[tokio::test]
async fn dispatcher_errors_carry_their_status_and_the_id() {
    let (server, _) = standard().await;
    let addr = server.addr;

    let reply = Post::raw("{not json").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json("server/discover")["error"]["code"], -32700);

    let reply = Post::raw(r#"[{"jsonrpc":"2.0","id":1,"method":"server/discover"}]"#).send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json("server/discover")["error"]["code"], -32600);

    // `_meta` is checked before the headers, even when they are wrong.
    let no_meta = json!({"jsonrpc": "2.0", "id": "m", "method": "server/discover", "params": {}});
    let reply = Post::mcp(&no_meta).header("mcp-method", "tools/list").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.error_code("server/discover", &json!("m")), -32602);

    // An unsupported version whose header matches: -32022 with its data.
    let mut meta = request_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let message = request(7, "server/discover", json!({"_meta": meta}));
    let reply = Post::mcp(&message).header("mcp-protocol-version", "v999.0.0").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.error_code("server/discover", &json!(7)), -32022);
    assert_eq!(reply.json("server/discover")["error"]["data"]["requested"], "v999.0.0");

    for method in ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nothing"] {
        let reply = Post::mcp(&request(8, method, Value::Null)).send(addr).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}");
        assert_eq!(reply.error_code("server/discover", &json!(8)), -32601, "{method}");
    }

    // Errors found after routing ride on 200.
    let reply = Post::mcp(&call(9, "no-such-tool", json!({}))).send(addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.error_code("tools/call", &json!(9)), -32602);
    server.stop().await;
}

#[tokio::test]
async fn a_missing_client_capability_is_a_400_with_what_is_required() {
    let app = mcp_runtime::Server::builder("asks", "1.0.0")
        .tool(mcp_runtime::entry::ToolEntry::new("confirm", |input: mcp_runtime::Input| async move {
            let form = mcp_runtime::input::Elicitation::form("Sure?").boolean("ok", true);
            input.elicit("confirm", form).await.field("ok").unwrap_or_default()
        }))
        .build()
        .expect("a valid server");
    let server = Running::start(app, HttpConfig::default()).await;
    // The client declares no elicitation: the call cannot go on.
    let reply = Post::mcp(&call(31, "confirm", json!({}))).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{:?}", reply.body);
    assert_eq!(reply.error_code("tools/call", &json!(31)), -32021);
    let error = reply.json("tools/call");
    assert_eq!(error["error"]["data"]["requiredCapabilities"], json!({"elicitation": {"form": {}}}), "{error}");

    // Declared, the same call asks for input instead.
    let mut meta = request_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {"form": {}}});
    let message = request(32, "tools/call", json!({"_meta": meta, "name": "confirm", "arguments": {}}));
    let reply = Post::mcp(&message).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json("tools/call")["result"]["resultType"], "input_required");
    server.stop().await;
}
