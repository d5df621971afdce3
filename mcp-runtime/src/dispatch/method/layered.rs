//! A routed request's layers (the server's, then its tool's) and the view
//! of it they read.

use std::sync::Arc;

use serde_json::value::RawValue;

use super::parts::Route;
use crate::dispatch::Prepared;
use crate::dispatch::layer::{Layers, McpRequest, View};

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

/// What a layer sees of `p`, routed as `route`.
pub(super) fn view_of_route(p: &Prepared, route: &Route) -> McpRequest {
    let (target, arguments, later_round) = match route {
        Route::CallTool(params, _) => (
            Some(params.name.clone()),
            params.arguments.clone(),
            params.input_responses.is_some() || params.request_state.is_some(),
        ),
        Route::GetPrompt(params, _) => {
            (Some(params.name.clone()), None, params.input_responses.is_some() || params.request_state.is_some())
        }
        Route::ReadResource(params) => {
            (Some(params.uri.clone()), None, params.input_responses.is_some() || params.request_state.is_some())
        }
        #[cfg(feature = "tasks")]
        Route::Task(request) => (Some(request.task_id().to_owned()), None, false),
        Route::Discover | Route::List(..) | Route::Complete(_) | Route::Listen(_) => (None, None, false),
    };
    view(p, Call { target, arguments, later_round, tool: tool_of(route), task: false })
}

/// The parts of a view that come from the request's params.
pub(super) struct Call {
    pub(super) target: Option<String>,
    pub(super) arguments: Option<Box<RawValue>>,
    pub(super) later_round: bool,
    pub(super) tool: Option<usize>,
    pub(super) task: bool,
}

/// What a layer sees of `p`.
pub(super) fn view(p: &Prepared, call: Call) -> McpRequest {
    #[cfg(feature = "http")]
    let (principal, client_address) = (
        p.http.principal().cloned(),
        p.http.parts().and_then(|parts| parts.extensions.get::<crate::dispatch::layer::ClientAddress>()).map(|a| a.0),
    );
    #[cfg(not(feature = "http"))]
    let (principal, client_address) = (None, None);
    #[cfg(feature = "legacy")]
    let session = p.session;
    #[cfg(not(feature = "legacy"))]
    let session = None;
    McpRequest(Arc::new(View {
        server: p.server.clone(),
        snapshot: Arc::clone(&p.snapshot),
        id: p.id.clone(),
        method: p.method,
        target: call.target,
        arguments: call.arguments,
        meta: Arc::clone(&p.meta),
        principal,
        client_address,
        session,
        task: call.task,
        later_round: call.later_round,
        tool: call.tool,
    }))
}
