//! Opt-in CORS on the standalone server: preflights answered with the MCP
//! headers for the origins the `Origin` check accepts, responses readable
//! by those origins, and nothing of it when CORS is off.

use http::Method;
use mcp_runtime::transport::http::HttpConfig;
use serde_json::json;

use crate::fixture::{Post, Probe, Reply, Running, call, fixture};

const PAGE: &str = "http://localhost:5173";

async fn start(config: HttpConfig) -> Running {
    Running::start(fixture(Probe::default()), config).await
}

/// A browser's preflight for a `tools/call` with a header-mirrored argument.
fn preflight(origin: &str) -> Post {
    Post::raw(Vec::new())
        .method(Method::OPTIONS)
        .without("content-type")
        .without("accept")
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "accept,authorization,content-type,mcp-method,mcp-name,mcp-param-region,mcp-protocol-version,x-unrelated",
        )
}

fn header<'a>(reply: &'a Reply, name: &str) -> Option<&'a str> {
    reply.headers.get(name).and_then(|v| v.to_str().ok())
}

#[tokio::test]
async fn an_enabled_server_answers_a_preflight_with_the_mcp_headers() {
    let server = start(HttpConfig::default().cors(true)).await;
    let reply = preflight(PAGE).send(server.addr).await;
    assert_eq!(reply.status, 204, "{reply:?}");
    assert_eq!(header(&reply, "access-control-allow-origin"), Some(PAGE));
    // GET and DELETE too: the fixture serves 2025-era sessions as well.
    assert_eq!(header(&reply, "access-control-allow-methods"), Some("GET, POST, DELETE"));
    let allowed: Vec<&str> = header(&reply, "access-control-allow-headers").unwrap_or_default().split(", ").collect();
    for name in [
        "accept",
        "authorization",
        "content-type",
        "mcp-method",
        "mcp-name",
        "mcp-param-region",
        "mcp-protocol-version",
    ] {
        assert!(allowed.contains(&name), "{name} is allowed: {allowed:?}");
    }
    assert!(!allowed.contains(&"x-unrelated"), "only the MCP headers are allowed: {allowed:?}");
    assert!(header(&reply, "access-control-max-age").is_some());
    server.stop().await;
}

#[tokio::test]
async fn a_server_without_cors_still_refuses_a_preflight() {
    let server = start(HttpConfig::default()).await;
    let reply = preflight(PAGE).send(server.addr).await;
    assert_eq!(reply.status, 405, "{reply:?}");
    assert_eq!(header(&reply, "access-control-allow-origin"), None);
    server.stop().await;
}

#[tokio::test]
async fn cors_does_not_open_the_server_to_origins_the_origin_check_refuses() {
    let server = start(HttpConfig::default().cors(true)).await;
    let reply = preflight("https://evil.example.com").send(server.addr).await;
    assert_eq!(reply.status, 403, "{reply:?}");
    assert_eq!(header(&reply, "access-control-allow-origin"), None);
    let post = Post::mcp(&call(1, "echo", json!({"text": "hi"}))).header("origin", "https://evil.example.com");
    let reply = post.send(server.addr).await;
    assert_eq!(reply.status, 403, "{reply:?}");
    assert_eq!(header(&reply, "access-control-allow-origin"), None);
    server.stop().await;
}

#[tokio::test]
async fn an_allowed_origin_is_one_the_origin_check_accepts() {
    let config = HttpConfig::default().allowed_origins(["https://app.example.com"]).cors(true);
    let server = start(config).await;
    let reply = preflight("https://app.example.com").send(server.addr).await;
    assert_eq!(reply.status, 204, "{reply:?}");
    assert_eq!(header(&reply, "access-control-allow-origin"), Some("https://app.example.com"));
    server.stop().await;
}

#[tokio::test]
async fn a_cross_origin_post_can_be_read_by_the_page() {
    let server = start(HttpConfig::default().cors(true)).await;
    let reply = Post::mcp(&call(2, "echo", json!({"text": "hi"}))).header("origin", PAGE).send(server.addr).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "hi");
    assert_eq!(header(&reply, "access-control-allow-origin"), Some(PAGE));
    let exposed = header(&reply, "access-control-expose-headers").unwrap_or_default();
    assert!(exposed.contains("mcp-session-id") && exposed.contains("www-authenticate"), "{exposed}");
    assert!(header(&reply, "vary").is_some_and(|v| v.contains("origin")), "{reply:?}");

    // An error response is readable too: the page can show what went wrong.
    let reply = Post::mcp(&call(3, "echo", json!({"text": "hi"}))).without("mcp-method").header("origin", PAGE);
    let reply = reply.send(server.addr).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert_eq!(header(&reply, "access-control-allow-origin"), Some(PAGE));
    server.stop().await;
}

#[tokio::test]
async fn without_cors_a_cross_origin_post_names_no_origin() {
    let server = start(HttpConfig::default()).await;
    let reply = Post::mcp(&call(4, "echo", json!({"text": "hi"}))).header("origin", PAGE).send(server.addr).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(header(&reply, "access-control-allow-origin"), None);
    server.stop().await;
}
