//! Two HTTP server processes keeping their 2025-era sessions in one real
//! Redis server, as behind a load balancer that does not route by session:
//! a session opened on one replica is served by the other, a request to the
//! client made on one is answered on the other, a stream held by one is
//! resumed on the other, a cancellation and a subscription reach the
//! replica concerned, and a DELETE on either ends the session on both. Every message read back is checked against the
//! official 2025-11-25 schema.
//!
//! Needs `redis-server` on the PATH, as `redis_bus` does.

use std::net::SocketAddr;
use std::time::Duration;

use http::{Method, StatusCode};
use hyper::body::Incoming;
use mcp_tests::http_wire::{self, Events, post, send};
use mcp_tests::session_schema::assert_valid_session;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

struct Replica {
    _child: Child,
    addr: SocketAddr,
}

impl Replica {
    async fn spawn(url: &str, prefix: &str) -> Replica {
        let mut command = Command::new(env!("CARGO_BIN_EXE_http_replica"));
        command.args([url, prefix, "0"]);
        let served = mcp_tests::process::serve(command).await;
        Replica { _child: served.child, addr: served.addr }
    }
}

/// The answer to a request `id` of `method`, every message on the way
/// checked against the schema.
async fn answer(response: http::Response<Incoming>, method: &str, id: &Value) -> Value {
    http_wire::answer(response, id, |message| assert_valid_session(method, message)).await
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: i64, tool: &str) -> Value {
    request(id, "tools/call", json!({"name": tool, "arguments": {}}))
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test]
async fn a_session_opened_on_one_replica_is_served_by_the_other() {
    let redis = mcp_tests::redis::start().await;
    let replicas = [Replica::spawn(&redis.url, "mcp:test").await, Replica::spawn(&redis.url, "mcp:test").await];
    let (one, two) = (replicas[0].addr, replicas[1].addr);

    // Opened on one.
    let init = request(
        0,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "test", "version": "1.0.0"},
        }),
    );
    let response = post(one, None, &init).await;
    let id = response.headers()["mcp-session-id"].to_str().expect("ASCII").to_owned();
    let result = answer(response, "initialize", &json!(0)).await;
    assert_eq!(result["result"]["protocolVersion"], "2025-11-25");
    let session = Some(id.as_str());

    // Served on two.
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(two, session, &initialized).await.status(), StatusCode::ACCEPTED);
    let tools = answer(post(two, session, &request(1, "tools/list", json!({}))).await, "tools/list", &json!(1)).await;
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"ask"), "{tools}");
    let level = request(2, "logging/setLevel", json!({"level": "info"}));
    let set = answer(post(two, session, &level).await, "logging/setLevel", &json!(2)).await;
    assert_eq!(set["result"], json!({}));

    // A call on one asks the client, whose answer goes to two.
    let mut stream = Events::of(post(one, session, &call(3, "ask")).await);
    let mut logged = false;
    let asked = loop {
        let message = stream.next().await.expect("the elicitation");
        assert_valid_session("tools/call", &message);
        match message["method"].as_str() {
            Some("notifications/message") => logged = true,
            Some("elicitation/create") => break message,
            _ => panic!("unexpected before the elicitation: {message}"),
        }
    };
    assert!(logged, "the level set on two reaches the handler on one");
    let asked_at = stream.last_id.clone().expect("2025-11-25 events have ids");
    let one_replica = asked_at.split_once('.').map(|(replica, _)| replica.to_owned()).expect("<replica>.<stream>-<n>");
    let one_replica = one_replica.as_str();
    assert!(asked["id"].is_string(), "our ids name the replica that waits: {asked}");
    let reply =
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    assert_eq!(post(two, session, &reply).await.status(), StatusCode::ACCEPTED);
    let done = loop {
        let message = stream.next().await.expect("the call's answer on one's stream");
        assert_valid_session("tools/call", &message);
        if message["id"] == 3 {
            break message;
        }
    };
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada!");

    // A stream can be resumed on either replica: two has one forward what
    // came after the elicitation, then the stream's end.
    let resume = [("accept", "text/event-stream"), ("last-event-id", asked_at.as_str())];
    let mut replay = Events::of(send(two, Method::GET, session, None, &resume).await);
    let replayed = loop {
        let message = replay.next().await.expect("the answer again, forwarded");
        assert_valid_session("tools/call", &message);
        if message.get("method").is_none() {
            break message;
        }
    };
    assert_eq!(replayed["id"], 3, "{replayed}");
    assert_eq!(replayed["result"]["content"][0]["text"], "Hello, Ada!");
    assert!(replay.next().await.is_none(), "the finished stream ends");
    assert!(replay.last_id.is_some_and(|id| id.starts_with(one_replica)), "ids name the replica holding the stream");
    // A stream its replica does not keep is refused, on either.
    let unknown = format!("{one_replica}.999-0");
    let unknown = [("accept", "text/event-stream"), ("last-event-id", unknown.as_str())];
    assert_eq!(send(two, Method::GET, session, None, &unknown).await.status(), StatusCode::BAD_REQUEST);
    assert_eq!(send(one, Method::GET, session, None, &unknown).await.status(), StatusCode::BAD_REQUEST);

    // A call running on one is cancelled from two: no answer, and its stream ends.
    let mut waiting = Events::of(post(one, session, &call(4, "wait")).await);
    let running = waiting.next().await.expect("the handler's word that it runs");
    assert_valid_session("tools/call", &running);
    assert_eq!(running["method"], "notifications/message", "{running}");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}});
    assert_eq!(post(two, session, &cancel).await.status(), StatusCode::ACCEPTED);
    while let Some(message) = waiting.next().await {
        assert_valid_session("tools/call", &message);
        assert_ne!(message["id"], 4, "a cancelled request is not answered: {message}");
    }

    // One's standalone stream hears of a subscription made on two.
    let mut standalone = Events::of(send(one, Method::GET, session, None, &[("accept", "text/event-stream")]).await);
    let subscribe = request(5, "resources/subscribe", json!({"uri": "mem://doc"}));
    answer(post(two, session, &subscribe).await, "resources/subscribe", &json!(5)).await;
    // A stateless request touches the resource on one without loading the session there.
    let touch = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "touch_doc", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "touch_doc")];
    // The word from two may take a moment; the next reload of the record
    // on one would take a minute.
    let mut updated = None;
    for _ in 0..20 {
        assert_eq!(send(one, Method::POST, None, Some(&touch), &headers).await.status(), StatusCode::OK);
        if let Ok(message) = tokio::time::timeout(Duration::from_millis(250), standalone.next()).await {
            updated = message;
            break;
        }
    }
    let updated = updated.expect("the update on one's standalone stream");
    assert_valid_session("resources/subscribe", &updated);
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "mem://doc");

    // Ended on two, it is gone on one, whose stream ends.
    let deleted = send(two, Method::DELETE, session, None, &[]).await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert!(standalone.next().await.is_none(), "one's standalone stream ended");
    let gone = post(one, session, &request(7, "tools/list", json!({}))).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    assert_eq!(post(two, session, &request(8, "ping", json!({}))).await.status(), StatusCode::NOT_FOUND);
    drop(replicas);
    drop(redis);
}
