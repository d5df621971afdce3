//! A server keeping its tasks in an SQLite file (`SqliteTaskStore`),
//! killed mid-task and started again on the same file: the task that
//! finished still reads `completed` with its result, and the one it was
//! running reads `failed` with a clear error once its lease lapsed.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use mcp_tests::http_wire::{STUCK, answer, post, stateless_meta};
use mcp_tests::task_schema::assert_valid_task_message;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

async fn start(database: &Path) -> (Child, SocketAddr) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sqlite_tasks"));
    command.arg(database).arg("0").stdout(Stdio::null());
    let served = mcp_tests::process::serve(command).await;
    (served.child, served.addr)
}

async fn send(addr: SocketAddr, id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = stateless_meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let reply = answer(post(addr, None, &request).await, &json!(id), |m| assert_valid_task_message(method, m)).await;
    assert!(reply.get("error").is_none(), "{method}: {reply}");
    reply["result"].clone()
}

async fn until(addr: SocketAddr, task_id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let poll = async {
        for id in 100.. {
            let task = send(addr, id, "tasks/get", json!({"taskId": task_id})).await;
            if done(&task) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        unreachable!()
    };
    tokio::time::timeout(STUCK, poll).await.expect("the task got there in time")
}

#[tokio::test]
async fn tasks_outlive_a_restart_and_the_interrupted_one_reads_failed() {
    let dir = std::env::temp_dir().join(format!("mcp-sqlite-tasks-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let database = dir.join("tasks.db");
    let _ = std::fs::remove_file(&database);

    let (mut first, addr) = start(&database).await;
    let quick = send(addr, 1, "tools/call", json!({"name": "quick", "arguments": {}})).await;
    let quick = quick["taskId"].as_str().expect("a task").to_owned();
    until(addr, &quick, |t| t["status"] == "completed").await;
    let slow = send(addr, 2, "tools/call", json!({"name": "slow", "arguments": {}})).await;
    let slow = slow["taskId"].as_str().expect("a task").to_owned();
    assert_eq!(send(addr, 3, "tasks/get", json!({"taskId": slow})).await["status"], "working");
    first.start_kill().expect("SIGKILL");
    first.wait().await.expect("gone");

    let (_second, addr) = start(&database).await;
    let done = send(addr, 4, "tasks/get", json!({"taskId": quick})).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "quick and done");
    let interrupted = until(addr, &slow, |t| t["status"] != "working").await;
    assert_eq!(interrupted["status"], "failed", "{interrupted}");
    assert_eq!(interrupted["error"]["code"], -32603);
    let message = interrupted["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stopped before it finished"), "{message}");
    let _ = std::fs::remove_dir_all(&dir);
}
