//! Limits: body and header sizes, request and idle timeouts, clients that
//! stall or stop reading.

use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use mcp_runtime::transport::http::HttpConfig;
use mcp_tests::exchange::request;
use mcp_tests::wire_schema::{assert_valid_event_stream, assert_valid_line, request_meta};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::fixture::{BIG, Post, Probe, Running, STUCK, call, exchange, fixture};

#[tokio::test]
async fn bodies_over_the_limit_are_refused() {
    let server = Running::start(fixture(Probe::default()), HttpConfig::default().max_body_bytes(1024)).await;
    let big = call(1, "echo", json!({"text": "x".repeat(2000)}));
    let reply = Post::mcp(&big).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);

    // Without a Content-Length (chunked), the limit still holds.
    let (parts, _) = Post::mcp(&big).build(server.addr).into_parts();
    let reply = tokio::time::timeout(STUCK, exchange(server.addr, Request::from_parts(parts, Chunks(8))))
        .await
        .expect("an answer");
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);

    let small = call(2, "echo", json!({"text": "fits"}));
    assert_eq!(Post::mcp(&small).send(server.addr).await.status, StatusCode::OK);
    server.stop().await;
}

/// A body of `n` chunks of 512 spaces, of unknown length (sent chunked).
struct Chunks(usize);

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        if self.0 == 0 {
            return std::task::Poll::Ready(None);
        }
        self.0 -= 1;
        std::task::Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from(vec![b' '; 512])))))
    }
}

#[tokio::test]
async fn oversized_headers_are_refused() {
    let server = Running::start(fixture(Probe::default()), HttpConfig::default().max_header_bytes(8192)).await;
    let message = request(1, "server/discover", Value::Null);
    let reply = Post::mcp(&message).header("x-padding", "a".repeat(16 * 1024)).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert_eq!(Post::mcp(&message).send(server.addr).await.status, StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn a_handler_past_the_request_timeout_is_dropped_with_an_error() {
    let probe = Probe::default();
    let config = HttpConfig::default().request_timeout(Duration::from_millis(200));
    let server = Running::start(fixture(probe.clone()), config).await;
    let reply = Post::mcp(&call(21, "slow", json!({}))).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.error_code("tools/call", &json!(21)), -32603);
    assert!(probe.dropped(), "the handler was dropped");
    probe.token_cancelled().await;
    server.stop().await;
}

#[tokio::test]
async fn idle_connections_are_closed_but_requests_in_progress_are_never_cut() {
    let config = HttpConfig::default().header_read_timeout(Duration::from_millis(200));
    let server = Running::start(fixture(Probe::default()), config).await;
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    let driver = tokio::spawn(connection);

    // A handler (300 ms) and then a stream (600 ms) on the same connection,
    // each longer than the wait allowed between requests.
    let nap = call(1, "nap", json!({"text": "rested"}));
    let response = sender.send_request(Post::mcp(&nap).build(server.addr)).await.expect("the nap is answered");
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.expect("a body").to_bytes();
    let answer = assert_valid_line("tools/call", std::str::from_utf8(&body).expect("UTF-8"));
    assert_eq!(answer["result"]["content"][0]["text"], "rested");
    let mut meta = request_meta();
    meta["progressToken"] = json!("w");
    let pause = request(2, "tools/call", json!({"name": "pause", "arguments": {}, "_meta": meta}));
    let response = sender.send_request(Post::mcp(&pause).build(server.addr)).await.expect("the pause is answered");
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.expect("a whole stream").to_bytes();
    let events = assert_valid_event_stream("tools/call", std::str::from_utf8(&body).expect("UTF-8"));
    assert_eq!(events.last().map(|e| &e["result"]["content"][0]["text"]), Some(&json!("paused")));

    // Left waiting for a request, the connection is closed by the server.
    let closed = tokio::time::timeout(STUCK, driver).await;
    assert!(closed.is_ok(), "the idle connection is closed");
    server.stop().await;
}

#[tokio::test]
async fn a_stalled_client_does_not_hold_up_the_others() {
    let config = HttpConfig::default().header_read_timeout(Duration::from_secs(1)).body_timeout(Duration::from_secs(1));
    let server = Running::start(fixture(Probe::default()), config).await;

    // One client sends half a request head and stops; another, a head that
    // announces a body it never sends.
    let mut half_head = TcpStream::connect(server.addr).await.expect("connect");
    half_head.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n").await.expect("write");
    let mut no_body = TcpStream::connect(server.addr).await.expect("connect");
    let head =
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
    no_body.write_all(head.as_bytes()).await.expect("write");

    let reply = Post::mcp(&request(1, "server/discover", Value::Null)).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK, "served while others stall");

    // The stalled head is dropped; the missing body gets 408.
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(STUCK, half_head.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the connection with a stalled head is closed");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(STUCK, no_body.read_to_end(&mut answer)).await.expect("answered in time");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    assert!(head.to_ascii_lowercase().contains("content-length:"), "a body of known length: {head}");
    let error = assert_valid_line("tools/call", body);
    assert_eq!(error["error"]["code"], -32600, "{error}");
    server.stop().await;
}

#[tokio::test]
async fn a_client_that_stops_reading_loses_its_connection() {
    let config = HttpConfig::default().max_connections(1).write_timeout(Duration::from_millis(300));
    let server = Running::start(fixture(Probe::default()), config).await;
    let message = serde_json::to_string(&call(51, "big", json!({}))).expect("JSON");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: big\r\nContent-Length: {}\r\n\r\n",
        message.len()
    );
    let mut stalled = TcpStream::connect(server.addr).await.expect("connect");
    stalled.write_all(head.as_bytes()).await.expect("write");
    stalled.write_all(message.as_bytes()).await.expect("write");

    // The only connection slot is taken until the stalled reader is dropped.
    let reply = Post::mcp(&request(52, "server/discover", Value::Null)).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);

    let mut received = Vec::new();
    let _ = tokio::time::timeout(STUCK, stalled.read_to_end(&mut received)).await.expect("the connection ends");
    assert!(received.len() < BIG, "the stalled reader never got the whole answer");
    server.stop().await;
}
