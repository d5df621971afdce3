//! Three replicas behind HAProxy sharing a real Redis Cluster (three
//! masters, three replicas, on loopback) by a `redis+cluster://` URL. While
//! calls go on through the balancer, each of the three original masters is
//! killed with SIGKILL in turn, and the cluster promotes its replica, so
//! that every hash slot, and with it every key and channel the replicas
//! use, goes through a failover. After each one:
//!
//! - the calls through the balancer never failed (they need no Redis, and
//!   the replicas stay ready: readiness asks any live node), and went on
//!   during the failover: at least one a second was answered between the
//!   kill and the cluster's health, which takes at least its node timeout
//!   (1 s), while such a call takes milliseconds;
//! - a listen stream is told of the gap (an update of what it follows,
//!   with no change made), and then hears a change made on another replica
//!   again: the sharded subscription followed the channel to its new
//!   master;
//! - the 2025-era session goes on (a master that dies may take the writes
//!   of its last milliseconds with it, since replication is asynchronous,
//!   and a session lost so would end with the documented 404; this one was
//!   written seconds before, so it must survive), and its standalone stream
//!   is told of the gap too;
//! - the running task reads its true state, `working`.
//!
//! At the end the task is cancelled, which writes to the store again.
//!
//! Needs `redis-server`, `redis-cli` and `haproxy` on the PATH
//! (`.ci/install.sh` installs them); without them the test is reported as
//! ignored, except under `CI=true`, where it fails.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use http::{Method, StatusCode};
use hyper::body::Incoming;
use mcp_tests::http_wire::{Events, STUCK, answer, post, send, stateless_meta};
use mcp_tests::process::serve;
use mcp_tests::redis_cluster::{Cluster, FAILOVER};
use mcp_tests::session_schema::assert_valid_session;
use mcp_tests::task_schema::assert_valid_task_message;
use mcp_tests::wire_schema::assert_valid_message;
use serde_json::{Value, json};
use tokio::process::Command;

const KEY: &str = "a secret the three replicas share, 32 bytes or more";

fn stateless(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = stateless_meta(json!({}));
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn in_session(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The result of a tasks-extension request through the balancer.
async fn task_answer(balancer: SocketAddr, id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = stateless_meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let response = post(balancer, None, &request).await;
    let reply = answer(response, &json!(id), |m| assert_valid_task_message(method, m)).await;
    assert!(reply.get("error").is_none(), "{method}: {reply}");
    reply["result"].clone()
}

async fn stateless_answer(response: http::Response<Incoming>, method: &str, id: i64) -> Value {
    answer(response, &json!(id), |message| assert_valid_message(method, message)).await
}

/// The next message of a listen stream, within [`FAILOVER`]: an update of
/// `mem://doc`.
async fn updated(events: &mut Events, what: &str) {
    let message = tokio::time::timeout(FAILOVER, events.next()).await.unwrap_or_else(|_| panic!("{what} in time"));
    let message = message.unwrap_or_else(|| panic!("{what}: the stream ended"));
    assert_valid_message("subscriptions/listen", &message);
    assert_eq!(message["method"], "notifications/resources/updated", "{what}: {message}");
    assert_eq!(message["params"]["uri"], "mem://doc");
}

/// Reads a session's standalone stream, past any `*/list_changed`, up to
/// an update of `mem://doc`.
async fn session_updated(events: &mut Events, what: &str) {
    let read = async {
        while let Some(message) = events.next().await {
            let method = message["method"].as_str().unwrap_or_default();
            if method.ends_with("/list_changed") {
                continue;
            }
            assert_eq!(method, "notifications/resources/updated", "{what}: {message}");
            return;
        }
        panic!("{what}: the standalone stream ended");
    };
    tokio::time::timeout(FAILOVER, read).await.unwrap_or_else(|_| panic!("{what} in time"));
}

/// Calls a tool that needs no Redis through the balancer, one after the
/// other, until `stop`; panics at the first that fails.
async fn keep_calling(balancer: SocketAddr, stop: Arc<AtomicBool>, answered: Arc<AtomicU64>) {
    let mut id = 1_000_000;
    while !stop.load(Ordering::SeqCst) {
        id += 1;
        let request = stateless(id, "tools/call", json!({"name": "cancelled_here", "arguments": {}}));
        let response = post(balancer, None, &request).await;
        assert_eq!(response.status(), StatusCode::OK, "a call during a failover");
        let reply = stateless_answer(response, "tools/call", id).await;
        assert!(reply["result"]["content"].is_array(), "a call during a failover: {reply}");
        answered.fetch_add(1, Ordering::SeqCst);
    }
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[cfg_attr(no_redis_cli, ignore = "redis-cli is not on PATH: apt-get install redis-tools")]
#[cfg_attr(no_haproxy, ignore = "haproxy is not on PATH: apt-get install haproxy")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_master_of_the_cluster_fails_over_under_load() {
    let mut cluster = Cluster::start().await;
    let url = cluster.url();
    let mut replicas = Vec::new();
    for _ in 0..3 {
        let mut command = Command::new(env!("CARGO_BIN_EXE_http_replica"));
        // A lease longer than a failover: its renewals fail while the
        // task's master is away.
        command.args([&url, "mcp:cluster", "0", KEY]).env("TASK_LEASE_SECS", "30");
        replicas.push(serve(command).await);
    }
    let haproxy = mcp_tests::haproxy::start([replicas[0].addr, replicas[1].addr, replicas[2].addr]).await;
    let balancer = haproxy.addr;

    // A listen stream on the first replica; changes are made on the second.
    let listen =
        stateless(1, "subscriptions/listen", json!({"notifications": {"resourceSubscriptions": ["mem://doc"]}}));
    let response = post(replicas[0].addr, None, &listen).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = Events::of(response);
    let ack = stream.next().await.expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    let toucher = replicas[1].addr;
    let touch = |id: i64| async move {
        let request = stateless(id, "tools/call", json!({"name": "touch_doc", "arguments": {}}));
        let done = stateless_answer(post(toucher, None, &request).await, "tools/call", id).await;
        assert_eq!(done["result"]["content"][0]["text"], "touched", "{done}");
    };
    touch(2).await;
    updated(&mut stream, "a change on another replica").await;

    // A 2025-era session subscribed to the resource, with its standalone stream.
    let init = in_session(
        3,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    let response = post(balancer, None, &init).await;
    let session = response.headers()["mcp-session-id"].to_str().expect("ASCII").to_owned();
    answer(response, &json!(3), |m| assert_valid_session("initialize", m)).await;
    let session = Some(session.as_str());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(balancer, session, &initialized).await.status(), StatusCode::ACCEPTED);
    let subscribe = in_session(4, "resources/subscribe", json!({"uri": "mem://doc"}));
    let reply = answer(post(balancer, session, &subscribe).await, &json!(4), |m| {
        assert_valid_session("resources/subscribe", m)
    })
    .await;
    assert!(reply.get("error").is_none(), "{reply}");
    let standalone = send(balancer, Method::GET, session, None, &[("accept", "text/event-stream")]).await;
    assert_eq!(standalone.status(), StatusCode::OK);
    let mut standalone = Events::of(standalone);

    // A task that runs until it is cancelled.
    let created = task_answer(balancer, 5, "tools/call", json!({"name": "slow", "arguments": {}})).await;
    assert_eq!(created["resultType"], "task", "{created}");
    let task = created["taskId"].as_str().expect("a task id").to_owned();

    // Calls through the balancer, all along.
    let (stop, answered) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
    let calling = tokio::spawn(keep_calling(balancer, stop.clone(), answered.clone()));

    let masters = cluster.masters().await;
    assert_eq!(masters.len(), 3, "three masters: {masters:?}");
    for (round, master) in masters.into_iter().enumerate() {
        let id = 100 * (round as i64 + 1);
        let (before, began) = (answered.load(Ordering::SeqCst), std::time::Instant::now());
        cluster.kill(master).await;
        cluster.wait_until_healthy(Some(master)).await;
        let meanwhile = answered.load(Ordering::SeqCst) - before;
        eprintln!("master {master} failed over in {:?}; {meanwhile} calls answered meanwhile", began.elapsed());
        // The cluster takes at least its node timeout (1 s) to mark the master failed and
        // promote its replica; a call that needs no Redis takes milliseconds, even on a busy
        // machine (hundreds are answered each second here). Fewer than one a second means the
        // calls waited on the failover.
        let took = began.elapsed();
        assert!(
            meanwhile >= took.as_secs().max(1),
            "{meanwhile} calls answered during the {took:?} failover of {master}: fewer than one a second"
        );

        // Told of the gap with no change made, then hearing changes again.
        updated(&mut stream, "the notice of the gap").await;
        session_updated(&mut standalone, "the session's notice of the gap").await;
        touch(id).await;
        updated(&mut stream, "a change after the failover").await;
        session_updated(&mut standalone, "the session hearing a change after the failover").await;

        // The session goes on. A failover may take a master's last milliseconds of writes
        // with it, and a session lost so ends with the documented 404; this one was written
        // seconds before the first kill, long replicated, so a 404 here is a session lost.
        let response = post(balancer, session, &in_session(id + 1, "tools/list", json!({}))).await;
        match response.status() {
            StatusCode::OK => {
                let tools = answer(response, &json!(id + 1), |m| assert_valid_session("tools/list", m)).await;
                assert!(tools["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{tools}");
            }
            StatusCode::NOT_FOUND => panic!("the session, written long before, was lost in the failover of {master}"),
            status => panic!("a session request after a failover: {status}"),
        }

        // The task reads its true state.
        let read = task_answer(balancer, id + 2, "tasks/get", json!({"taskId": task})).await;
        assert_eq!(read["status"], "working", "{read}");
    }
    stop.store(true, Ordering::SeqCst);
    tokio::time::timeout(STUCK, calling).await.expect("the calls stop").expect("no call failed");
    assert!(answered.load(Ordering::SeqCst) > 0, "calls went on");

    // Written after the three failovers: the task cancelled, and read so.
    task_answer(balancer, 900, "tasks/cancel", json!({"taskId": task})).await;
    let read = task_answer(balancer, 901, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(read["status"], "cancelled", "{read}");
    drop(replicas);
}

/// The shared result cache's store, whose keys spread over the cluster's
/// slots: a result put through one connection is read through another,
/// and one never put is absent.
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[cfg_attr(no_redis_cli, ignore = "redis-cli is not on PATH: apt-get install redis-tools")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_result_store_spreads_over_the_cluster() {
    use mcp_runtime::middleware::ResultStore as _;
    use mcp_runtime::redis::RedisResultStore;

    let cluster = Cluster::start().await;
    let writer = RedisResultStore::connect(&cluster.url(), "mcp:cluster").await.expect("connected");
    let reader = RedisResultStore::connect(&cluster.url(), "mcp:cluster").await.expect("connected");
    let ttl = std::time::Duration::from_secs(60);
    for i in 0..32 {
        writer.put(&format!("call {i}"), format!("result {i}"), ttl).await.expect("stored");
    }
    for i in 0..32 {
        assert_eq!(reader.get(&format!("call {i}")).await.expect("read"), Some(format!("result {i}")));
    }
    assert_eq!(reader.get("never stored").await.expect("read"), None);
    // The keys landed on every master: the store is not held to one slot.
    assert_eq!(masters_holding_keys(&cluster).await, 3, "results on every master");
}

/// How many of the cluster's masters hold a key.
async fn masters_holding_keys(cluster: &Cluster) -> usize {
    let mut holding = 0;
    for master in cluster.masters().await {
        let keys = mcp_tests::redis_cluster::cli(master, &["dbsize"]).await;
        if keys.trim().parse::<u64>().unwrap_or(0) > 0 {
            holding += 1;
        }
    }
    holding
}

/// The DPoP replay store on the cluster: each caller's proof and count
/// share a hash slot, so its one script runs wherever the caller's slot
/// is; callers spread over the masters, and a replay is refused through
/// another connection.
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[cfg_attr(no_redis_cli, ignore = "redis-cli is not on PATH: apt-get install redis-tools")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_store_keeps_each_callers_proofs_in_its_slot() {
    use mcp_runtime::auth::ReplayStore as _;
    use mcp_runtime::redis::RedisReplayStore;

    let cluster = Cluster::start().await;
    let one = RedisReplayStore::connect(&cluster.url(), "mcp:cluster").await.expect("connected");
    let other = RedisReplayStore::connect(&cluster.url(), "mcp:cluster").await.expect("connected");
    let ttl = std::time::Duration::from_secs(60);
    for caller in 0..32 {
        let caller = format!("caller {caller}");
        assert_eq!(one.first_use(&caller, "proof", ttl).await, Ok(true), "{caller}");
        assert_eq!(other.first_use(&caller, "proof", ttl).await, Ok(false), "{caller}: a replay");
    }
    assert_eq!(masters_holding_keys(&cluster).await, 3, "callers on every master");
}
