//! Backpressure and bounded memory of the HTTP transport, against a server
//! process (`load_server`) whose memory and open files are read from
//! `/proc`: clients that never read their streams, a flood of idle
//! connections, a flood of requests past the in-flight limit, and handlers
//! that never return. Each test asserts what was answered and what was
//! lost; none measures speed (every wait is a generous guard).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use mcp_tests::exchange::request;
use mcp_tests::http_wire::{self, post, send, stateless_meta};
use mcp_tests::process::STARTUP;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// How long anything may take before the test calls it stuck.
const STUCK: Duration = Duration::from_secs(60);

/// The limits `load_server` runs with.
const IN_FLIGHT: usize = 4;

/// How much a server's memory may grow while it is flooded: far less than
/// what the flood would hold if a stream kept it all (tens of MiB), far
/// more than what the bounded queues and the sockets' buffers hold.
const RSS_GROWTH_AT_MOST_KIB: u64 = 32 * 1024;

struct LoadServer {
    child: Child,
    addr: SocketAddr,
}

impl LoadServer {
    async fn start(write_timeout_seconds: u64) -> LoadServer {
        let mut command = Command::new(env!("CARGO_BIN_EXE_load_server"));
        command.args(["0".to_owned(), write_timeout_seconds.to_string()]);
        let served = mcp_tests::process::serve(command).await;
        LoadServer { child: served.child, addr: served.addr }
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    /// Resident memory, in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("/proc status");
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
        line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a number of kB")
    }

    fn open_files(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid())).expect("/proc fd").count()
    }

    /// `tools/call` of `name`, answered in full.
    async fn call(&self, id: i64, name: &str, arguments: Value) -> (StatusCode, http::HeaderMap, Value) {
        call_at(self.addr, id, name, arguments).await
    }

    /// Checks that another client is served as usual.
    async fn answers(&self, id: i64) {
        let (status, _, answer) = self.call(id, "echo", json!({"text": "here"})).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["result"]["content"][0]["text"], "here", "{answer}");
    }
}

/// `tools/call` of `name` on a connection of its own, answered in full.
async fn call_at(addr: SocketAddr, id: i64, name: &str, arguments: Value) -> (StatusCode, http::HeaderMap, Value) {
    let response = post(addr, None, &call(id, name, arguments, stateless_meta(json!({})))).await;
    let (parts, body) = response.into_parts();
    let bytes = tokio::time::timeout(STUCK, body.collect()).await.expect("in time").expect("a body").to_bytes();
    (parts.status, parts.headers, serde_json::from_slice(&bytes).expect("JSON"))
}

fn call(id: i64, name: &str, arguments: Value, meta: Value) -> Value {
    request(id, "tools/call", json!({"name": name, "arguments": arguments, "_meta": meta}))
}

/// The rest of a body, as text, until it ends (or the connection breaks).
async fn rest_of(body: &mut Incoming) -> String {
    let mut text = Vec::new();
    while let Some(frame) = tokio::time::timeout(STUCK, body.frame()).await.expect("the stream ends in time") {
        match frame {
            Ok(frame) => text.extend_from_slice(&frame.into_data().unwrap_or_else(|_| Bytes::new())),
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&text).into_owned()
}

/// The JSON-RPC messages of event-stream text, and its event ids.
fn messages(text: &str) -> (Vec<Value>, Vec<String>) {
    let (mut messages, mut ids) = (Vec::new(), Vec::new());
    for event in text.split("\n\n") {
        ids.extend(event.lines().filter_map(|l| l.strip_prefix("id: ")).map(str::to_owned));
        let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
        if !data.join("").trim().is_empty() {
            messages.push(serde_json::from_str(&data.join("\n")).expect("JSON data"));
        }
    }
    (messages, ids)
}

#[tokio::test]
async fn a_request_stream_its_client_does_not_read_is_cut_with_an_error_and_frees_its_slot() {
    let server = LoadServer::start(30).await;
    let mut meta = stateless_meta(json!({}));
    meta["progressToken"] = json!("c");
    let response = post(server.addr, None, &call(7, "chatter", json!({}), meta)).await;
    assert_eq!(response.status(), StatusCode::OK);
    // The handler sends 1 KiB notifications as fast as it can; nothing is read.
    let mut stalled = response.into_body();
    // The server answers throughout, and the slot is given back once the
    // stream is cut: then as many slow calls as the limit are admitted.
    let freed = async {
        for round in 0.. {
            server.answers(round).await;
            let first = 100 + 10 * round;
            let calls = at_once(server.addr, first..first + IN_FLIGHT as i64, "slow").await;
            if calls.iter().all(|(status, _, _)| *status == StatusCode::OK) {
                return;
            }
        }
    };
    tokio::time::timeout(STARTUP, freed).await.expect("the stalled request's slot is given back");

    let text = rest_of(&mut stalled).await;
    let (messages, _) = messages(&text);
    let (last, notes) = messages.split_last().expect("messages");
    assert!(notes.iter().all(|n| n["method"] == "notifications/progress"), "notifications, then the end");
    let progress: Vec<f64> = notes.iter().map(|n| n["params"]["progress"].as_f64().expect("a number")).collect();
    assert!(progress.windows(2).all(|w| w[1] == w[0] + 1.0), "none lost before the end");
    assert_eq!(last["id"], 7, "{last}");
    assert_eq!(last["error"]["code"], -32603, "{last}");
    assert!(last["error"]["message"].as_str().is_some_and(|m| m.contains("did not read")), "{last}");
}

#[tokio::test]
async fn a_listen_stream_nobody_reads_keeps_memory_bounded_and_ends() {
    let server = LoadServer::start(2).await;
    let listen = request(
        "L",
        "subscriptions/listen",
        json!({"_meta": stateless_meta(json!({})), "notifications": {"resourceSubscriptions": ["mem://doc"]}}),
    );
    let files_without_the_stream = server.open_files();
    let response = post(server.addr, None, &listen).await;
    let mut events = http_wire::Events::of(response);
    let ack = events.next().await.expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let before = server.rss_kib();

    // Many changes, none read; each notification 4 KiB, so that even the
    // few a listener behind the bus sends fill the connection's buffers.
    for round in 0..20 {
        let (status, _, answer) = server.call(round, "flood", json!({"count": 20_000, "pad": 4096})).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        server.answers(1000 + round).await;
    }
    let grown = server.rss_kib().saturating_sub(before);
    assert!(grown < RSS_GROWTH_AT_MOST_KIB, "memory grew by {grown} KiB");

    // The stream ended: with its closing result once too much waited
    // unread, or, stalled past the write timeout, with its connection.
    // Either way the server closes the connection (past the write timeout,
    // or idle after the closing result), which is waited for before reading
    // since reading would unstall it. What came before is whole, and tells
    // of the changes.
    let closed_by_the_server = async {
        while server.open_files() > files_without_the_stream {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(STARTUP, closed_by_the_server).await.expect("the server closes the stalled stream");
    let (mut told, mut closed) = (0, false);
    while let Some(message) = events.next().await {
        assert!(!closed, "nothing after the closing result: {message}");
        if message.get("method").is_none() {
            assert_eq!(message["id"], "L", "{message}");
            assert_eq!(message["result"]["resultType"], "complete", "{message}");
            closed = true;
            continue;
        }
        assert_eq!(message["method"], "notifications/resources/updated", "{message}");
        told += 1;
    }
    assert!(told > 0, "the client was told of the changes it follows");
    server.answers(9999).await;
}

#[tokio::test]
async fn a_session_stream_nobody_reads_is_cut_with_retry_and_resumed_by_last_event_id() {
    let server = LoadServer::start(30).await;
    let message =
        |id: i64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let init = message(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let response = post(server.addr, None, &init).await;
    let Some(session) = response.headers().get("mcp-session-id") else {
        panic!("{:?}: {:?}", response.status(), response.into_body().collect().await.map(|b| b.to_bytes()));
    };
    let session = session.to_str().expect("an id").to_owned();
    let _ = response.into_body().collect().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(server.addr, Some(&session), &initialized).await.status(), StatusCode::ACCEPTED);
    let subscribe = message(2, "resources/subscribe", json!({"uri": "mem://doc"}));
    assert_eq!(post(server.addr, Some(&session), &subscribe).await.status(), StatusCode::OK);

    let response = send(server.addr, Method::GET, Some(&session), None, &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut stalled = response.into_body();
    let before = server.rss_kib();
    for round in 0..20 {
        let (status, _, answer) = server.call(10 + round, "flood", json!({"count": 20_000})).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        server.answers(1000 + round).await;
    }
    let grown = server.rss_kib().saturating_sub(before);
    assert!(grown < RSS_GROWTH_AT_MOST_KIB, "memory grew by {grown} KiB");

    // The connection was ended, telling the client to come back.
    let text = rest_of(&mut stalled).await;
    assert!(text.ends_with("retry: 1000\n\n"), "ends with retry: {:?}", &text[text.len().saturating_sub(200)..]);
    let (read, ids) = messages(&text);
    // Changes, and where the session's watcher fell behind the bus, word
    // that every list may have changed.
    let updated = read.iter().filter(|m| m["method"] == "notifications/resources/updated").count();
    let lists = read.iter().filter(|m| m["method"].as_str().is_some_and(|m| m.ends_with("/list_changed"))).count();
    assert!(updated > 0 && updated + lists == read.len(), "{updated} updates, {lists} list changes of {}", read.len());
    let last = ids.last().expect("event ids").clone();

    // It comes back after the last event it read, and the stream goes on.
    let resumed = send(server.addr, Method::GET, Some(&session), None, &[("last-event-id", &last)]).await;
    assert_eq!(resumed.status(), StatusCode::OK);
    let mut resumed = http_wire::Events::of(resumed);
    let (status, _, _) = server.call(99, "flood", json!({"count": 1})).await;
    assert_eq!(status, StatusCode::OK);
    // What it missed (changes, or word that anything may have changed),
    // then the new change.
    while resumed.next().await.expect("events after the resumption")["method"] != "notifications/resources/updated" {}
    let seq = |id: &str| id.rsplit_once('-').and_then(|(_, n)| n.parse::<u64>().ok()).expect("a sequence number");
    let next_id = resumed.last_id.clone().expect("an id");
    assert!(seq(&next_id) > seq(&last), "{next_id} after {last}");
}

#[tokio::test]
async fn requests_past_the_in_flight_limit_are_refused_at_once_and_the_admitted_answered() {
    let server = LoadServer::start(5).await;
    // `hang` holds each admitted request until the request timeout (2 s),
    // far longer than sending 40 requests takes: exactly the limit is
    // admitted, and every other request is refused while they are held.
    let mut calls = tokio::task::JoinSet::new();
    for id in 0..40 {
        calls.spawn(async move { (id, call_at(server.addr, id, "hang", json!({})).await) });
    }
    let mut order = Vec::new();
    while let Some(done) = calls.join_next().await {
        let (id, (status, headers, answer)) = done.expect("the call ends");
        assert_eq!(answer["id"], id, "every answer echoes its request's id: {answer}");
        match status {
            StatusCode::OK => {
                assert_eq!(answer["error"]["code"], -32603, "{answer}");
                assert!(answer["error"]["message"].as_str().is_some_and(|m| m.contains("did not finish")), "{answer}");
            }
            StatusCode::SERVICE_UNAVAILABLE => {
                assert_eq!(headers["retry-after"], "1");
                assert_eq!(answer["error"]["code"], -32000, "{answer}");
            }
            other => panic!("{other}: {answer}"),
        }
        order.push(status);
    }
    let admitted = order.iter().filter(|s| **s == StatusCode::OK).count();
    assert_eq!(admitted, IN_FLIGHT, "exactly the limit is admitted: {order:?}");
    // Refused at once: every refusal came back before any admitted request
    // ended, while they were all still held.
    assert!(
        order[..40 - IN_FLIGHT].iter().all(|s| *s == StatusCode::SERVICE_UNAVAILABLE),
        "a refusal waited for an admitted request: {order:?}"
    );
    // The slots are all free again.
    let again = at_once(server.addr, 100..100 + IN_FLIGHT as i64, "slow").await;
    assert!(again.iter().all(|(status, _, _)| *status == StatusCode::OK));
}

#[tokio::test]
async fn handlers_that_never_return_are_timed_out_and_their_slots_reused() {
    let server = LoadServer::start(5).await;
    for round in 0..2 {
        let first = 10 * round;
        for (status, _, answer) in at_once(server.addr, first..first + IN_FLIGHT as i64, "hang").await {
            assert_eq!(status, StatusCode::OK, "{answer}");
            assert_eq!(answer["error"]["code"], -32603, "{answer}");
            assert!(answer["error"]["message"].as_str().is_some_and(|m| m.contains("did not finish")), "{answer}");
        }
    }
    let after = at_once(server.addr, 100..100 + IN_FLIGHT as i64, "slow").await;
    assert!(after.iter().all(|(status, _, _)| *status == StatusCode::OK), "every slot is free");
}

/// The soft limit on this process's open files.
fn open_files_limit() -> usize {
    let limits = std::fs::read_to_string("/proc/self/limits").expect("/proc limits");
    let line = limits.lines().find(|l| l.starts_with("Max open files")).expect("a limit");
    line.split_whitespace().nth(3).and_then(|n| n.parse().ok()).unwrap_or(1024)
}

#[tokio::test]
async fn a_flood_of_idle_connections_is_reaped_and_the_server_answers_throughout() {
    let server = LoadServer::start(5).await;
    let baseline = server.open_files();
    // 2000 idle connections; fewer where this process (and the server,
    // which inherits the limit) may not open that many files, keeping
    // room for everything else both have open.
    let count = 2000.min(open_files_limit().saturating_sub(256));
    assert!(count >= 500, "too low a limit on open files for this test: {}", open_files_limit());
    let mut idle = Vec::with_capacity(count);
    for n in 0..count {
        idle.push(TcpStream::connect(server.addr).await.expect("connect"));
        if n % 500 == 0 {
            server.answers(n as i64).await;
        }
    }
    // A slow head, a byte at a time, is cut like the idle ones.
    let mut trickle = TcpStream::connect(server.addr).await.expect("connect");
    server.answers(-1).await;

    let mut trickled = 0;
    for byte in b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n".iter().cycle() {
        if trickle.write_all(&[*byte]).await.is_err() || trickled > 600 {
            break;
        }
        trickled += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(trickled < 600, "the trickling head was cut");

    let reaped = tokio::time::timeout(STUCK, async {
        while server.open_files() > baseline + 8 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(reaped.is_ok(), "{} files open, {baseline} at the start", server.open_files());
    let mut closed = 0;
    for stream in &mut idle {
        let mut byte = [0u8; 1];
        if matches!(tokio::time::timeout(STUCK, stream.read(&mut byte)).await, Ok(Ok(0) | Err(_))) {
            closed += 1;
        }
    }
    assert_eq!(closed, count, "every idle connection was closed by the server");
    server.answers(9999).await;
}

/// `tools/call` of `name` with no arguments for each id, all sent at once;
/// the answers in the order of the ids.
async fn at_once(
    addr: SocketAddr,
    ids: std::ops::Range<i64>,
    name: &'static str,
) -> Vec<(StatusCode, http::HeaderMap, Value)> {
    let calls: Vec<_> = ids.map(|id| tokio::spawn(call_at(addr, id, name, json!({})))).collect();
    let mut answers = Vec::new();
    for call in calls {
        answers.push(call.await.expect("the call ends"));
    }
    answers
}
