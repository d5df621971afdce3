//! The MCP headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! mirrored arguments) must agree with the body; `Origin` and `Host` guard a
//! loopback server against DNS rebinding.

use http::StatusCode;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{BuildError, Server, ToolEntry};
use mcp_tests::exchange::request;
use serde_json::{Value, json};

use crate::fixture::{Post, Probe, Reply, Running, call, fixture, object, standard};

/// Expects 400 with `-32020` echoing `id`.
#[track_caller]
fn mismatch(reply: &Reply, id: i64, case: &str) {
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{case}: {:?}", reply.body);
    assert_eq!(reply.error_code("tools/call", &json!(id)), -32020, "{case}");
}

#[tokio::test]
async fn standard_headers_must_match_the_body() {
    let (server, _) = standard().await;
    let addr = server.addr;
    let list = request(1, "tools/list", Value::Null);

    let cases: Vec<(&str, Post)> = vec![
        ("missing MCP-Protocol-Version", Post::mcp(&list).without("mcp-protocol-version")),
        ("other MCP-Protocol-Version", Post::mcp(&list).header("mcp-protocol-version", "2025-11-25")),
        ("missing Mcp-Method", Post::mcp(&list).without("mcp-method")),
        ("other Mcp-Method", Post::mcp(&list).header("mcp-method", "prompts/list")),
        ("Mcp-Method in another case", Post::mcp(&list).header("mcp-method", "TOOLS/LIST")),
        ("repeated Mcp-Method", Post::mcp(&list).append("mcp-method", "tools/list")),
        ("non-ASCII Mcp-Method", Post::mcp(&list).header("mcp-method", "tools/lïst".as_bytes())),
    ];
    for (case, post) in cases {
        mismatch(&post.send(addr).await, 1, case);
    }
    for name in ["mcp-method", "MCP-METHOD", "Mcp-Method"] {
        let reply = Post::mcp(&list).without("mcp-method").header(name, "tools/list").send(addr).await;
        assert_eq!(reply.status, StatusCode::OK, "header name {name}");
    }
    let reply = Post::mcp(&list).header("mcp-method", "  tools/list\t").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK, "surrounding whitespace is trimmed");
    server.stop().await;
}

#[tokio::test]
async fn mcp_name_must_match_the_target() {
    let (server, _) = standard().await;
    let addr = server.addr;
    let echo = call(2, "echo", json!({"text": "x"}));
    mismatch(&Post::mcp(&echo).without("mcp-name").send(addr).await, 2, "missing Mcp-Name");
    mismatch(&Post::mcp(&echo).header("mcp-name", "route").send(addr).await, 2, "other Mcp-Name");
    mismatch(&Post::mcp(&echo).header("mcp-name", "=?base64?ZWNobw?=").send(addr).await, 2, "bad Base64");
    let reply = Post::mcp(&echo).header("mcp-name", "=?base64?ZWNobw==?=").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK, "Base64 sentinel: {:?}", reply.body);
    let reply = Post::mcp(&echo).header("mcp-name", "  echo  ").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK);

    let greet = request(3, "prompts/get", json!({"name": "greet"}));
    assert_eq!(Post::mcp(&greet).send(addr).await.status, StatusCode::OK);
    let reply = Post::mcp(&greet).header("mcp-name", "other").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.error_code("prompts/get", &json!(3)), -32020);

    // Any value may travel Base64-encoded.
    let read = request(4, "resources/read", json!({"uri": "note://daily/1"}));
    let reply = Post::mcp(&read).header("mcp-name", "=?base64?bm90ZTovL2RhaWx5LzE=?=").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.json("resources/read")["result"]["contents"][0]["text"], "bonjour");
    let reply = Post::mcp(&read).header("mcp-name", "note://other").send(addr).await;
    assert_eq!(reply.error_code("resources/read", &json!(4)), -32020);
    server.stop().await;
}

#[tokio::test]
async fn mcp_param_headers_mirror_annotated_arguments() {
    let (server, _) = standard().await;
    let addr = server.addr;
    let routed = |args: Value| call(5, "route", args);
    let ok = |reply: Reply, case: &str| {
        assert_eq!(reply.status, StatusCode::OK, "{case}: {:?}", reply.body);
        assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "routed", "{case}");
    };

    ok(Post::mcp(&routed(json!({}))).send(addr).await, "no annotated argument, no header");
    ok(Post::mcp(&routed(json!({"region": null}))).send(addr).await, "null argument, no header");
    let eu = routed(json!({"region": "eu-west", "count": 42}));
    let with_both = || Post::mcp(&eu).header("Mcp-Param-Region", "eu-west").header("mcp-param-count", "42");
    ok(with_both().send(addr).await, "both headers");
    ok(with_both().header("MCP-PARAM-COUNT", "42.0").send(addr).await, "integers compare numerically");
    ok(with_both().header("mcp-param-region", "=?base64?ZXUtd2VzdA==?=").send(addr).await, "Base64 value");
    let spaced = routed(json!({"region": " padded "}));
    ok(Post::mcp(&spaced).header("mcp-param-region", "=?base64?IHBhZGRlZCA=?=").send(addr).await, "padded value");

    mismatch(&with_both().without("mcp-param-region").send(addr).await, 5, "missing header");
    mismatch(&with_both().header("mcp-param-region", "EU-WEST").send(addr).await, 5, "other value");
    mismatch(&with_both().header("mcp-param-count", "41").send(addr).await, 5, "other number");
    mismatch(&with_both().header("mcp-param-region", "=?base64?ZXUtd2VzdA?=").send(addr).await, 5, "bad padding");
    mismatch(&with_both().header("mcp-param-region", "=?base64?ZX!!d2VzdA==?=").send(addr).await, 5, "bad alphabet");
    let absent = Post::mcp(&routed(json!({}))).header("mcp-param-region", "eu-west");
    mismatch(&absent.send(addr).await, 5, "header for an absent argument");
    // A value that only looks half like the sentinel is literal.
    let literal = routed(json!({"region": "=?base64?ZXU="}));
    ok(Post::mcp(&literal).header("mcp-param-region", "=?base64?ZXU=").send(addr).await, "literal value");
    server.stop().await;
}

#[test]
fn invalid_header_annotations_stop_the_build() {
    let bad = |property: Value| {
        let schema = object(json!({"type": "object", "properties": {"p": property}}));
        Server::builder("t", "1").tool(ToolEntry::new("t", || async { "" }).input_schema(schema)).build()
    };
    for property in [
        json!({"type": "number", "x-mcp-header": "P"}),
        json!({"type": "string", "x-mcp-header": "has space"}),
        json!({"type": "string", "x-mcp-header": ""}),
        json!({"type": "array", "items": {"type": "string", "x-mcp-header": "P"}}),
    ] {
        match bad(property.clone()) {
            Err(BuildError::HeaderParam { tool, .. }) => assert_eq!(tool, "t"),
            other => panic!("{property}: expected a header error, got {other:?}"),
        }
    }
    let twice = object(json!({"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "Key"},
        "b": {"type": "boolean", "x-mcp-header": "KEY"}
    }}));
    let built = Server::builder("t", "1").tool(ToolEntry::new("t", || async { "" }).input_schema(twice)).build();
    let message = built.expect_err("duplicate header names").to_string();
    assert!(message.contains("Mcp-Param-KEY"), "{message}");
}

#[tokio::test]
async fn dns_rebinding_is_refused_on_loopback() {
    let (server, _) = standard().await;
    let message = request(1, "server/discover", Value::Null);
    let port = server.addr.port();
    for host in ["evil.example.com".to_owned(), format!("evil.example.com:{port}")] {
        let reply = Post::mcp(&message).header("host", &host).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{host}");
    }
    let reply = Post::mcp(&message).header("origin", "http://evil.example.com").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    for host in
        [format!("localhost:{port}"), format!("127.0.0.1:{port}"), format!("[::1]:{port}"), "localhost".to_owned()]
    {
        let reply = Post::mcp(&message).header("host", &host).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::OK, "{host}");
    }
    let reply = Post::mcp(&message).header("origin", format!("http://localhost:{port}")).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    // Two values, one harmless: which one a proxy or the application would
    // read is unknown, so the request is malformed.
    let local = format!("localhost:{port}");
    let reply = Post::mcp(&message).header("host", &local).append("host", "evil.example.com").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "a repeated Host");
    assert_eq!(reply.error_code("server/discover", &Value::Null), -32600);
    let reply = Post::mcp(&message)
        .header("origin", format!("http://{local}"))
        .append("origin", "http://evil.example.com")
        .send(server.addr)
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "a repeated Origin");
    server.stop().await;
}

#[tokio::test]
async fn allow_lists_replace_the_loopback_default() {
    let config = HttpConfig::default().allowed_hosts(["mcp.example.com"]).allowed_origins(["https://app.example.com"]);
    let server = Running::start(fixture(Probe::default()), config).await;
    let message = request(1, "server/discover", Value::Null);
    let status = |post: Post| async { post.send(server.addr).await.status };
    assert_eq!(status(Post::mcp(&message).header("host", "mcp.example.com")).await, StatusCode::OK);
    assert_eq!(status(Post::mcp(&message)).await, StatusCode::FORBIDDEN, "loopback no longer listed");
    let from_app = Post::mcp(&message).header("host", "mcp.example.com").header("origin", "https://app.example.com");
    assert_eq!(status(from_app).await, StatusCode::OK);
    let from_else = Post::mcp(&message).header("host", "mcp.example.com").header("origin", "https://else.example.com");
    assert_eq!(status(from_else).await, StatusCode::FORBIDDEN);
    server.stop().await;

    let open = Running::start(fixture(Probe::default()), HttpConfig::default().allow_any_host()).await;
    let message = request(2, "server/discover", Value::Null);
    assert_eq!(Post::mcp(&message).header("host", "anything.example").send(open.addr).await.status, StatusCode::OK);
    let cross = Post::mcp(&message).header("host", "a.example").header("origin", "https://b.example");
    assert_eq!(cross.send(open.addr).await.status, StatusCode::FORBIDDEN);
    open.stop().await;
}
