//! A `tools/call` that becomes a task: the task is stored first (so the
//! client's first `tasks/get` finds it), its handler goes on in a task of
//! its own, and the client is answered at once with the handle
//! (`resultType: "task"`).
//!
//! A tool declared [`input_first`](crate::tasks::TaskSupport::input_first)
//! first runs within the call: input it asks for before anything else
//! comes by `input_required` round trips, and the task starts at the
//! handler's first other wait.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use tokio_util::sync::CancellationToken;

use super::context_parts::ContextParts;
use super::layered::{self, Call, layered_task};
use crate::dispatch::Prepared;
use crate::dispatch::decorate::{failed, finish};
use crate::dispatch::round_trip::{checked, input_slot, interruption, outcome_response};
use crate::handler::call::ToolCall;
use crate::handler::context::{InputSlot, RequestContext};
use crate::handler::functions::BoxFuture;
use crate::handler::outcome::ToolOutcome;
use crate::input::request_state;
use crate::input::{InputState, Interrupted, TaskChannel};
use crate::protocol::{CallToolParams, ErrorObject, ResultType};
use crate::registry::entry::ToolEntry;
use crate::response::Response;
use crate::tasks::{self, TaskLink, Work};

/// Starts `tool` as a task and answers with its handle. An MRTR round's
/// `inputResponses` and `requestState` have nothing to resume here: inside
/// a task, the handler asks and waits.
pub(super) async fn start(p: &Prepared, tool: &ToolEntry, params: CallToolParams, parts: ContextParts) -> Response {
    if tool.task.is_some_and(tasks::TaskSupport::is_input_first) {
        return start_after_input(p, tool, params, parts).await;
    }
    let CallToolParams { name, arguments, .. } = params;
    // The layers run inside the task, around its work: once, seeing the
    // final result.
    let position = p.snapshot.catalog().tool_position(&name);
    let layers = layered::layers_of(p, position);
    let view = layers.as_ref().map(|_| {
        let call = Call {
            target: Some(name.clone()),
            arguments: arguments.clone(),
            round: None,
            carries_input: false,
            tool: position,
            task: true,
        };
        layered::view(p, call)
    });
    // Admitted before the task exists: a call refused makes none.
    if let (Some((outer, own)), Some(view)) = (&layers, &view)
        && let Some(refused) = crate::middleware::admission(outer, own.as_ref(), view)
    {
        return refused;
    }
    let task_id = match tasks::new_task_id() {
        Ok(id) => id,
        Err(e) => return failed(p, e),
    };
    let link = TaskLink::new(task_id.clone(), p.server.tasks().clone());
    let input = InputState::for_task(Arc::clone(&p.meta), Arc::clone(&link) as Arc<dyn TaskChannel>);
    let cancel = CancellationToken::new();
    let cx = parts.task_context(p, InputSlot::Available(OnceLock::from(Arc::new(input))), cancel.clone());
    let future = (tool.handler)(ToolCall::new(name, arguments, cx.clone()));
    let future = match (layers, view) {
        (Some((outer, own)), Some(view)) => layered_task(outer, own, view, future),
        _ => future,
    };
    hand_over(p, &cx, task_id, future, cancel, link).await
}

/// Stores the task, then starts `future` in it and answers with the handle.
async fn hand_over(
    p: &Prepared,
    cx: &RequestContext,
    task_id: String,
    future: BoxFuture<'static, ToolOutcome>,
    cancel: CancellationToken,
    link: Arc<TaskLink>,
) -> Response {
    let service = p.server.tasks();
    let owner = service.owner_of(cx);
    let quota = tasks::Tasks::quota_of(cx, owner.as_deref());
    let record = match service.create(task_id, owner, quota).await {
        Ok(record) => record,
        Err(e) => return failed(p, e),
    };
    let work = Work {
        task_id: record.task_id.clone(),
        future,
        cancel,
        link,
        grace: p.server.settings().cancellation_grace,
        expires_at_ms: record.expires_at_ms(),
    };
    tasks::spawn(service.clone(), work);
    finish(p, ResultType::Task, &record.wire(false), None, None)
}

/// Runs the handler within the call until it finishes, stops for input, or
/// first waits on something else: then it becomes a task.
async fn start_after_input(
    p: &Prepared,
    tool: &ToolEntry,
    params: CallToolParams,
    mut parts: ContextParts,
) -> Response {
    let CallToolParams { name, arguments, input_responses, request_state, .. } = params;
    let target = tool.definition.name.as_str();
    let digest = || Some(request_state::tool_arguments_digest(arguments.as_deref()));
    let round = (input_responses, request_state.as_deref());
    let input = match input_slot(p, target, digest, round, &parts.http, parts.opened.take()) {
        Ok(input) => input,
        Err(e) => return failed(p, e),
    };
    let cancel = CancellationToken::new();
    let cx = parts.task_context(p, input, cancel.clone());
    let future = (tool.handler)(ToolCall::new(name, arguments, cx.clone()));
    let outcome = match (UntilFirstWait { future: Some(future), context: cx.clone() }).await {
        Inline::Done(outcome) => checked(p, outcome),
        Inline::Interrupted(interrupted) => interruption(p, target, cx.caller_identity(), interrupted),
        Inline::Waiting(future) => {
            let task_id = match tasks::new_task_id() {
                Ok(id) => id,
                Err(e) => return failed(p, e),
            };
            let link = TaskLink::new(task_id.clone(), p.server.tasks().clone());
            if let Some(state) = cx.started_input() {
                state.run_as_task(Arc::clone(&link) as Arc<dyn TaskChannel>);
            }
            return hand_over(p, &cx, task_id, future, cancel, link).await;
        }
    };
    outcome_response(p, outcome, |r| r.meta.take(), None)
}

/// How the part of a handler run within the call ended.
enum Inline {
    Done(ToolOutcome),
    Interrupted(Interrupted),
    /// It waits on something else than input, and goes on as a task.
    Waiting(BoxFuture<'static, ToolOutcome>),
}

/// Polls a handler once: whatever it waits on after that poll decides,
/// unless the handler holds itself within the call
/// ([`Input::hold_inline`](crate::Input)): it is then polled on until it
/// lets go, finishes or asks for input.
struct UntilFirstWait {
    future: Option<BoxFuture<'static, ToolOutcome>>,
    context: RequestContext,
}

impl Future for UntilFirstWait {
    type Output = Inline;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Inline> {
        let Some(future) = self.future.as_mut() else { return Poll::Pending };
        let polled = std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx)));
        Poll::Ready(match polled {
            Ok(Poll::Ready(outcome)) => Inline::Done(outcome),
            Ok(Poll::Pending) => match self.context.started_input() {
                Some(state) if state.is_waiting() => Inline::Interrupted(state.interruption()),
                // Polled again when what it waits on wakes it.
                Some(state) if state.is_held_inline() => return Poll::Pending,
                // Its wakers are registered again by the task's first poll.
                _ => match self.future.take() {
                    Some(future) => Inline::Waiting(future),
                    None => return Poll::Pending,
                },
            },
            Err(_) => {
                tracing::error!("a handler panicked");
                Inline::Done(Err(ErrorObject::internal("The handler failed unexpectedly")))
            }
        })
    }
}
