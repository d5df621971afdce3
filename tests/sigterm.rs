//! SIGTERM to a server process under load: 2026-07-28 calls and calls in a
//! 2025-era session are in their handlers (held there until the test lets
//! them go), a listen stream and the session's standalone stream are open.
//! Then:
//!
//! - new connections are refused while the held calls are still in flight;
//! - every call the server had begun gets its whole response, by id, once
//!   let go: as many answered as were sent, none lost;
//! - the listen stream ends with its closing result, the standalone stream
//!   ends;
//! - the process exits with status 0 without waiting out its shutdown
//!   grace (it never logs that busy connections were closed).

use std::time::Duration;

use http::{Method, StatusCode};
use mcp_tests::http_wire::{Events, STUCK, answer, post, send, stateless_meta};
use mcp_tests::process::{Served, serve};
use mcp_tests::session_schema::assert_valid_session;
use mcp_tests::wire_schema::assert_valid_message;
use serde_json::{Value, json};
use tokio::process::Command;

/// Calls of each era held in flight when SIGTERM comes.
const CALLS: u64 = 8;

fn stateless(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = stateless_meta(json!({}));
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn in_session(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_under_load_answers_every_call_begun_and_exits_cleanly() {
    let dir = std::env::temp_dir().join(format!("mcp-sigterm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let release = dir.join("release");
    let _ = std::fs::remove_file(&release);
    let mut command = Command::new(env!("CARGO_BIN_EXE_graceful_server"));
    command.args(["0", release.to_str().expect("a UTF-8 path")]);
    let Served { mut child, addr, log } = serve(command).await;

    // A 2025-era session with its standalone stream, and a listen stream.
    let init = in_session(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    let response = post(addr, None, &init).await;
    let session = response.headers()["mcp-session-id"].to_str().expect("ASCII").to_owned();
    answer(response, &json!(1), |m| assert_valid_session("initialize", m)).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(addr, Some(&session), &initialized).await.status(), StatusCode::ACCEPTED);
    let standalone = send(addr, Method::GET, Some(&session), None, &[("accept", "text/event-stream")]).await;
    assert_eq!(standalone.status(), StatusCode::OK);
    let mut standalone = Events::of(standalone);
    let listen = stateless(2, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let mut stream = Events::of(post(addr, None, &listen).await);
    let ack = stream.next().await.expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");

    // The load: each call on a connection of its own, held in its handler.
    let mut calls = tokio::task::JoinSet::new();
    for n in 0..CALLS {
        let (stateless_id, session_id) = (100 + n, 200 + n);
        calls.spawn(async move {
            let request =
                stateless(stateless_id, "tools/call", json!({"name": "slow", "arguments": {"n": stateless_id}}));
            let response = post(addr, None, &request).await;
            (stateless_id, answer(response, &json!(stateless_id), |m| assert_valid_message("tools/call", m)).await)
        });
        let session = session.clone();
        calls.spawn(async move {
            let request = in_session(session_id, "tools/call", json!({"name": "slow", "arguments": {"n": session_id}}));
            let response = post(addr, Some(&session), &request).await;
            (session_id, answer(response, &json!(session_id), |m| assert_valid_session("tools/call", m)).await)
        });
    }
    let begun = async {
        while log.count("started ") < 2 * CALLS as usize {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(STUCK, begun).await.expect("every call reached its handler");

    let pid = child.id().expect("running").to_string();
    let signalled = Command::new("kill").args(["-TERM", &pid]).status().await.expect("kill runs");
    assert!(signalled.success());

    // New connections are refused, while the held calls are in flight.
    let refused = async {
        while tokio::net::TcpStream::connect(addr).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(STUCK, refused).await.expect("new connections refused after SIGTERM");
    assert_eq!(calls.len(), 2 * CALLS as usize);
    assert!(calls.try_join_next().is_none(), "no held call was answered before being let go");

    // Let go, every call begun is answered in full, each by its own id.
    std::fs::write(&release, b"go").expect("the release file");
    let mut answered = Vec::new();
    while let Some(done) = calls.join_next().await {
        let (id, reply) = done.expect("a call's task");
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["result"]["content"][0]["text"], format!("done {id}"), "{reply}");
        answered.push(id);
    }
    answered.sort_unstable();
    let sent: Vec<u64> = (0..CALLS).map(|n| 100 + n).chain((0..CALLS).map(|n| 200 + n)).collect();
    assert_eq!(answered, sent, "answered as many as were sent, by id");

    // The streams ended: the listen stream with its closing result.
    let closing = stream.next().await.expect("the closing result");
    assert_eq!(closing["id"], 2, "{closing}");
    assert_eq!(closing["result"]["resultType"], "complete", "{closing}");
    assert_eq!(closing["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2, "{closing}");
    assert!(stream.next().await.is_none(), "the listen stream ends after its result");
    while standalone.next().await.is_some() {}

    let status = tokio::time::timeout(3 * STUCK, child.wait()).await.expect("exits in time").expect("a status");
    assert!(status.success(), "exit status {status}");
    let lines = log.lines();
    assert!(
        !lines.iter().any(|l| l.contains("still busy at the end of the shutdown grace period")),
        "the shutdown waited out its grace: {lines:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
