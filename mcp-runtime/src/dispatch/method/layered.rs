//! A routed request's layers (the server's, then its tool's), the view of
//! it they read, and the answers they write for it.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::parts::Route;
use crate::dispatch::decorate::{Answers, failed, finish};
use crate::dispatch::opened::Opened;
use crate::dispatch::round_trip;
use crate::dispatch::{Prepared, ResultShape};
use crate::input::request_state::{self, Round};
use crate::middleware::{Answer, Layers, McpRequest, View};
use crate::protocol::{ErrorObject, RequestId, ResultType, Tool};
use crate::response::Response;
use crate::server::{Server, Snapshot};

/// The layers `p` passes, when there are any: the server's, and those of
/// the tool it calls. `None` costs a length check (and, for a call, one
/// more) on a server without layers.
pub(super) fn layers_of(p: &Prepared, tool: Option<usize>) -> Option<(Layers, Option<Layers>)> {
    let outer = &p.server.settings().layers.0;
    let own = tool.and_then(|position| p.snapshot.catalog().tool(position).layers.clone());
    if outer.is_empty() && own.is_none() {
        return None;
    }
    Some((Arc::clone(outer), own))
}

/// The tool a route calls, by its place in the snapshot.
pub(super) fn tool_of(route: &Route) -> Option<usize> {
    match route {
        Route::CallTool(_, position) => Some(*position),
        _ => None,
    }
}

/// The `requestState` a retry of `p` carries, opened now, before its
/// layers run: a layer is told the request is a later round only when the
/// state is one this server sealed for this caller, and opens.
pub(super) fn open_early(p: &Prepared) -> Option<Box<Opened>> {
    let opened = match &p.route {
        Route::CallTool(params, position) => {
            let state = params.request_state.as_deref()?;
            let target = p.snapshot.catalog().tool(*position).definition.name.as_str();
            let digest = request_state::tool_arguments_digest(params.arguments.as_deref());
            round_trip::open(p, target, Some(digest), state, &p.http)
        }
        Route::GetPrompt(params, _) => {
            let state = params.request_state.as_deref()?;
            let digest = match &params.arguments {
                Some(arguments) => request_state::arguments_digest(arguments),
                None => request_state::arguments_digest(&Map::new()),
            };
            round_trip::open(p, &params.name, Some(digest), state, &p.http)
        }
        Route::ReadResource(params) => {
            round_trip::open(p, &params.uri, None, params.request_state.as_deref()?, &p.http)
        }
        _ => return None,
    };
    Some(Box::new(opened))
}

/// What a layer sees of `p`, routed as `route`.
pub(super) fn view_of_route(p: &Prepared, route: &Route) -> McpRequest {
    let (target, arguments, carries_input) = match route {
        Route::CallTool(params, _) => (
            Some(params.name.clone()),
            params.arguments.clone(),
            params.input_responses.is_some() || params.request_state.is_some(),
        ),
        Route::GetPrompt(params, _) => (
            Some(params.name.clone()),
            params.arguments.as_ref().and_then(|a| serde_json::value::to_raw_value(a).ok()),
            params.input_responses.is_some() || params.request_state.is_some(),
        ),
        Route::ReadResource(params) => {
            (Some(params.uri.clone()), None, params.input_responses.is_some() || params.request_state.is_some())
        }
        #[cfg(feature = "tasks")]
        Route::Task(request) => (Some(request.task_id().to_owned()), None, false),
        #[cfg(feature = "skills")]
        Route::Skills(request) => (request.target().map(str::to_owned), None, false),
        #[cfg(feature = "tool-search")]
        Route::SearchTools(arguments) => (Some(crate::search::SEARCH_TOOL.to_owned()), arguments.clone(), false),
        Route::Discover | Route::List(..) | Route::Complete(_) | Route::Listen(_) => (None, None, false),
    };
    let round = p.opened.as_ref().and_then(|opened| opened.round());
    view(p, Call { target, arguments, round, carries_input, tool: tool_of(route), task: false })
}

/// The parts of a view that come from the request's params.
pub(super) struct Call {
    pub(super) target: Option<String>,
    pub(super) arguments: Option<Box<RawValue>>,
    /// The round a retry resumes, when its state opened.
    pub(super) round: Option<Round>,
    /// Whether it carries answers or a state at all (which a cache, keyed
    /// by arguments alone, must not answer for).
    pub(super) carries_input: bool,
    pub(super) tool: Option<usize>,
    pub(super) task: bool,
}

/// What a layer sees of `p`.
pub(super) fn view(p: &Prepared, call: Call) -> McpRequest {
    #[cfg(feature = "http")]
    let (principal, client_address) = (p.http.principal().cloned(), p.http.client_address());
    #[cfg(not(feature = "http"))]
    let (principal, client_address) = (None, None);
    let answers = LayerAnswers {
        server: p.server.clone(),
        snapshot: Arc::clone(&p.snapshot),
        id: p.id.clone(),
        shape: Answers::shape(p),
        tool: call.tool,
    };
    McpRequest(Arc::new(View {
        method: p.method,
        target: call.target,
        arguments: call.arguments,
        meta: Arc::clone(&p.meta),
        caller: p.http.caller(),
        principal,
        client_address,
        task: call.task,
        round: call.round,
        carries_input: call.carries_input,
        over_http: over_http(p),
        answers: Box::new(answers),
    }))
}

/// Whether `p` came over HTTP.
fn over_http(p: &Prepared) -> bool {
    #[cfg(feature = "http")]
    return p.http.parts().is_some();
    #[cfg(not(feature = "http"))]
    {
        let _ = p;
        false
    }
}

/// Answers for a request as its era reads them, and its tool.
struct LayerAnswers {
    server: Server,
    snapshot: Arc<Snapshot>,
    id: RequestId,
    shape: Option<&'static dyn ResultShape>,
    /// The called tool's place in the snapshot's catalog.
    tool: Option<usize>,
}

impl Answers for LayerAnswers {
    fn server(&self) -> &Server {
        &self.server
    }

    fn id(&self) -> &RequestId {
        &self.id
    }

    fn shape(&self) -> Option<&'static dyn ResultShape> {
        self.shape
    }
}

impl Answer for LayerAnswers {
    fn id(&self) -> &RequestId {
        &self.id
    }

    fn older_revision(&self) -> Option<crate::protocol::ProtocolVersion> {
        self.shape.map(|shape| shape.version())
    }

    fn tool(&self) -> Option<&Tool> {
        self.tool.map(|position| self.snapshot.catalog().tool(position).definition())
    }

    fn server_name(&self) -> &str {
        &self.server.info().name
    }

    fn records_content(&self) -> bool {
        self.tool.is_some_and(|position| self.snapshot.catalog().tool(position).trace_content)
    }

    fn error(&self, error: ErrorObject) -> Response {
        failed(self, error)
    }

    fn result(&self, kind: ResultType, body: Map<String, Value>, own_meta: Option<Map<String, Value>>) -> Response {
        finish(self, kind, &body, own_meta, None)
    }
}

/// A task's work run through the layers: they see the call once, and the
/// tool's final outcome on its way out.
#[cfg(feature = "tasks")]
pub(super) fn layered_task(
    outer: Layers,
    own: Option<Layers>,
    request: McpRequest,
    work: crate::handler::functions::BoxFuture<'static, crate::handler::outcome::ToolOutcome>,
) -> crate::handler::functions::BoxFuture<'static, crate::handler::outcome::ToolOutcome> {
    use crate::handler::outcome::Outcome;
    use crate::middleware::{BoxFuture, run_layered};

    Box::pin(async move {
        let answering = request.clone();
        let handler = Box::new(move || -> BoxFuture<'static, Response> {
            Box::pin(async move {
                match work.await {
                    Ok(Outcome::Complete(result)) => answering.reply(&result),
                    Ok(Outcome::InputRequired(mut body)) => {
                        let own = body.meta.take();
                        match serde_json::to_value(&body) {
                            Ok(Value::Object(body)) => answering.0.answers.result(ResultType::InputRequired, body, own),
                            _ => answering.error(ErrorObject::internal("A task's input request could not be written")),
                        }
                    }
                    Err(e) => answering.error(e),
                }
            })
        });
        let response = run_layered(outer, own, request, handler).await;
        if let Some(error) = response.as_error() {
            return Err(error.clone());
        }
        let Some(text) = response.as_result() else {
            return Err(ErrorObject::internal("A layer's answer has neither a result nor an error"));
        };
        let unreadable =
            |e: serde_json::Error| ErrorObject::internal(format!("A layer's result is not a tool result: {e}"));
        if response.needs_input() {
            return serde_json::from_str(text).map(Outcome::InputRequired).map_err(unreadable);
        }
        serde_json::from_str(text).map(Outcome::Complete).map_err(unreadable)
    })
}
