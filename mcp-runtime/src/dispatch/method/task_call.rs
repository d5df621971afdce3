//! A `tools/call` that becomes a task: the task is stored first (so the
//! client's first `tasks/get` finds it), its handler is started in a task
//! of its own, and the client is answered at once with the handle
//! (`resultType: "task"`).

use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

use super::ContextParts;
use crate::call::ToolCall;
use crate::context::InputSlot;
use crate::dispatch::Prepared;
use crate::dispatch::decorate::{failed, finish};
use crate::dispatch::response::Response;
use crate::entry::ToolEntry;
use crate::input::InputState;
use crate::protocol::{CallToolParams, ResultType};
use crate::tasks::{self, TaskLink, Work};

/// Starts `tool` as a task and answers with its handle. An MRTR round's
/// `inputResponses` and `requestState` have nothing to resume here: inside
/// a task, the handler asks and waits.
pub(super) async fn start(p: &Prepared, tool: &ToolEntry, params: CallToolParams, parts: ContextParts) -> Response {
    let CallToolParams { name, arguments, .. } = params;
    let service = p.server.tasks();
    let task_id = match tasks::new_task_id() {
        Ok(id) => id,
        Err(e) => return failed(p, e),
    };
    let link = TaskLink::new(task_id.clone(), service.clone());
    let input = InputState::for_task(Arc::clone(&p.meta), Arc::clone(&link));
    let cancel = CancellationToken::new();
    let cx = parts.task_context(p, InputSlot::Available(OnceLock::from(Arc::new(input))), cancel.clone());
    let owner = service.owner_of(&cx);
    let record = match service.create(task_id, owner).await {
        Ok(record) => record,
        Err(e) => return failed(p, e),
    };
    let future = (tool.handler)(ToolCall::new(name, arguments, cx));
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
