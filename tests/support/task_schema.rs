//! Checks of the messages of the tasks extension (`io.modelcontextprotocol/tasks`).
//!
//! The official 2026-07-28 schema does not define the extension's types
//! (`CreateTaskResult`, the `tasks/get` result, `notifications/tasks`), so
//! what it does define is checked against it: the JSON-RPC envelope, the
//! `Result` base, the inlined `CallToolResult`, the `InputRequests` map and
//! the JSON-RPC `Error` of a failed task. The task fields themselves are
//! checked here against the extension's definition: their types, ISO 8601
//! timestamps, and which status carries which payload.

use serde_json::Value;

use crate::wire_schema::{check, check_error, check_message};

/// What a task object is part of.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    /// A `CreateTaskResult`: the task alone, no payload.
    Created,
    /// A `tasks/get` result or a `notifications/tasks`: with the payload of
    /// its status.
    Detailed,
}

fn is_timestamp(value: &Value) -> bool {
    let Some(text) = value.as_str() else { return false };
    let bytes = text.as_bytes();
    bytes.len() >= 20
        && [4, 7].iter().all(|&i| bytes[i] == b'-')
        && bytes[10] == b'T'
        && [13, 16].iter().all(|&i| bytes[i] == b':')
        && text.ends_with('Z')
}

fn check_task(task: &Value, shape: Shape) -> Result<(), String> {
    let fail = |why: &str| Err(format!("{why}: {task}"));
    if !task["taskId"].is_string() {
        return fail("a task needs a string taskId");
    }
    let status = task["status"].as_str().unwrap_or_default();
    if !["working", "input_required", "completed", "failed", "cancelled"].contains(&status) {
        return fail("a task's status is one of the five");
    }
    if !is_timestamp(&task["createdAt"]) || !is_timestamp(&task["lastUpdatedAt"]) {
        return fail("createdAt and lastUpdatedAt are ISO 8601 timestamps");
    }
    match task.get("ttlMs") {
        Some(Value::Null) => {}
        Some(ttl) if ttl.as_u64().is_some() => {}
        _ => return fail("ttlMs is required, an integer or null"),
    }
    if task.get("pollIntervalMs").is_some_and(|p| p.as_u64().is_none_or(|p| p == 0)) {
        return fail("pollIntervalMs is a positive integer");
    }
    for session in ["ttl", "pollInterval", "requestState", "task"] {
        if task.get(session).is_some() {
            return fail(&format!("a task has no `{session}`"));
        }
    }
    let has = |key: &str| task.get(key).is_some();
    let payloads = (has("inputRequests"), has("result"), has("error"));
    match (shape, status) {
        (Shape::Created, _) if payloads != (false, false, false) => fail("a created task carries no payload"),
        (Shape::Created, _) => Ok(()),
        (Shape::Detailed, "input_required") if payloads == (true, false, false) => {
            check("InputRequests", &task["inputRequests"])
        }
        (Shape::Detailed, "completed") if payloads == (false, true, false) => check("CallToolResult", &task["result"]),
        (Shape::Detailed, "failed") if payloads == (false, false, true) => check("Error", &task["error"]),
        (Shape::Detailed, "working" | "cancelled") if payloads == (false, false, false) => Ok(()),
        _ => fail("a detailed task carries exactly the payload of its status"),
    }
}

/// Checks what a server sends in answer to a request of `method` (its
/// response, or a notification), the tasks extension's messages included.
pub fn check_task_message(method: &str, message: &Value) -> Result<(), String> {
    if message.get("error").is_some() {
        return check_error(message);
    }
    if message["method"] == "notifications/tasks" {
        check("JSONRPCNotification", message)?;
        let mut task = message["params"].clone();
        if let Some(task) = task.as_object_mut() {
            task.remove("_meta");
        }
        return check_task(&task, Shape::Detailed);
    }
    if message.get("result").is_none() {
        return check_message(method, message);
    }
    let result = &message["result"];
    let (result_type, shape) = match method {
        "tools/call" if result["resultType"] == "task" => ("task", Some(Shape::Created)),
        "tasks/get" => ("complete", Some(Shape::Detailed)),
        "tasks/update" | "tasks/cancel" => ("complete", None),
        _ => return check_message(method, message),
    };
    check("JSONRPCResultResponse", message)?;
    check("Result", result)?;
    if result["resultType"] != result_type {
        return Err(format!("`{method}` answers with resultType {result_type:?}: {result}"));
    }
    let mut task = result.clone();
    if let Some(task) = task.as_object_mut() {
        task.remove("_meta");
        task.remove("resultType");
    }
    match shape {
        Some(shape) => check_task(&task, shape),
        None if task.as_object().is_some_and(|t| t.is_empty()) => Ok(()),
        None => Err(format!("`{method}` answers with an empty acknowledgement: {result}")),
    }
}

/// Panics unless [`check_task_message`] accepts `message`.
#[track_caller]
pub fn assert_valid_task_message(method: &str, message: &Value) {
    if let Err(report) = check_task_message(method, message) {
        panic!("{report}");
    }
}
