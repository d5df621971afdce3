//! The standalone server speaks HTTP/2 (prior knowledge) on the port where
//! it speaks HTTP/1.1, and its transport rules hold there too: calls of
//! both eras, many at once on one connection, the `Origin` check, the head
//! size limit.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode, Version};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::transport::http::HttpConfig;
use mcp_tests::http_wire::{STUCK, stateless_meta};
use serde_json::{Value, json};

type Sender = hyper::client::conn::http2::SendRequest<Full<Bytes>>;

/// How many calls the test sends at once on one connection.
const AT_ONCE: usize = 16;

/// How long a call of `together` waits for the others: generous, so that
/// only calls served one after the other run out of it, and within
/// [`STUCK`], so that the test fails rather than hangs.
const TOGETHER: Duration = Duration::from_secs(20);

/// A server on a loopback port of its own, stopped when the test ends. Its
/// `together` tool answers with its text only once [`AT_ONCE`] calls of it
/// are in flight at the same time (else, after [`TOGETHER`], says so).
async fn serve() -> SocketAddr {
    let all_in = Arc::new(tokio::sync::Barrier::new(AT_ONCE));
    let server = mcp_runtime::Server::builder("h2", "1.0.0")
        .tool(ToolEntry::new("echo", |mcp_runtime::Args(args): mcp_runtime::Args<Value>| async move {
            args["text"].as_str().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("together", move |mcp_runtime::Args(args): mcp_runtime::Args<Value>| {
            let all_in = Arc::clone(&all_in);
            async move {
                match tokio::time::timeout(TOGETHER, all_in.wait()).await {
                    Ok(_) => args["text"].as_str().unwrap_or_default().to_owned(),
                    Err(_) => format!("not every one of the {AT_ONCE} calls was in flight within {TOGETHER:?}"),
                }
            }
        }))
        .build()
        .expect("a server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free loopback port");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    addr
}

/// An HTTP/2 connection with prior knowledge (no upgrade, no TLS).
async fn connect(addr: SocketAddr) -> Sender {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream)).await.expect("h2 handshake");
    tokio::spawn(connection);
    sender
}

fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &Value) -> Request<Full<Bytes>> {
    let mut request = Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Full::new(Bytes::from(body.to_string()))).expect("a request")
}

fn call(addr: SocketAddr, id: u64, text: &str) -> Request<Full<Bytes>> {
    call_of("echo", addr, id, text)
}

fn call_of(tool: &str, addr: SocketAddr, id: u64, text: &str) -> Request<Full<Bytes>> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": tool, "arguments": {"text": text}, "_meta": stateless_meta(json!({}))}});
    let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", tool)];
    post(addr, &headers, &body)
}

/// Sends `request` and reads the whole answer.
async fn send(sender: &mut Sender, request: Request<Full<Bytes>>) -> (http::response::Parts, Bytes) {
    let response = tokio::time::timeout(STUCK, sender.send_request(request)).await.expect("in time").expect("sent");
    let (parts, body) = response.into_parts();
    let body = tokio::time::timeout(STUCK, body.collect()).await.expect("in time").expect("a body").to_bytes();
    (parts, body)
}

fn json_of(body: &Bytes) -> Value {
    serde_json::from_slice(body).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
}

#[tokio::test]
async fn calls_are_answered_over_http2_many_at_once_on_one_connection() {
    let addr = serve().await;
    let sender = connect(addr).await;
    // Each call answers only when all of them are in flight: streams served one by one fail.
    let calls = (0..AT_ONCE as u64).map(|id| {
        let mut sender = sender.clone();
        async move { (id, send(&mut sender, call_of("together", addr, id, &format!("call {id}"))).await) }
    });
    for (id, (parts, body)) in futures_util::future::join_all(calls).await {
        assert_eq!(parts.version, Version::HTTP_2);
        assert_eq!(parts.status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        let answer = json_of(&body);
        assert_eq!(answer["id"], id);
        assert_eq!(answer["result"]["content"][0]["text"], format!("call {id}"), "{answer}");
    }
}

#[tokio::test]
async fn a_2025_era_session_is_served_over_http2() {
    let addr = serve().await;
    let mut sender = connect(addr).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h2-test", "version": "1"}}});
    let (parts, body) = send(&mut sender, post(addr, &[], &initialize)).await;
    assert_eq!(parts.status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let session = parts.headers.get("mcp-session-id").expect("a session id").to_str().expect("text").to_owned();
    let session_headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (parts, _) = send(&mut sender, post(addr, &session_headers, &initialized)).await;
    assert_eq!(parts.status, StatusCode::ACCEPTED);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"text": "in a session"}}});
    let (parts, body) = send(&mut sender, post(addr, &session_headers, &call)).await;
    assert_eq!((parts.version, parts.status), (Version::HTTP_2, StatusCode::OK));
    let text = String::from_utf8_lossy(&body);
    // JSON or one event: the answer is in it either way.
    assert!(text.contains(r#""text":"in a session""#), "{text}");
}

#[tokio::test]
async fn the_origin_check_and_the_head_limit_hold_over_http2() {
    let addr = serve().await;
    let mut sender = connect(addr).await;
    let mut request = call(addr, 1, "from a page");
    request.headers_mut().insert("origin", "https://evil.example".parse().expect("a header"));
    let (parts, _) = send(&mut sender, request).await;
    assert_eq!(parts.status, StatusCode::FORBIDDEN, "a foreign Origin is refused on HTTP/2 too");

    let mut request = call(addr, 2, "a huge head");
    request.headers_mut().insert("x-padding", "a".repeat(40 * 1024).parse().expect("a header"));
    let (parts, _) = send(&mut sender, request).await;
    assert_eq!(parts.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, "beyond the 32 KiB default");
}

#[tokio::test]
async fn a_head_beyond_the_limit_is_431_over_http1_too() {
    let addr = serve().await;
    let padding = "a".repeat(40 * 1024);
    let response = mcp_tests::http_wire::send(
        addr,
        http::Method::POST,
        None,
        Some(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
        &[("x-padding", &padding)],
    )
    .await;
    assert_eq!(
        (response.version(), response.status()),
        (Version::HTTP_11, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE)
    );
}
