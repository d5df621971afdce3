//! Two server processes sharing change events through a real Redis server:
//! a change announced on one replica reaches a listen stream on the other.
//!
//! Needs `redis-server` on the PATH (`.ci/install.sh` installs it). Without
//! it the test is reported as ignored (`build.rs` sets `no_redis_server`),
//! except under `CI=true`, where it runs and fails.

use std::process::Stdio;
use std::time::Duration;

use mcp_tests::http_wire::STUCK;
use mcp_tests::process::{Log, log_stderr};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

struct Replica {
    child: Child,
    log: Log,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Replica {
    fn spawn(url: &str, channel: &str) -> Replica {
        let mut child = Command::new(env!("CARGO_BIN_EXE_redis_replica"))
            .args([url, channel])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("replica starts");
        let log = log_stderr(&mut child);
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Replica { child, log, stdin, lines }
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.expect("write");
        self.stdin.flush().await.expect("flush");
    }

    /// The next line, checked against the schema as an answer to (or a
    /// frame of) a request of `method`.
    async fn next(&mut self, method: &str) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a line in time")
            .expect("readable")
            .expect("not closed");
        mcp_tests::wire_schema::assert_valid_line(method, &line)
    }
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test]
async fn a_change_on_one_replica_reaches_listeners_on_the_other() {
    let redis = mcp_tests::redis::start().await;
    let mut a = Replica::spawn(&redis.url, "mcp:test:events");
    let mut b = Replica::spawn(&redis.url, "mcp:test:events");

    // Both replicas are up once they answer a request.
    for (r, id) in [(&mut a, 1), (&mut b, 2)] {
        r.send(json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": {"_meta": meta()}})).await;
        assert_eq!(r.next("server/discover").await["id"], id);
    }

    b.send(json!({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["mem://doc"]}}}))
        .await;
    let ack = b.next("subscriptions/listen").await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    a.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"_meta": meta(), "name": "announce_tools_changed"}}))
        .await;
    assert_eq!(a.next("tools/call").await["result"]["content"][0]["text"], "announced");
    let changed = b.next("subscriptions/listen").await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "L");

    a.send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"_meta": meta(), "name": "touch_doc"}}),
    )
    .await;
    assert_eq!(a.next("tools/call").await["id"], 4);
    let updated = b.next("subscriptions/listen").await;
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "mem://doc");

    // Cancelling the listen ends it without a response.
    b.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "L"}})).await;
    b.send(json!({"jsonrpc": "2.0", "id": 5, "method": "server/discover", "params": {"_meta": meta()}})).await;
    assert_eq!(b.next("server/discover").await["id"], 5);

    // The end of input ends each replica, cleanly.
    for Replica { mut child, log, stdin, .. } in [a, b] {
        drop(stdin);
        let status = tokio::time::timeout(STUCK, child.wait()).await.expect("ends in time").expect("a status");
        assert!(status.success(), "a replica ended with {status}:\n{}", log.lines().join("\n"));
    }
    drop(redis);
}

/// The readiness check behind the HTTP transport's probe: a `PING` that
/// fails while Redis is down and succeeds once it is back, for the bus and
/// the session store alike.
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test]
async fn readiness_follows_redis_down_and_back() {
    use mcp_runtime::events::EventBus;
    use mcp_runtime::redis::{RedisBus, RedisSessionStore};
    use mcp_runtime::session::SessionStore;

    let redis = mcp_tests::redis::start().await;
    let port: u16 = redis.url.trim_end_matches('/').rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port");
    let bus = RedisBus::connect(&redis.url, "mcp:ready:events").await.expect("bus connects");
    let store = RedisSessionStore::connect(&redis.url, "mcp:ready").await.expect("store connects");
    assert!(bus.ready().await.is_ok(), "bus ready");
    assert!(store.ready().await.is_ok(), "store ready");

    drop(redis);
    let down = tokio::time::timeout(Duration::from_secs(10), async {
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    down.await.expect("redis-server stops");
    assert!(bus.ready().await.is_err(), "bus not ready while Redis is down");
    assert!(store.ready().await.is_err(), "store not ready while Redis is down");

    let _again = mcp_tests::redis::start_on(port).await;
    assert!(bus.ready().await.is_ok(), "bus ready again");
    assert!(store.ready().await.is_ok(), "store ready again");
}
