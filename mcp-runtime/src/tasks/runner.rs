//! Running a task's handler in a task of its own: it ends `completed`
//! with its result, `failed` with its JSON-RPC error (a panic included),
//! or `cancelled`, while its lease is renewed and its time to live is
//! watched.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::clock::now_ms;
use super::link::TaskLink;
use super::service::{Running, Tasks};
use crate::handler::functions::BoxFuture;
use crate::handler::outcome::{Outcome, ToolOutcome};
use crate::handler::panic_guard::guarded;
use crate::protocol::{CallToolResult, ErrorObject};

/// How a handler's run ended.
enum Ended {
    Finished(Result<Value, ErrorObject>),
    /// Its token fired (`tasks/cancel`, or its time ran out).
    Cancelled,
}

/// What a task's handler needs to run.
pub(crate) struct Work {
    pub(crate) task_id: String,
    pub(crate) future: BoxFuture<'static, ToolOutcome>,
    pub(crate) cancel: CancellationToken,
    pub(crate) link: Arc<TaskLink<Tasks>>,
    /// How long the handler may run on once cancelled.
    pub(crate) grace: Duration,
    pub(crate) expires_at_ms: Option<u64>,
}

/// Starts the handler on the current runtime, registered as running here.
pub(crate) fn spawn(tasks: Tasks, work: Work) {
    tasks.register(&work.task_id, Running { cancel: work.cancel.clone(), link: Arc::clone(&work.link) });
    tokio::spawn(drive(tasks, work));
}

async fn drive(tasks: Tasks, work: Work) {
    let Work { task_id, future, cancel, link, grace, expires_at_ms } = work;
    let ended = run(&tasks, &task_id, future, &cancel, &link, grace, expires_at_ms).await;
    tasks.unregister(&task_id);
    let outcome = match ended {
        Ended::Finished(outcome) => Some(outcome),
        // `tasks/cancel` wrote `cancelled` already; anything else that fired
        // the token (the handler itself) ends the task the same way.
        Ended::Cancelled => None,
    };
    link.exclusive(tasks.finish(&task_id, outcome)).await;
}

async fn run(
    tasks: &Tasks,
    task_id: &str,
    future: BoxFuture<'static, ToolOutcome>,
    cancel: &CancellationToken,
    link: &TaskLink<Tasks>,
    grace: Duration,
    expires_at_ms: Option<u64>,
) -> Ended {
    let mut work = std::pin::pin!(guarded(future));
    let renew_every = tasks.settings().lease / 3;
    let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + renew_every, renew_every);
    let expired = async {
        match expires_at_ms {
            Some(at) => tokio::time::sleep(Duration::from_millis(at.saturating_sub(now_ms()))).await,
            None => std::future::pending().await,
        }
    };
    let mut expired = std::pin::pin!(expired);
    loop {
        tokio::select! {
            outcome = &mut work => return Ended::Finished(result_of(outcome)),
            error = link.failure() => return Ended::Finished(Err(error)),
            () = cancel.cancelled() => break,
            () = &mut expired => {
                cancel.cancel();
                break;
            }
            _ = renew.tick() => tasks.renew_lease(task_id).await,
        }
    }
    // Cooperative: the handler hears its token and has the grace period to
    // wind down; what it answers then is not kept.
    if tokio::time::timeout(grace, &mut work).await.is_err() {
        tracing::debug!(task = %task_id, "a cancelled task's handler outlived its grace period");
    }
    Ended::Cancelled
}

/// A handler's outcome as a task's: a result (a tool error included) or
/// the JSON-RPC error it failed with.
fn result_of(outcome: Result<Outcome<CallToolResult>, ErrorObject>) -> Result<Value, ErrorObject> {
    match outcome? {
        Outcome::Complete(result) => {
            let mut value = serde_json::to_value(&result)
                .map_err(|e| ErrorObject::internal(format!("The result could not be serialized: {e}")))?;
            if let Some(object) = value.as_object_mut() {
                object.insert("resultType".into(), Value::from("complete"));
            }
            Ok(value)
        }
        Outcome::InputRequired(_) => Err(ErrorObject::internal(
            "A task's handler cannot answer input_required: inside a task, it asks through `Input`",
        )),
    }
}
