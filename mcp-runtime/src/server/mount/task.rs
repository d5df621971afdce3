//! A forwarded `tools/call` the remote answered with a task (the tasks
//! extension), followed to its end by this server's own task.
//!
//! A mounted tool of a remote that declares the extension may run as a
//! task here, [`input_first`](crate::tasks::TaskSupport::input_first) and
//! held within the call until the remote has answered: the remote alone
//! decides, call by call, and this server makes a task of the call exactly
//! when the remote does (after any `input_required` rounds, which pass
//! through as they came). Its handler then polls the remote's task at the
//! interval the remote asks for:
//!
//! - the remote's `statusMessage` becomes this task's;
//! - its questions (`input_required`) are asked of this server's client,
//!   under the same keys, and the answers sent on with `tasks/update`;
//! - its end is this task's: `completed` with its result, `failed` with its
//!   error;
//! - cancelling this task (or this server dropping it) cancels the remote's.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::forwarded::{ServedRequest, relay, relayed};
use crate::client::{Client, Error};
use crate::handler::outcome::RpcError;
use crate::protocol::{ClientCapabilities, ErrorObject};

/// How often the remote's task is read when it names no interval.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The bounds kept whatever interval the remote names.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(5));

/// Follows the remote task `created` (a `CreateTaskResult`) until it ends,
/// and returns its result.
pub(super) async fn follow(client: &Client, created: Value, here: &ServedRequest<'_>) -> Result<Value, RpcError> {
    let served = here.served;
    let Some(task_id) = created.get("taskId").and_then(Value::as_str) else {
        return Err(unreadable(served, "a task without a `taskId`"));
    };
    let mut remote = RemoteTask {
        client: client.clone(),
        task_id: task_id.to_owned(),
        capabilities: here.capabilities().clone(),
        open: true,
    };
    let mut task = created;
    // What was already answered: the remote may show a request until its
    // handler has taken the answer.
    let mut answered: Map<String, Value> = Map::new();
    let mut reported: Option<String> = None;
    let mut step = 0.0;
    // Rounds of questions asked of this server's client, bounded as the
    // rounds of a call are.
    let mut rounds = 0;
    loop {
        match task.get("status").and_then(Value::as_str) {
            Some("completed") => {
                remote.open = false;
                return task
                    .get_mut("result")
                    .map(Value::take)
                    .ok_or_else(|| unreadable(served, "a `completed` task without its `result`"));
            }
            Some("failed") => {
                remote.open = false;
                let error = task.get("error").and_then(|e| serde_json::from_value::<ErrorObject>(e.clone()).ok());
                return Err(error
                    .unwrap_or_else(|| unreadable_error(served, "a `failed` task without its `error`"))
                    .into());
            }
            Some("cancelled") => {
                remote.open = false;
                return Err(
                    ErrorObject::internal(format!("The server mounted at `{served}` cancelled the task")).into()
                );
            }
            Some("input_required") => {
                let asked = unanswered(&task, &answered);
                if !asked.is_empty() {
                    rounds += 1;
                    if rounds > client.limits().rounds() {
                        tracing::warn!(mount = served, rounds, "a mounted server's task kept asking for input");
                        return Err(ErrorObject::internal(format!(
                            "The server mounted at `{served}` still asked for input after {} rounds",
                            client.limits().rounds()
                        ))
                        .into());
                    }
                    let answers = relay(here.input()?, &json!({"inputRequests": asked}), served, client).await?;
                    remote.update(&answers).await.map_err(|e| relayed(served, e))?;
                    answered.extend(asked);
                }
            }
            Some("working") => {}
            other => {
                tracing::warn!(mount = served, status = ?other, "a mounted server's task has a status that does not read");
                return Err(unreadable(served, "a task whose status does not read"));
            }
        }
        let message = task.get("statusMessage").and_then(Value::as_str);
        if let Some(message) = message.filter(|m| reported.as_deref() != Some(*m)) {
            step += 1.0;
            here.progress.report_with_message(step, None, message);
            reported = Some(message.to_owned());
        }
        tokio::select! {
            () = here.cancellation().cancelled() => {
                remote.open = false;
                remote.cancel().await;
                return Err(ErrorObject::internal("The task was cancelled").into());
            }
            () = tokio::time::sleep(interval(&task)) => {}
        }
        task = remote.get().await.map_err(|e| relayed(served, e))?;
    }
}

/// The requests of an `input_required` task not yet answered as they stand.
fn unanswered(task: &Value, answered: &Map<String, Value>) -> Map<String, Value> {
    let Some(Value::Object(requests)) = task.get("inputRequests") else { return Map::new() };
    requests
        .iter()
        .filter(|(key, request)| answered.get(*key) != Some(request))
        .map(|(k, r)| (k.clone(), r.clone()))
        .collect()
}

/// How long to wait before reading the task again: what it asks, within
/// bounds.
fn interval(task: &Value) -> Duration {
    task.get("pollIntervalMs")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(POLL_BOUNDS.0, POLL_BOUNDS.1)
}

fn unreadable_error(served: &str, what: &str) -> ErrorObject {
    ErrorObject::internal(format!("The server mounted at `{served}` gave {what}"))
}

fn unreadable(served: &str, what: &str) -> RpcError {
    unreadable_error(served, what).into()
}

/// The remote's task, cancelled when dropped while still `open` (this
/// server's task ended or went away first).
struct RemoteTask {
    client: Client,
    task_id: String,
    /// What this server's client declared: the extension among them.
    capabilities: ClientCapabilities,
    open: bool,
}

impl RemoteTask {
    async fn get(&self) -> Result<Value, Error> {
        self.send("tasks/get", json!({"taskId": self.task_id})).await
    }

    async fn update(&self, answers: &Map<String, Value>) -> Result<Value, Error> {
        self.send("tasks/update", json!({"taskId": self.task_id, "inputResponses": answers})).await
    }

    async fn cancel(&self) {
        if let Err(e) = self.send("tasks/cancel", json!({"taskId": self.task_id})).await {
            tracing::debug!(task = %self.task_id, error = %e, "the remote task was not cancelled");
        }
    }

    async fn send(&self, method: &str, params: Value) -> Result<Value, Error> {
        let Value::Object(params) = params else { return Ok(Value::Null) };
        self.client.request_declaring(method, params, (&self.capabilities, None), None).await
    }
}

impl Drop for RemoteTask {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let remote = RemoteTask {
            client: self.client.clone(),
            task_id: std::mem::take(&mut self.task_id),
            capabilities: self.capabilities.clone(),
            open: false,
        };
        runtime.spawn(async move { remote.cancel().await });
    }
}
