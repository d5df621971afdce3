//! The application served on a loopback port and called over HTTP: its
//! auth layer guards MCP, tools see the caller and share its state, and its
//! own routes keep working.

use std::net::SocketAddr;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};

use super::{Counter, Tokens, app};

async fn serve() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("an address");
    let app = app(Counter::default(), Tokens::demo()).expect("the app builds");
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// One request on a fresh connection: the status and the body.
async fn send(addr: SocketAddr, request: Request<Body>) -> (StatusCode, String) {
    let stream = TcpStream::connect(addr).await.expect("the app accepts");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("an HTTP/1.1 handshake");
    tokio::spawn(connection);
    let response = sender.send_request(request).await.expect("a response");
    let status = response.status();
    let body = response.into_body().collect().await.expect("the body").to_bytes();
    (status, String::from_utf8(body.to_vec()).expect("UTF-8"))
}

/// A `tools/call` of `tool` as an MCP client sends it, with `token` if any.
fn call(addr: SocketAddr, tool: &str, token: Option<&str>) -> Request<Body> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": meta}});
    let mut request = Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.body(Body::from(message.to_string())).expect("a valid request")
}

fn text(body: &str) -> String {
    let reply: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    reply["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text result: {reply}")).to_owned()
}

fn get(addr: SocketAddr, path: &str, token: Option<&str>) -> Request<Body> {
    let mut request = Request::get(path).header("host", addr.to_string());
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.body(Body::empty()).expect("a valid request")
}

#[tokio::test]
async fn the_app_layer_refuses_callers_without_a_valid_token() {
    let addr = serve().await;
    for token in [None, Some("not-a-token")] {
        let (status, body) = send(addr, call(addr, "whoami", token)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token:?}: {body}");
        assert!(body.contains("bearer token"), "the app's refusal, not MCP's: {body}");
    }
    assert_eq!(send(addr, get(addr, "/api/counter", None)).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn tools_see_the_caller_the_app_identified() {
    let addr = serve().await;
    let (status, body) = send(addr, call(addr, "whoami", Some("ada-token"))).await;
    assert_eq!((status, text(&body)), (StatusCode::OK, "You are ada.".to_owned()));
    let (_, body) = send(addr, call(addr, "whoami", Some("grace-token"))).await;
    assert_eq!(text(&body), "You are grace.");
}

#[tokio::test]
async fn tools_and_routes_share_the_app_state_and_the_app_routes_still_work() {
    let addr = serve().await;
    let (status, body) = send(addr, get(addr, "/health", None)).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok"));

    assert_eq!(text(&send(addr, call(addr, "increment", Some("ada-token"))).await.1), "1");
    let bump = Request::post("/api/counter")
        .header("host", addr.to_string())
        .header("authorization", "Bearer grace-token")
        .body(Body::empty())
        .expect("a valid request");
    let (status, body) = send(addr, bump).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(serde_json::from_str::<Value>(&body).expect("JSON"), json!({"value": 2, "by": "grace"}));
    assert_eq!(text(&send(addr, call(addr, "counter", Some("ada-token"))).await.1), "2");
    let (_, body) = send(addr, get(addr, "/api/counter", Some("ada-token"))).await;
    assert_eq!(serde_json::from_str::<Value>(&body).expect("JSON"), json!({"value": 2}));
}

#[test]
fn help_prints_the_usage_and_an_unknown_argument_shows_it() {
    let args = |line: &[&str]| line.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(super::parse_args(args(&["--help"])).expect("help"), None);
    assert_eq!(super::parse_args(args(&["--addr", "127.0.0.1:1", "-h"])).expect("help"), None);
    let addr = super::parse_args(args(&["--addr", "127.0.0.1:8080"])).expect("valid");
    assert_eq!(addr, Some("127.0.0.1:8080".parse().expect("an address")));
    let message = super::parse_args(args(&["--frobnicate"])).expect_err("unknown").to_string();
    assert!(message.contains("unknown argument `--frobnicate`") && message.contains("--addr ADDR"), "{message}");
}
