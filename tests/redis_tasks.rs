//! Two HTTP server processes sharing their tasks through one real Redis
//! (`RedisTaskStore`, with the `RedisBus`), as behind a load balancer that
//! routes every request anywhere: a task created on one replica is read,
//! answered and cancelled on the other, and reaches its handler each time;
//! a task whose replica was killed reads `failed` once its lease lapsed.
//! Every message read back is checked (`mcp_tests::task_schema`).
//!
//! Needs `redis-server` on the PATH, as `redis_bus` does.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_tests::http_wire::{STUCK, answer, post, stateless_meta};
use mcp_tests::task_schema::assert_valid_task_message;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

const TASKS: &str = "io.modelcontextprotocol/tasks";

struct Replica {
    child: Child,
    addr: SocketAddr,
}

impl Replica {
    async fn spawn(url: &str, prefix: &str) -> Replica {
        let mut command = Command::new(env!("CARGO_BIN_EXE_http_replica"));
        command.args([url, prefix, "0"]);
        let served = mcp_tests::process::serve(command).await;
        Replica { child: served.child, addr: served.addr }
    }

    /// Sends a 2026-07-28 request from a client declaring the tasks
    /// extension and form elicitation; returns its checked answer.
    async fn send(&self, id: i64, method: &str, mut params: Value) -> Value {
        params["_meta"] = stateless_meta(json!({"elicitation": {"form": {}}, "extensions": {TASKS: {}}}));
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply =
            answer(post(self.addr, None, &request).await, &json!(id), |m| assert_valid_task_message(method, m)).await;
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    async fn create(&self, id: i64, tool: &str) -> String {
        let created = self.send(id, "tools/call", json!({"name": tool, "arguments": {}})).await;
        assert_eq!(created["resultType"], "task", "{created}");
        created["taskId"].as_str().expect("a task id").to_owned()
    }

    async fn get(&self, id: i64, task_id: &str) -> Value {
        self.send(id, "tasks/get", json!({"taskId": task_id})).await
    }

    /// Polls the task here until `done` says so.
    async fn until(&self, task_id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let poll = async {
            for id in 1000.. {
                let task = self.get(id, task_id).await;
                if done(&task) {
                    return task;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            unreachable!()
        };
        tokio::time::timeout(STUCK, poll).await.expect("the task got there in time")
    }
}

#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test]
async fn a_task_run_by_one_replica_is_read_answered_and_cancelled_on_the_other() {
    let redis = mcp_tests::redis::start().await;
    let (one, two) = (Replica::spawn(&redis.url, "mcp:tasks").await, Replica::spawn(&redis.url, "mcp:tasks").await);

    // Created on one, read on the other.
    let slow = one.create(1, "slow").await;
    let task = two.get(2, &slow).await;
    assert_eq!(task["status"], "working", "{task}");

    // Cancelled on the other: it reads cancelled at once, and the handler
    // on the first hears its token.
    let acknowledged = two.send(3, "tasks/cancel", json!({"taskId": slow})).await;
    assert_eq!(acknowledged["resultType"], "complete", "{acknowledged}");
    assert_eq!(two.get(4, &slow).await["status"], "cancelled");
    assert_eq!(one.get(5, &slow).await["status"], "cancelled");
    let heard = async {
        loop {
            let count = one.send(6, "tools/call", json!({"name": "cancelled_here", "arguments": {}})).await;
            if count["content"][0]["text"] == "1" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(STUCK, heard).await.expect("the handler on the first replica heard the cancel");

    // Input asked by the handler on one, answered on the other.
    let ask = one.create(10, "ask").await;
    let waiting = two.until(&ask, |t| t["status"] == "input_required").await;
    let (key, _) = waiting["inputRequests"].as_object().and_then(|r| r.iter().next()).expect("a request");
    let answers = json!({key: {"action": "accept", "content": {"name": "Ada"}}});
    two.send(11, "tasks/update", json!({"taskId": ask, "inputResponses": answers})).await;
    let done = two.until(&ask, |t| t["status"] != "input_required" && t["status"] != "working").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada!");

    // The first replica dies while it runs a task: the other, which read
    // it working, reads it failed once the lease (one second) lapsed, never
    // working forever. (Whether a read right after the kill still falls
    // within the lease depends on how busy the machine is, so the working
    // state is read before.)
    let orphan = one.create(20, "slow").await;
    assert_eq!(two.get(21, &orphan).await["status"], "working");
    let Replica { mut child, .. } = one;
    child.start_kill().expect("SIGKILL");
    child.wait().await.expect("gone");
    let failed = two.until(&orphan, |t| t["status"] != "working").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stopped before it finished"), "{message}");
    drop(redis);
}

/// One store under its limits: two tasks of a quota, five in all.
async fn one_caller_cannot_fill_the_store(url: &str) {
    use mcp_runtime::redis::RedisTaskStore;
    use mcp_runtime::tasks::{TaskRecord, TaskStore};
    let prefix = format!("quota-{}", std::process::id());
    let store =
        RedisTaskStore::connect(url, &prefix).await.expect("connected").with_max_tasks(5).with_max_tasks_per_quota(2);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("now").as_millis() as u64;
    let task = |id: &str, quota: &str| TaskRecord::new(id, None, now, Some(60_000), None).in_quota(Some(quota.into()));
    store.create(task("a1", "address:192.0.2.1")).await.expect("one");
    store.create(task("a2", "address:192.0.2.1")).await.expect("two");
    let refused = store.create(task("a3", "address:192.0.2.1")).await.expect_err("a third of one caller");
    assert!(refused.0.contains("maximum of 2"), "{refused}");
    store.create(task("b1", "address:192.0.2.2")).await.expect("another caller has room");
    // A task that expires makes room as it does.
    let short = TaskRecord::new("c1", None, now, Some(300), None).in_quota(Some("c".into()));
    store.create(short).await.expect("a short one");
    let refused = store.create(task("c2", "c")).await;
    assert!(refused.is_ok(), "the quota holds one: {refused:?}");
    store.create(TaskRecord::new("n1", None, now, None, None)).await.expect_err("five in all");
    tokio::time::sleep(Duration::from_millis(400)).await;
    store.create(TaskRecord::new("n1", None, now, None, None)).await.expect("the expired one made room");
    // A task deleted gives its place back.
    store.delete("a1").await.expect("deleted");
    store.create(task("a3", "address:192.0.2.1")).await.expect("room again");
}

#[tokio::test]
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
async fn one_caller_cannot_fill_a_redis_task_store_for_everyone() {
    let redis = mcp_tests::redis::start().await;
    one_caller_cannot_fill_the_store(&redis.url).await;
}

#[tokio::test]
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[cfg_attr(no_redis_cli, ignore = "redis-cli is not on PATH: apt-get install redis-tools")]
async fn one_caller_cannot_fill_a_redis_cluster_task_store_for_everyone() {
    let cluster = mcp_tests::redis_cluster::Cluster::start().await;
    one_caller_cannot_fill_the_store(&cluster.url()).await;
}
