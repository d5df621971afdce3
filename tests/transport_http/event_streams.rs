//! When a response becomes an event stream, how its events are framed, and
//! listen streams.

use std::time::Duration;

use http::StatusCode;
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::transport::http::HttpConfig;
use mcp_tests::exchange::request;
use mcp_tests::wire_schema::{assert_valid_event, assert_valid_message, assert_valid_notification, request_meta};
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::fixture::{Post, Probe, Running, STUCK, fixture, standard};

#[tokio::test]
async fn notifications_turn_the_response_into_an_event_stream() {
    let (server, _) = standard().await;
    let mut meta = request_meta();
    meta["progressToken"] = json!("p-1");
    meta["io.modelcontextprotocol/logLevel"] = json!("info");
    let message = request(11, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta}));
    let reply = Post::mcp(&message).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.headers["cache-control"], "no-cache");
    assert_eq!(reply.headers["x-accel-buffering"], "no", "proxies must not buffer the events");
    let text = std::str::from_utf8(&reply.body).expect("UTF-8");
    assert!(text.starts_with("data: {"), "{text}");
    let events = reply.events("tools/call");
    let methods: Vec<&str> = events.iter().map(|e| e["method"].as_str().unwrap_or("<response>")).collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "notifications/progress",
            "notifications/message",
            "<response>"
        ]
    );
    let progress: Vec<f64> = events[..3].iter().map(|e| e["params"]["progress"].as_f64().unwrap_or(-1.0)).collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    assert!(events[..3].iter().all(|e| e["params"]["progressToken"] == "p-1"));
    assert_eq!(events[4]["id"], 11);
    assert_eq!(events[4]["result"]["content"][0]["text"], "stepped");
    server.stop().await;
}

#[tokio::test]
async fn without_notifications_or_stream_support_the_response_is_json() {
    let (server, _) = standard().await;
    // No progress token, no log level: nothing to stream.
    let quiet = request(12, "tools/call", json!({"name": "steps", "arguments": {}}));
    let reply = Post::mcp(&quiet).send(server.addr).await;
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "stepped");

    // Progress requested, but the client only takes JSON: notifications are dropped.
    let mut meta = request_meta();
    meta["progressToken"] = json!(5);
    let loud = request(13, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta}));
    let reply = Post::mcp(&loud).header("accept", "application/json").send(server.addr).await;
    assert_eq!(reply.json("tools/call")["id"], 13);
    server.stop().await;
}

#[tokio::test]
async fn buffered_responses_answer_json_to_a_client_that_takes_it() {
    let probe = Probe::default();
    let config = HttpConfig::default().buffered_responses(true);
    let server = Running::start(fixture(probe), config).await;
    let mut meta = request_meta();
    meta["progressToken"] = json!("p-2");
    meta["io.modelcontextprotocol/logLevel"] = json!("info");
    let loud = request(14, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta}));
    // Takes both: one JSON document, the notifications dropped.
    let reply = Post::mcp(&loud).send(server.addr).await;
    assert_eq!(reply.content_type(), "application/json");
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "stepped");
    // Takes only streams: still a stream, notifications included.
    let reply = Post::mcp(&loud).header("accept", "text/event-stream").send(server.addr).await;
    let events = reply.events("tools/call");
    assert_eq!(events.len(), 5, "three progress notifications, a log message, the result: {events:?}");
    // A listen stream is a stream whatever the setting.
    let listen = request(15, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let response = sender.send_request(Post::mcp(&listen).build(server.addr)).await.expect("a response");
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut events = EventReader { body: response.into_body(), buffer: String::new() };
    let ack = events.next_message().await.expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    drop(events);
    server.stop().await;
}

#[tokio::test]
async fn concurrent_streams_do_not_mix() {
    let (server, _) = standard().await;
    let tasks: Vec<_> = (0..3)
        .map(|i| {
            let mut meta = request_meta();
            meta["progressToken"] = json!(format!("token-{i}"));
            let message = request(100 + i, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta}));
            let addr = server.addr;
            tokio::spawn(async move { (i, Post::mcp(&message).send(addr).await) })
        })
        .collect();
    for task in tasks {
        let (i, reply) = task.await.expect("the client task ends");
        let events = reply.events("tools/call");
        assert_eq!(events.len(), 4, "three progress events and the response");
        assert!(events[..3].iter().all(|e| e["params"]["progressToken"] == format!("token-{i}")));
        assert_eq!(events[3]["id"], 100 + i);
    }
    server.stop().await;
}

#[tokio::test]
async fn quiet_streams_carry_keep_alive_comments() {
    let config = HttpConfig::default().sse_keep_alive(Duration::from_millis(50));
    let server = Running::start(fixture(Probe::default()), config).await;
    let mut meta = request_meta();
    meta["progressToken"] = json!("k");
    let message = request(14, "tools/call", json!({"name": "pause", "arguments": {}, "_meta": meta}));
    let reply = Post::mcp(&message).send(server.addr).await;
    let text = String::from_utf8_lossy(&reply.body).into_owned();
    assert!(text.contains("\n\n: keep-alive\n\n"), "{text}");
    let events = reply.events("tools/call");
    assert_eq!(events.len(), 3, "two progress notifications and the response");
    assert_eq!(events[2]["result"]["content"][0]["text"], "paused");
    server.stop().await;
}

/// Reads a streamed response one event (or comment) at a time.
struct EventReader {
    body: hyper::body::Incoming,
    buffer: String,
}

impl EventReader {
    async fn next(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                return Some(event);
            }
            let frame = tokio::time::timeout(STUCK, self.body.frame()).await.expect("an event in time")?;
            if let Ok(data) = frame.expect("a readable stream").into_data() {
                self.buffer.push_str(std::str::from_utf8(&data).expect("UTF-8"));
            }
        }
    }

    /// The next event that is not a comment, checked as a frame of a
    /// listen stream.
    async fn next_message(&mut self) -> Option<Value> {
        loop {
            let event = self.next().await?;
            if let Some(message) = assert_valid_event("subscriptions/listen", &event) {
                return Some(message);
            }
        }
    }
}

#[tokio::test]
async fn listen_streams_outlive_the_request_timeout_and_close_at_shutdown() {
    let app = fixture(Probe::default());
    let config =
        HttpConfig::default().request_timeout(Duration::from_millis(100)).sse_keep_alive(Duration::from_millis(50));
    let server = Running::start(app.clone(), config).await;
    let message = request(61, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let response = sender.send_request(Post::mcp(&message).build(server.addr)).await.expect("a response");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["x-accel-buffering"], "no", "proxies must not buffer the events");
    let mut events = EventReader { body: response.into_body(), buffer: String::new() };

    let ack = events.next_message().await.expect("the acknowledgement");
    let json_only =
        Post::mcp(&request(62, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}})));
    let refused = json_only.header("accept", "application/json").send(server.addr).await;
    assert_eq!(refused.status, StatusCode::NOT_ACCEPTABLE, "a listen stream needs an event stream");
    assert_eq!(refused.error_code("subscriptions/listen", &json!(62)), -32600);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_valid_notification(&ack);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(events.next().await.as_deref(), Some(": keep-alive\n\n"), "still open past the request timeout");

    app.add_tool(ToolEntry::new("late", || async { "late" })).expect("a valid tool");
    let changed = events.next_message().await.expect("a change notification");
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_valid_notification(&changed);

    let stopping = tokio::spawn(server.stop());
    let closing = events.next_message().await.expect("the closing result");
    assert_eq!(closing["id"], 61);
    assert_valid_message("subscriptions/listen", &closing);
    assert_eq!(events.next().await, None, "the stream ends after its result");
    tokio::time::timeout(STUCK, stopping).await.expect("the server stops").expect("stop task");
}

#[tokio::test]
async fn a_client_that_drops_a_listen_stream_frees_its_listener() {
    let bus = mcp_runtime::events::LocalBus::new(16);
    let listeners = bus.sender();
    let app = mcp_runtime::Server::builder("dropped", "1.0.0")
        .event_bus(bus)
        .tool(ToolEntry::new("a", || async { "a" }))
        .build()
        .expect("a valid server");
    let server = Running::start(app.clone(), HttpConfig::default()).await;
    let message = request(71, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    let driver = tokio::spawn(connection);
    let response = sender.send_request(Post::mcp(&message).build(server.addr)).await.expect("a response");
    let mut events = EventReader { body: response.into_body(), buffer: String::new() };
    let ack = events.next_message().await.expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(listeners.receiver_count(), 1, "the open stream listens");

    // The client goes away without a word: body, request handle, connection.
    drop(events);
    drop(sender);
    driver.abort();
    let freed = tokio::time::timeout(STUCK, async {
        while listeners.receiver_count() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(freed.is_ok(), "the server still listens for a client that left");
    // A change now reaches no one, and the server stops without waiting for
    // the stream it already let go.
    app.add_tool(ToolEntry::new("b", || async { "b" })).expect("a valid tool");
    assert_eq!(listeners.receiver_count(), 0);
    server.stop().await;
}
