//! Three replicas behind HAProxy, configured as CI and the README's
//! deployment guide configure it (`.ci/haproxy.cfg`: round robin per
//! request, no stickiness, readiness probes), sharing one Redis and one
//! `requestState` key. One replica is killed with SIGKILL while clients hold
//! listen streams, a 2025-era session with its standalone stream, an
//! unfinished multi-round-trip call and a running task through the
//! balancer; then:
//!
//! - new requests keep being answered, by the other replicas;
//! - listen streams on the lost replica end, the others go on, and a client
//!   can listen again;
//! - the 2025-era session continues on the others, and its standalone
//!   stream can be opened again;
//! - the round trip begun before the loss completes after it, wherever the
//!   balancer sends it: nothing the lost replica answered is lost;
//! - the task the lost replica ran reads `failed`, with an error saying
//!   why, once its lease (one second in `http_replica`) lapsed.
//!
//! Needs `redis-server` and `haproxy` on the PATH (`.ci/install.sh`
//! installs both); without them the test is reported as ignored, except
//! under `CI=true`, where it fails.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use http::{Method, StatusCode};
use hyper::body::Incoming;
use mcp_tests::http_wire::{Events, STUCK, answer, post, send, stateless_meta};
use mcp_tests::process::serve;
use mcp_tests::session_schema::assert_valid_session;
use mcp_tests::task_schema::assert_valid_task_message;
use mcp_tests::wire_schema::assert_valid_message;
use serde_json::{Value, json};
use tokio::process::Command;

const KEY: &str = "a secret the three replicas share, 32 bytes or more";

/// Which replica answered (HAProxy's `X-Mcp-Replica`); none means HAProxy
/// answered by itself, with an error.
fn replica(response: &http::Response<Incoming>) -> String {
    match response.headers().get("x-mcp-replica") {
        Some(name) => name.to_str().expect("ASCII").to_owned(),
        None => panic!("no replica answered: HAProxy's own {} response", response.status()),
    }
}

fn stateless(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = stateless_meta(json!({"elicitation": {"form": {}}}));
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A request of a client declaring the tasks extension.
fn with_tasks(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = stateless_meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The result of a tasks-extension request through the balancer.
async fn task_answer(balancer: SocketAddr, id: i64, method: &str, params: Value) -> (String, Value) {
    let response = post(balancer, None, &with_tasks(id, method, params)).await;
    let runner = replica(&response);
    let reply = answer(response, &json!(id), |m| assert_valid_task_message(method, m)).await;
    assert!(reply.get("error").is_none(), "{method}: {reply}");
    (runner, reply["result"].clone())
}

fn in_session(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn stateless_answer(response: http::Response<Incoming>, method: &str, id: i64) -> Value {
    answer(response, &json!(id), |message| assert_valid_message(method, message)).await
}

/// A listen stream for changes of `mem://doc`, acknowledged; and the
/// replica holding it.
async fn listen(balancer: SocketAddr, id: i64) -> (Events, String) {
    let request =
        stateless(id, "subscriptions/listen", json!({"notifications": {"resourceSubscriptions": ["mem://doc"]}}));
    let response = post(balancer, None, &request).await;
    assert_eq!(response.status(), StatusCode::OK);
    let holder = replica(&response);
    let mut events = Events::of(response);
    let ack = events.next().await.expect("the acknowledgement");
    assert_valid_message("subscriptions/listen", &ack);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    (events, holder)
}

/// The next `mem://doc` update on a listen stream.
async fn updated(events: &mut Events) {
    let message = events.next().await.expect("an update");
    assert_valid_message("subscriptions/listen", &message);
    assert_eq!(message["method"], "notifications/resources/updated", "{message}");
    assert_eq!(message["params"]["uri"], "mem://doc");
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[cfg_attr(no_haproxy, ignore = "haproxy is not on PATH: apt-get install haproxy")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_run_leaves_every_promise_to_the_others() {
    let redis = mcp_tests::redis::start().await;
    let mut replicas = Vec::new();
    for _ in 0..3 {
        let mut command = Command::new(env!("CARGO_BIN_EXE_http_replica"));
        command.args([&redis.url, "mcp:loss", "0", KEY]);
        replicas.push(serve(command).await);
    }
    let haproxy = mcp_tests::haproxy::start([replicas[0].addr, replicas[1].addr, replicas[2].addr]).await;
    let balancer = haproxy.addr;

    // Round robin without stickiness: consecutive requests reach all three.
    let mut seen = BTreeSet::new();
    for id in 0..6 {
        let response = post(balancer, None, &stateless(id, "server/discover", json!({}))).await;
        seen.insert(replica(&response));
        stateless_answer(response, "server/discover", id).await;
    }
    assert_eq!(seen.len(), 3, "every replica serves: {seen:?}");

    // What clients hold when a replica goes: a listen stream on each replica,
    let mut streams = Vec::new();
    for id in 10..13 {
        streams.push(listen(balancer, id).await);
    }
    let holders: BTreeSet<&str> = streams.iter().map(|(_, holder)| holder.as_str()).collect();
    assert_eq!(holders.len(), 3, "one listen stream per replica: {holders:?}");
    // a 2025-era session with its standalone stream,
    let init = in_session(
        20,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    let response = post(balancer, None, &init).await;
    let session = response.headers()["mcp-session-id"].to_str().expect("ASCII").to_owned();
    answer(response, &json!(20), |m| assert_valid_session("initialize", m)).await;
    let session = Some(session.as_str());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(balancer, session, &initialized).await.status(), StatusCode::ACCEPTED);
    let get_stream = [("accept", "text/event-stream")];
    let standalone = send(balancer, Method::GET, session, None, &get_stream).await;
    assert_eq!(standalone.status(), StatusCode::OK);
    let standalone_holder = replica(&standalone);
    let mut standalone = Events::of(standalone);
    // and a call waiting for the client's answer, its requestState sealed by one replica.
    let response = post(balancer, None, &stateless(30, "tools/call", json!({"name": "ask", "arguments": {}}))).await;
    let asked_on = replica(&response);
    let asked = stateless_answer(response, "tools/call", 30).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let (key, _) = asked["result"]["inputRequests"].as_object().and_then(|r| r.iter().next()).expect("a request");
    let state = asked["result"]["requestState"].clone();
    // And a task running on the replica to be lost (round robin brings a
    // creation there within three).
    let mut orphan = None;
    for id in 31..37 {
        let (runner, created) = task_answer(balancer, id, "tools/call", json!({"name": "slow", "arguments": {}})).await;
        if runner == asked_on {
            orphan = created["taskId"].as_str().map(str::to_owned);
            break;
        }
    }
    let orphan = orphan.expect("a task created on the replica to be lost");

    // The replica that sealed that state is the one lost.
    let lost = asked_on;
    let index = ["replica1", "replica2", "replica3"].iter().position(|name| *name == lost).expect("a known replica");
    replicas[index].child.start_kill().expect("SIGKILL");
    replicas[index].child.wait().await.expect("gone");

    // New requests are answered, never by the lost replica.
    for id in 40..49 {
        let response =
            post(balancer, None, &stateless(id, "tools/call", json!({"name": "touch_doc", "arguments": {}}))).await;
        assert_ne!(replica(&response), lost);
        let done = stateless_answer(response, "tools/call", id).await;
        assert_eq!(done["result"]["content"][0]["text"], "touched", "{done}");
    }

    // The lost replica's listen stream ended; the others heard the changes.
    for (events, holder) in &mut streams {
        if *holder == lost {
            while let Some(message) = events.next().await {
                assert_eq!(
                    message["method"], "notifications/resources/updated",
                    "only updates before the end: {message}"
                );
            }
        } else {
            updated(events).await;
        }
    }
    // Listening again works, and the new stream hears of a change made anywhere.
    let (mut again, holder) = listen(balancer, 50).await;
    assert_ne!(holder, lost);
    let touch = stateless(51, "tools/call", json!({"name": "touch_doc", "arguments": {}}));
    stateless_answer(post(balancer, None, &touch).await, "tools/call", 51).await;
    tokio::time::timeout(STUCK, updated(&mut again)).await.expect("the update in time");

    // The session goes on, on whichever replica is asked.
    for id in 60..64 {
        let response = post(balancer, session, &in_session(id, "tools/list", json!({}))).await;
        let tools = answer(response, &json!(id), |m| assert_valid_session("tools/list", m)).await;
        assert!(tools["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{tools}");
    }
    if standalone_holder == lost {
        assert!(standalone.next().await.is_none(), "the lost replica's standalone stream ended");
    }
    let reopened = send(balancer, Method::GET, session, None, &get_stream).await;
    assert_eq!(reopened.status(), StatusCode::OK, "the standalone stream opens again");
    assert_ne!(replica(&reopened), lost);

    // The round trip the lost replica began completes elsewhere.
    let answers = json!({key: {"action": "accept", "content": {"name": "Ada"}}});
    let retry = stateless(
        70,
        "tools/call",
        json!({"name": "ask", "arguments": {}, "inputResponses": answers, "requestState": state}),
    );
    let response = post(balancer, None, &retry).await;
    assert_ne!(replica(&response), lost);
    let done = stateless_answer(response, "tools/call", 70).await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada!", "{done}");

    // The task the lost replica ran reads failed, wherever it is asked,
    // once the lost replica's lease on it lapsed: never working forever.
    let poll = async {
        for id in 80.. {
            let (_, task) = task_answer(balancer, id, "tasks/get", json!({"taskId": orphan})).await;
            if task["status"] != "working" {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        unreachable!()
    };
    let task = tokio::time::timeout(STUCK, poll).await.expect("the task failed in time");
    assert_eq!(task["status"], "failed", "{task}");
    assert_eq!(task["error"]["code"], -32603);
    let message = task["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stopped before it finished"), "{message}");
    drop(redis);
}
