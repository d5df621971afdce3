//! `tools/call`: the tool named, its arguments an object whose
//! `x-mcp-header` properties match their `Mcp-Param-*` headers, then its
//! handler, which may ask for input.

use super::context_parts::ContextParts;
use super::parts::Route;
use crate::dispatch::decorate::{Answers as _, failed};
use crate::dispatch::round_trip::{input_slot, interruptible, outcome_response};
use crate::dispatch::{CalledTool, HeaderCheck, Prepared};
use crate::handler::call::ToolCall;
use crate::handler::context::RequestContext;
use crate::handler::functions::RelayFn;
use crate::handler::outcome::{Outcome, ToolOutcome};
use crate::handler::passed::PassedResult;
use crate::input::request_state;
use crate::protocol::{CallToolParams, ErrorObject};
use crate::registry::scopes::Access;
use crate::response::Response;
use crate::response::Stage;
use crate::server::Snapshot;
#[cfg(feature = "tasks")]
use crate::tasks;

/// The tool's place in the snapshot, once its arguments and their headers
/// are checked.
pub(super) fn route(
    snapshot: &Snapshot,
    p: CallToolParams,
    headers: Option<&dyn HeaderCheck>,
    access: &Access,
) -> Result<Route, (ErrorObject, Stage)> {
    let catalog = snapshot.catalog();
    // A tool hidden from the caller is one it cannot tell from no tool.
    let found = catalog.tool_position(&p.name).filter(|&at| !catalog.tool(at).hidden_from(access));
    let Some(position) = found else {
        return Err((ErrorObject::invalid_params(format!("Unknown tool: `{}`", p.name)), Stage::Params));
    };
    if let Some(args) = &p.arguments
        && !args.get().trim_start().starts_with('{')
    {
        let e = ErrorObject::invalid_params("`arguments` must be an object");
        return Err((e, Stage::Params));
    }
    if let Some(headers) = headers {
        let tool = CalledTool {
            definition: catalog.tool(position).definition(),
            header_params: catalog.tool_header_params(position),
        };
        headers.check_tool_arguments(tool, p.arguments.as_deref()).map_err(|e| (e, Stage::Headers))?;
    }
    Ok(Route::CallTool(p, position))
}

pub(super) async fn run(p: &Prepared, params: CallToolParams, position: usize, parts: ContextParts) -> Response {
    #[cfg(feature = "cache")]
    if !p.snapshot.catalog().tool(position).invalidates.is_empty() {
        // Boxed: a plain call's future does not grow by this path's state.
        return Box::pin(call_then_invalidate(p, params, position, parts)).await;
    }
    call(p, params, position, parts).await
}

/// A call of a tool that invalidates others' cached results: they are,
/// once it has answered with a result.
#[cfg(feature = "cache")]
async fn call_then_invalidate(p: &Prepared, params: CallToolParams, position: usize, parts: ContextParts) -> Response {
    let response = call(p, params, position, parts).await;
    if crate::middleware::cache::kept(&response).is_some() {
        invalidate(p, position).await;
    }
    response
}

/// Invalidates, in every result cache of the server that may keep them
/// (the server's, and each stale tool's own), the results of the tools
/// the tool at `position` invalidates.
#[cfg(feature = "cache")]
async fn invalidate(p: &Prepared, position: usize) {
    use crate::middleware::cache::caches_in;
    let catalog = p.snapshot.catalog();
    let outer = &p.server.settings().layers.0;
    for stale in &catalog.tool(position).invalidates {
        let own = catalog.tool_position(stale).and_then(|at| catalog.tool(at).layers.as_deref()).unwrap_or_default();
        for cache in caches_in(outer).chain(caches_in(own)) {
            cache.invalidate(stale).await;
        }
    }
}

async fn call(p: &Prepared, params: CallToolParams, position: usize, mut parts: ContextParts) -> Response {
    let tool = p.snapshot.catalog().tool(position);
    // Without the feature a `task` tool runs as a plain call (and no server
    // is built with a `task(required)` one).
    #[cfg(feature = "tasks")]
    if let Some(support) = tool.task {
        if tasks::declared(&p.meta.client_capabilities) {
            // Boxed: a plain call's future does not grow by this path's state.
            return Box::pin(super::task_call::start(p, tool, params, parts)).await;
        }
        if support.is_required() {
            return failed(p, tasks::missing_extension(&format!("The tool `{}`", tool.definition.name)));
        }
    }
    let CallToolParams { name, arguments, input_responses, request_state, .. } = params;
    let target = tool.definition.name.as_str();
    let digest = || Some(request_state::tool_arguments_digest(arguments.as_deref()));
    let round = (input_responses, request_state.as_deref());
    let input = match input_slot(p, target, digest, round, &parts.http, parts.opened.take()) {
        Ok(input) => input,
        Err(e) => return failed(p, e),
    };
    let cx = parts.context(p, input);
    let arguments = match &tool.nulls {
        Some(plan) => crate::registry::schema_profile::strip_nulls(plan, arguments),
        None => arguments,
    };
    let call = ToolCall::new(name, arguments, cx.clone());
    if let Some(relay) = &tool.relay {
        // Boxed: a plain call's future does not grow by this path's state.
        return Box::pin(relayed(p, target, cx, relay, call)).await;
    }
    let handler = &tool.handler;
    let outcome = interruptible(p, target, cx, move || handler(call)).await;
    typed_response(p, outcome)
}

/// A relayed call: its result passed on as the other server wrote it,
/// completed with what this server adds (its `resultType`, this server's
/// `_meta` when it has none). A result whose `_meta` says nothing of its
/// server, from a server that names itself here, has this server's info
/// added among its keys; a 2025-era session's client reads results in its
/// own shape: both go through the typed path.
async fn relayed(p: &Prepared, target: &str, cx: RequestContext, relay: &RelayFn, call: ToolCall) -> Response {
    let shared = p.server.settings().result_meta.as_deref();
    match interruptible(p, target, cx, move || relay(call)).await {
        Ok(Outcome::Complete(PassedResult { text, peeked }))
            if p.shape().is_none() && (peeked.names_server != Some(false) || shared.is_none()) =>
        {
            let meta = if peeked.names_server.is_none() { shared } else { None };
            Response::passed_result(p.id.clone(), &text, peeked.kind.is_none(), meta)
        }
        Ok(Outcome::Complete(PassedResult { text, .. })) => match serde_json::from_str(&text) {
            Ok(result) => typed_response(p, Ok(Outcome::Complete(result))),
            Err(e) => failed(p, ErrorObject::internal(format!("The tool's result does not read: {e}"))),
        },
        Ok(Outcome::InputRequired(asked)) => typed_response(p, Ok(Outcome::InputRequired(asked))),
        Err(e) => failed(p, e),
    }
}

/// A handler's outcome as the call's response.
pub(super) fn typed_response(p: &Prepared, outcome: ToolOutcome) -> Response {
    #[cfg_attr(not(feature = "session"), allow(unused_mut))]
    let mut outcome = outcome;
    #[cfg(feature = "session")]
    if let Some(shape) = p.shape
        && let Ok(Outcome::Complete(result)) = &mut outcome
    {
        shape.tool_result(result);
        if let Some(text) = result.plain_text() {
            return Response::session_text_result(p.id.clone(), text);
        }
    }
    if let Ok(Outcome::Complete(result)) = &outcome
        && let Some(text) = result.plain_text()
    {
        return Response::text_result(p.id.clone(), text, p.server.settings().result_meta.as_deref());
    }
    outcome_response(p, outcome, |r| r.meta.take(), None)
}
