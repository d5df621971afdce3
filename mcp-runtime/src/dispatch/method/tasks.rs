//! `tasks/get`, `tasks/update` and `tasks/cancel`: served when a tool may
//! run as a task, and only to requests that declare the tasks extension
//! (`-32021` otherwise, before the task is looked up). A task unknown,
//! expired or someone else's is `-32602`.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::context_parts::ContextParts;
use super::name::Method;
use super::parts::TaskRequest;
use super::parts::{Route, params_of};
use crate::dispatch::Prepared;
use crate::dispatch::decorate::{failed, finish};
use crate::protocol::{ErrorObject, RequestMeta, ResultType};
use crate::response::{Response, Stage};
use crate::tasks;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskParams {
    task_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateParams {
    task_id: String,
    input_responses: Map<String, Value>,
}

/// The params read, then the capability checked. Kept out of line: the
/// routing of every request is inlined where it is prepared.
#[inline(never)]
pub(super) fn route(
    method: Method,
    params: Option<&RawValue>,
    meta: &RequestMeta,
) -> Result<Route, (ErrorObject, Stage)> {
    let request = match method {
        Method::TasksUpdate => {
            let UpdateParams { task_id, input_responses } = params_of(method, params)?;
            TaskRequest::Update { task_id, input_responses }
        }
        Method::TasksCancel => TaskRequest::Cancel { task_id: params_of::<TaskParams>(method, params)?.task_id },
        _ => TaskRequest::Get { task_id: params_of::<TaskParams>(method, params)?.task_id },
    };
    if !tasks::declared(&meta.client_capabilities) {
        return Err((tasks::missing_extension(&format!("`{}`", method.name())), Stage::Params));
    }
    Ok(Route::Task(request))
}

/// The body of an acknowledgement: nothing but `resultType`.
#[derive(Serialize)]
struct Ack {}

pub(super) async fn run(p: &Prepared, request: TaskRequest, parts: ContextParts) -> Response {
    let service = p.server.tasks();
    let (cx, _) = parts.split(p);
    let owner = service.owner_of(&cx);
    let owner = owner.as_deref();
    let outcome = match request {
        TaskRequest::Get { task_id } => match service.get(&task_id, owner).await {
            Ok(record) => return finish(p, ResultType::Complete, &record.wire(true), None, None),
            Err(e) => Err(e),
        },
        TaskRequest::Update { task_id, input_responses } => service.update(&task_id, owner, input_responses).await,
        TaskRequest::Cancel { task_id } => service.cancel(&task_id, owner).await,
    };
    match outcome {
        Ok(()) => finish(p, ResultType::Complete, &Ack {}, None, None),
        Err(e) => failed(p, e),
    }
}
