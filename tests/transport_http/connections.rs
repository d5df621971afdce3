//! Cancellation, graceful shutdown and many connections at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http::StatusCode;
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use mcp_runtime::transport::http::HttpConfig;
use mcp_tests::wire_schema::assert_valid_line;
use serde_json::json;
use tokio::net::TcpStream;

use crate::fixture::{Post, Probe, Running, STUCK, call, fixture, standard};

#[tokio::test]
async fn a_client_that_disconnects_cancels_its_request() {
    let (server, probe) = standard().await;
    let request = Post::mcp(&call(31, "slow", json!({}))).build(server.addr);
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    let driver = tokio::spawn(connection);
    let pending = tokio::spawn(async move { sender.send_request(request).await });
    probe.started().await;
    pending.abort();
    driver.abort();
    let cancelled = tokio::time::timeout(STUCK, async {
        while !probe.dropped() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(cancelled.is_ok(), "the handler is dropped once the client is gone");
    probe.token_cancelled().await;
    server.stop().await;
}

#[tokio::test]
async fn shutdown_finishes_requests_in_flight() {
    let (server, probe) = standard().await;
    let addr = server.addr;
    let in_flight = tokio::spawn(Post::mcp(&call(41, "nap", json!({"text": "finished"}))).send(addr));
    probe.started().await;
    server.stop().await;
    let reply = in_flight.await.expect("the client task ends");
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "finished");
    assert!(TcpStream::connect(addr).await.is_err(), "nothing listens after shutdown");
}

#[tokio::test]
async fn shutdown_closes_what_outlives_the_grace_period() {
    let probe = Probe::default();
    let config = HttpConfig::default().shutdown_grace(Duration::from_millis(200));
    let server = Running::start(fixture(probe.clone()), config).await;
    let addr = server.addr;
    let stuck = tokio::spawn(async move {
        let request = Post::mcp(&call(42, "slow", json!({}))).build(addr);
        let stream = TcpStream::connect(addr).await.expect("connect");
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
        tokio::spawn(connection);
        sender.send_request(request).await
    });
    probe.started().await;
    server.stop().await;
    assert!(probe.dropped(), "the handler was dropped at the end of the grace period");
    let outcome = tokio::time::timeout(STUCK, stuck).await.expect("the client sees the end").expect("task ends");
    assert!(outcome.is_err(), "the connection closed without a response");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_256_concurrent_connections() {
    // Every connection comes from this one address.
    let config = HttpConfig::default().max_connections_per_address(256);
    let server = Running::start(fixture(Probe::default()), config).await;
    let addr = server.addr;
    let served = Arc::new(AtomicUsize::new(0));
    // Open every connection first, then send every request.
    let mut streams = Vec::new();
    for _ in 0..256 {
        streams.push(TcpStream::connect(addr).await.expect("connect"));
    }
    let tasks: Vec<_> = streams
        .into_iter()
        .enumerate()
        .map(|(i, stream)| {
            let served = Arc::clone(&served);
            tokio::spawn(async move {
                let id = i64::try_from(i).expect("small");
                let message = call(id, "echo", json!({"text": format!("n{i}")}));
                let request = Post::mcp(&message).build(addr);
                let (mut sender, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
                let driver = tokio::spawn(connection);
                let response = sender.send_request(request).await.expect("a response");
                assert_eq!(response.status(), StatusCode::OK);
                let body = response.into_body().collect().await.expect("a body").to_bytes();
                let value = assert_valid_line("tools/call", std::str::from_utf8(&body).expect("UTF-8"));
                assert_eq!(value["result"]["content"][0]["text"], format!("n{i}"));
                driver.abort();
                served.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    let all = async {
        for task in tasks {
            task.await.expect("every client succeeds");
        }
    };
    tokio::time::timeout(STUCK, all).await.expect("all served in time");
    assert_eq!(served.load(Ordering::SeqCst), 256);
    server.stop().await;
}

#[tokio::test]
async fn clients_beyond_the_connection_limit_wait_their_turn() {
    let config = HttpConfig::default().max_connections(4);
    let server = Running::start(fixture(Probe::default()), config).await;
    let tasks: Vec<_> = (0..24)
        .map(|i| tokio::spawn(Post::mcp(&call(i, "echo", json!({"text": "queued"}))).send(server.addr)))
        .collect();
    for task in tasks {
        assert_eq!(task.await.expect("client task").status, StatusCode::OK);
    }
    server.stop().await;
}
