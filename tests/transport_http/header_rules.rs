//! The MCP headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! mirrored arguments) must agree with the body; `Origin` and `Host` guard a
//! loopback server against DNS rebinding.

use http::StatusCode;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{BuildError, Server, entry::ToolEntry, tool, tools};
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
        // The Base64 form is for names and arguments: these two compare exactly.
        ("Base64 Mcp-Method", Post::mcp(&list).header("mcp-method", "=?base64?dG9vbHMvbGlzdA==?=")),
        ("Base64 MCP-Protocol-Version", Post::mcp(&list).header("mcp-protocol-version", "=?base64?MjAyNi0wNy0yOA==?=")),
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

/// Echoes a message with the region it came from, mirrored into a header.
#[tool]
fn echo_region(message: String, #[arg(header = "Region")] region: Option<String>) -> String {
    match region {
        Some(region) => format!("{message} (from {region})"),
        None => message,
    }
}

async fn regional() -> Running {
    let server = Server::builder("regional", "1.0.0").tools(tools![echo_region]).build().expect("a valid server");
    Running::start(server, HttpConfig::default()).await
}

/// Arguments sent verbatim, so that a test can write JSON a `Value` cannot
/// hold: lone surrogates, deep nesting, repeated members.
fn echo_region_call(arguments: &str) -> Post {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"echo_region","arguments":{arguments},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    Post::raw(body)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo_region")
}

#[tokio::test]
async fn an_unreadable_unrelated_argument_does_not_hide_annotated_ones() {
    let server = regional().await;
    let addr = server.addr;
    // As deep as a message may nest (128 levels, 3 of them around `x`).
    let deep = format!("{}{}", "[".repeat(125), "]".repeat(125));
    for x in [r#""\ud800""#.to_owned(), deep] {
        let arguments = format!(r#"{{"message":"hi","region":"eu","x":{x}}}"#);
        mismatch(&echo_region_call(&arguments).send(addr).await, 6, &format!("no header, x = {x:.20}"));
        let reply = echo_region_call(&arguments).header("mcp-param-region", "eu").send(addr).await;
        assert_eq!(reply.status, StatusCode::OK, "x = {x:.20}: {:?}", reply.body);
        assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "hi (from eu)");
        mismatch(&echo_region_call(&arguments).header("mcp-param-region", "us").send(addr).await, 6, "other value");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_message_nested_too_deep_is_refused_whole_wherever_the_depth_is() {
    let server = regional().await;
    let addr = server.addr;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    // In an argument the tool would never read, in an unknown member of
    // `params`, of the envelope and of `_meta`: all skipped by the readers,
    // all refused.
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let bodies = [
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo_region","arguments":{{"message":"hi","x":{deep}}},{meta}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo_region","arguments":{{"message":"hi"}},"x":{deep},{meta}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"x":{deep},"method":"tools/call","params":{{"name":"echo_region","arguments":{{"message":"hi"}},{meta}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo_region","arguments":{{"message":"hi"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"example.com/x":{deep}}}}}}}"#
        ),
    ];
    for body in bodies {
        let reply = Post::raw(body)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo_region")
            .send(addr)
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{:?}", String::from_utf8_lossy(&reply.body));
        let value = reply.json("tools/call");
        assert_eq!(value["error"]["code"], -32600, "{value}");
        assert_eq!(value["id"], 7, "{value}");
        assert!(value["error"]["message"].as_str().is_some_and(|m| m.contains("nest more than 128")), "{value}");
    }
    server.stop().await;
}

#[tokio::test]
async fn arguments_that_cannot_be_read_fail_closed() {
    let server = regional().await;
    let addr = server.addr;
    // A member name no string can hold: the tool could not read the
    // arguments either, so the headers cannot be vouched for.
    let arguments = r#"{"message":"hi","region":"eu","\udc00":1}"#;
    for post in [echo_region_call(arguments), echo_region_call(arguments).header("mcp-param-region", "eu")] {
        let reply = post.send(addr).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{:?}", reply.body);
        let value = reply.json("tools/call");
        assert_eq!(value["error"]["code"], -32602, "{value}");
        assert!(value["error"]["message"].as_str().is_some_and(|m| m.contains("`arguments`")), "{value}");
    }
    // The same for the annotated value itself.
    let arguments = r#"{"message":"hi","region":"\ud800"}"#;
    let reply = echo_region_call(arguments).header("mcp-param-region", "eu").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{:?}", reply.body);
    let value = reply.json("tools/call");
    assert_eq!(value["error"]["code"], -32602, "{value}");
    assert!(value["error"]["message"].as_str().is_some_and(|m| m.contains("`region`")), "{value}");
    server.stop().await;
}

#[tokio::test]
async fn a_repeated_annotated_argument_is_refused() {
    let server = regional().await;
    let addr = server.addr;
    let arguments = r#"{"message":"hi","region":"eu","region":"us"}"#;
    for region in [None, Some("eu"), Some("us")] {
        let post = echo_region_call(arguments);
        let post = match region {
            Some(region) => post.header("mcp-param-region", region),
            None => post,
        };
        let reply = post.send(addr).await;
        mismatch(&reply, 6, &format!("header {region:?}"));
        let value = reply.json("tools/call");
        let message = value["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("`region`") && message.contains("more than once"), "{message}");
    }
    // Other members may repeat: they are the tool's to read.
    let arguments = r#"{"message":"ho","message":"hi","region":"eu"}"#;
    let reply = echo_region_call(arguments).header("mcp-param-region", "eu").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "hi (from eu)");
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
