//! Two replicas sharing change events, 2025-era sessions and tasks through
//! one real `redis-server`, which is killed with SIGKILL while clients
//! hold a listen stream and a session, and started again on the same port
//! (empty: it kept nothing). Throughout:
//!
//! - calls that need no Redis keep being answered, on both replicas;
//! - the open listen stream hears the changes of its own replica during
//!   the outage, and afterwards is told that what it follows may have
//!   changed (the changes the other replica made meanwhile never reached
//!   it): it is never left silently behind;
//! - a new listen stream after the restart hears the other replica's
//!   changes again;
//! - the session's standalone stream, subscribed to the resource, is told
//!   the same way;
//! - the session's requests are answered as the protocol allows, never
//!   with a 500 or a hang: during the outage 503, an error the client can
//!   retry, after the restart 404 (the session is gone with Redis's data),
//!   and a new session works;
//! - task calls during the outage get a JSON-RPC error saying the store is
//!   out of reach; after the restart tasks are created and read again;
//! - the replicas try to reconnect with a growing delay: over a quiet
//!   stretch of the outage they log a handful of attempts and spend little
//!   CPU, where a retry loop without delay would log thousands and spin a
//!   core.
//!
//! Needs `redis-server` on the PATH, as `redis_bus` does.

use std::net::SocketAddr;
use std::time::Duration;

use http::{Method, StatusCode};
use http_body_util::BodyExt as _;
use mcp_tests::http_wire::{Events, STUCK, answer, post, send, stateless_meta};
use mcp_tests::process::{Log, Served, serve};
use mcp_tests::session_schema::assert_valid_session;
use mcp_tests::task_schema::assert_valid_task_message;
use mcp_tests::wire_schema::assert_valid_message;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

struct Replica {
    child: Child,
    addr: SocketAddr,
    log: Log,
}

impl Replica {
    async fn spawn(url: &str) -> Replica {
        let mut command = Command::new(env!("CARGO_BIN_EXE_http_replica"));
        command.args([url, "mcp:restart", "0"]);
        let Served { child, addr, log } = serve(command).await;
        Replica { child, addr, log }
    }

    /// A 2026-07-28 request from a client declaring the tasks extension;
    /// its checked answer, error or not.
    async fn stateless(&self, id: i64, method: &str, mut params: Value) -> Value {
        params["_meta"] = stateless_meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = post(self.addr, None, &request).await;
        answer(response, &json!(id), |m| assert_valid_task_message(method, m)).await
    }

    /// `touch_doc`, which announces a change of `mem://doc`.
    async fn touch(&self, id: i64) {
        let done = self.stateless(id, "tools/call", json!({"name": "touch_doc", "arguments": {}})).await;
        assert_eq!(done["result"]["content"][0]["text"], "touched", "{done}");
    }

    /// A listen stream for changes of `mem://doc`, acknowledged.
    async fn listen(&self, id: i64) -> Events {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
            "_meta": stateless_meta(json!({})), "notifications": {"resourceSubscriptions": ["mem://doc"]}}});
        let response = post(self.addr, None, &request).await;
        assert_eq!(response.status(), StatusCode::OK);
        let mut events = Events::of(response);
        let ack = events.next().await.expect("the acknowledgement");
        assert_valid_message("subscriptions/listen", &ack);
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        events
    }

    /// Opens a 2025-era session; its id.
    async fn initialize(&self, id: i64) -> String {
        let init = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
        let response = post(self.addr, None, &init).await;
        let session = response.headers()["mcp-session-id"].to_str().expect("ASCII").to_owned();
        let reply = answer(response, &json!(id), |m| assert_valid_session("initialize", m)).await;
        assert!(reply.get("error").is_none(), "{reply}");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(post(self.addr, Some(&session), &initialized).await.status(), StatusCode::ACCEPTED);
        session
    }

    /// `resources/subscribe` to `mem://doc` in `session`, then its
    /// standalone stream.
    async fn subscribe(&self, session: &str, id: i64) -> Events {
        let request =
            json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": "mem://doc"}});
        let response = post(self.addr, Some(session), &request).await;
        let reply = answer(response, &json!(id), |m| assert_valid_session("resources/subscribe", m)).await;
        assert!(reply.get("error").is_none(), "{reply}");
        let accept = [("accept", "text/event-stream")];
        let response = send(self.addr, Method::GET, Some(session), None, &accept).await;
        assert_eq!(response.status(), StatusCode::OK);
        Events::of(response)
    }

    /// `tools/list` in `session`: the status, and the answer (a JSON-RPC
    /// response without id when the status is not 200).
    async fn session_list(&self, session: &str, id: i64) -> (StatusCode, Value) {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}});
        let response = post(self.addr, Some(session), &request).await;
        match response.status() {
            StatusCode::OK => {
                let status = response.status();
                (status, answer(response, &json!(id), |m| assert_valid_session("tools/list", m)).await)
            }
            status => {
                let body = response.into_body().collect().await.expect("a body").to_bytes();
                let reply: Value = serde_json::from_slice(&body).expect("a JSON-RPC error");
                (status, reply)
            }
        }
    }

    /// User plus system CPU time of the process so far, in clock ticks.
    fn cpu_ticks(&self) -> u64 {
        let pid = self.child.id().expect("running");
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/<pid>/stat");
        let fields: Vec<&str> = stat.rsplit_once(')').expect("a stat line").1.split_whitespace().collect();
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
    }
}

/// The next message of a listen stream: an update of `mem://doc`.
async fn updated(events: &mut Events) {
    let message = events.next().await.expect("an update");
    assert_valid_message("subscriptions/listen", &message);
    assert_eq!(message["method"], "notifications/resources/updated", "{message}");
    assert_eq!(message["params"]["uri"], "mem://doc");
}

/// Reads a session's standalone stream up to an update of `mem://doc`
/// (true), past any `*/list_changed`, or to its end (false).
async fn session_updated(events: &mut Events) -> bool {
    while let Some(message) = events.next().await {
        let method = message["method"].as_str().unwrap_or_default();
        if method.ends_with("/list_changed") {
            continue;
        }
        assert_eq!(method, "notifications/resources/updated", "{message}");
        assert_eq!(message["params"]["uri"], "mem://doc", "{message}");
        return true;
    }
    false
}

/// What the replicas log at each attempt to get their subscriptions back.
const RETRIES: [&str; 2] = ["could not reconnect to Redis", "could not resubscribe to Redis"];

fn retries(replicas: &[&Replica]) -> usize {
    replicas.iter().map(|r| RETRIES.iter().map(|text| r.log.count(text)).sum::<usize>()).sum()
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restart_mid_run_breaks_no_promise() {
    let redis = mcp_tests::redis::start().await;
    let port = redis.port;
    let (a, b) = (Replica::spawn(&redis.url).await, Replica::spawn(&redis.url).await);

    // Before the outage: a change on b reaches a listen stream on a, and
    // the standalone stream of a session on a subscribed to the resource;
    // a task on b.
    let mut stream = a.listen(1).await;
    let session = a.initialize(3).await;
    let (status, _) = a.session_list(&session, 4).await;
    assert_eq!(status, StatusCode::OK);
    let mut standalone = a.subscribe(&session, 6).await;
    b.touch(2).await;
    tokio::time::timeout(STUCK, updated(&mut stream)).await.expect("the update in time");
    assert!(session_updated(&mut standalone).await, "the session heard b's change");
    let created = b.stateless(5, "tools/call", json!({"name": "ask", "arguments": {}})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");

    // Redis dies.
    redis.kill().await;

    // A quiet stretch of the outage: the subscriptions retry with a
    // growing delay (0.1 s doubling to 5 s: at most 6 attempts each in
    // 4 s, two subscriptions per replica), and the processes stay idle.
    let (retries_before, ticks_before) = (retries(&[&a, &b]), a.cpu_ticks() + b.cpu_ticks());
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (attempts, ticks) = (retries(&[&a, &b]) - retries_before, a.cpu_ticks() + b.cpu_ticks() - ticks_before);
    eprintln!("during 4 s of outage: {attempts} attempts logged, {ticks} ticks of CPU");
    assert!((1..=30).contains(&attempts), "{attempts} reconnection attempts in 4 s");
    assert!(ticks < 100, "{ticks} clock ticks of CPU in 4 s of outage: a retry loop spins");

    // Calls needing no Redis are answered by both.
    for (replica, id) in [(&a, 10), (&b, 11)] {
        let discovered = replica.stateless(id, "server/discover", json!({})).await;
        assert!(discovered.get("result").is_some(), "{discovered}");
    }
    // The stream hears its own replica's changes; the other's are lost on the way.
    a.touch(12).await;
    tokio::time::timeout(STUCK, updated(&mut stream)).await.expect("a's own update in time");
    assert!(session_updated(&mut standalone).await, "the session heard a's own change");
    b.touch(13).await;
    // The session's requests get an answer the client can act on: 503, to
    // retry later; never a 500, never a hang (`post` and `answer` time out).
    let (status, reply) = a.session_list(&session, 14).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "tools/list in the session during the outage: {reply}");
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    // Tasks say their store is out of reach.
    let store_failed = |refused: &Value| {
        refused["error"]["code"] == -32603
            && refused["error"]["message"].as_str().is_some_and(|m| m.starts_with("The task store failed"))
    };
    let refused = b.stateless(15, "tools/call", json!({"name": "ask", "arguments": {}})).await;
    assert!(store_failed(&refused), "a task created without its store: {refused}");
    let refused = a.stateless(16, "tasks/get", json!({"taskId": "anything"})).await;
    assert!(store_failed(&refused), "a task read without its store: {refused}");

    // Redis comes back, empty.
    let redis = mcp_tests::redis::start_on(port).await;

    // The open stream is told that mem://doc may have changed (b's change
    // never reached it), once a's subscription is back.
    tokio::time::timeout(STUCK, updated(&mut stream)).await.expect("told in time");
    // So is the session's standalone stream: it was open before Redis lost
    // the session, and its replica holds it.
    let told = tokio::time::timeout(STUCK, session_updated(&mut standalone)).await.expect("told in time");
    assert!(told, "the session's standalone stream ended instead of being told of the missed change");
    // A new stream on a hears b's changes again, once both reconnected
    // (within the longest retry delay).
    let mut again = a.listen(20).await;
    let heard = async {
        for id in 21.. {
            b.touch(id).await;
            if tokio::time::timeout(Duration::from_millis(500), updated(&mut again)).await.is_ok() {
                return;
            }
        }
    };
    tokio::time::timeout(STUCK, heard).await.expect("b's change reached a's new stream");

    // The session went with Redis's data: 404, and a new one works.
    let (status, reply) = a.session_list(&session, 40).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "tools/list after the restart: {reply}");
    assert_eq!(reply["error"]["code"], -32001, "{reply}");
    let fresh = a.initialize(41).await;
    let (status, tools) = a.session_list(&fresh, 42).await;
    assert_eq!(status, StatusCode::OK, "{tools:?}");

    // Tasks work again, created on one replica and read on the other.
    let created = b.stateless(43, "tools/call", json!({"name": "ask", "arguments": {}})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().expect("a task id");
    let read = a.stateless(44, "tasks/get", json!({"taskId": task_id})).await;
    assert!(read["result"]["status"].is_string(), "{read}");
    drop(redis);
}
