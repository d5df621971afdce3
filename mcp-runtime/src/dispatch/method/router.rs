//! From a routed method to its module: each method's params checked
//! against what is served (`route`), and its handler run (`run`).

use super::context_parts::ContextParts;
use super::layered;
use super::name::Method;
use super::parts::{ListKind, Route, params_of};
#[cfg(feature = "tasks")]
use super::tasks;
use super::{complete, discover, listen, lists, prompts_get, resources_read, tools_call};
use crate::dispatch::{Body, HeaderCheck, Prepared, RequestOptions};
use crate::middleware::{BoxFuture, admission, run_layered};
use crate::protocol::{ErrorObject, RequestMeta};
use crate::registry::scopes::Access;
use crate::response::{Response, Stage};
use crate::server::Snapshot;

/// Checks a routed method's params against what the snapshot serves (and,
/// for `tools/call`, the `Mcp-Param-*` headers against its arguments).
pub(crate) fn route(
    snapshot: &Snapshot,
    method: Method,
    body: Body,
    headers: Option<&dyn HeaderCheck>,
    meta: &RequestMeta,
    access: &Access,
) -> Result<Route, (ErrorObject, Stage)> {
    let raw = match body {
        Body::Call(p) => return call_route(snapshot, p, headers, access),
        Body::Raw(raw) => raw,
    };
    let params = raw.as_deref();
    match method {
        Method::Discover => Ok(Route::Discover),
        #[cfg(feature = "tool-search")]
        Method::ToolsList if let Some(searcher) = snapshot.searcher() => {
            super::tool_search::list_route(snapshot, searcher, params)
        }
        Method::ToolsList => lists::route(snapshot, method, ListKind::Tools, params),
        Method::PromptsList => lists::route(snapshot, method, ListKind::Prompts, params),
        Method::ResourcesList => lists::route(snapshot, method, ListKind::Resources, params),
        Method::ResourceTemplatesList => lists::route(snapshot, method, ListKind::Templates, params),
        Method::ToolsCall => call_route(snapshot, params_of(method, params)?, headers, access),
        Method::PromptsGet => prompts_get::route(snapshot, params_of(method, params)?, access),
        Method::ResourcesRead => resources_read::route(params_of(method, params)?),
        Method::CompletionComplete => complete::route(snapshot, params_of(method, params)?, access),
        Method::SubscriptionsListen => listen::route(snapshot, params_of(method, params)?, meta),
        #[cfg(feature = "tasks")]
        Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => tasks::route(method, params, meta),
        #[cfg(feature = "skills")]
        Method::SkillsList | Method::SkillsGet | Method::ResourcesDirectoryRead => {
            super::skills::route(snapshot, method, params)
        }
        // Not offered in the 2026-07-28 revision, so routing has refused them already.
        Method::Initialize
        | Method::Ping
        | Method::LoggingSetLevel
        | Method::ResourcesSubscribe
        | Method::ResourcesUnsubscribe
        | Method::TasksResult
        | Method::TasksList => Err((ErrorObject::method_not_found(method.name()), Stage::Routing)),
        // Not offered without the feature, so routing has refused them already.
        #[cfg(not(feature = "tasks"))]
        Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => {
            Err((ErrorObject::method_not_found(method.name()), Stage::Routing))
        }
        #[cfg(not(feature = "skills"))]
        Method::SkillsList | Method::SkillsGet | Method::ResourcesDirectoryRead => {
            Err((ErrorObject::method_not_found(method.name()), Stage::Routing))
        }
    }
}

/// `tools/call`'s route; with tool search on, `search_tools` is the search
/// and `call_tool` the call of the tool it names, read on as if it had
/// come so (its `Mcp-Param-*` headers were those of `call_tool`, which has
/// none).
fn call_route(
    snapshot: &Snapshot,
    p: crate::protocol::CallToolParams,
    headers: Option<&dyn HeaderCheck>,
    access: &Access,
) -> Result<Route, (ErrorObject, Stage)> {
    #[cfg(feature = "tool-search")]
    if snapshot.searcher().is_some() {
        use super::tool_search::{self, Searched};
        return match tool_search::route(snapshot, p)? {
            Searched::Search(arguments) => Ok(Route::SearchTools(arguments)),
            Searched::Call(p) => tools_call::route(snapshot, p, None, access),
            Searched::Other(p) => tools_call::route(snapshot, p, headers, access),
        };
    }
    tools_call::route(snapshot, p, headers, access)
}

/// The name or URI a route's request names, for the scope check.
pub(crate) fn target_of(route: &Route) -> Option<&str> {
    match route {
        Route::CallTool(params, _) => Some(&params.name),
        Route::GetPrompt(params, _) => Some(&params.name),
        Route::ReadResource(params) => Some(&params.uri),
        Route::Discover | Route::List(..) | Route::Complete(_) | Route::Listen(_) => None,
        #[cfg(feature = "tasks")]
        Route::Task(_) => None,
        #[cfg(feature = "skills")]
        Route::Skills(request) => request.target(),
        // Anyone may search: what it finds is filtered by the caller.
        #[cfg(feature = "tool-search")]
        Route::SearchTools(_) => None,
    }
}

/// Runs a prepared request's handler, through its layers when it has
/// any, and builds its response.
pub(crate) async fn run(mut p: Prepared, options: RequestOptions) -> Response {
    // Checked once, before the layers: their second pass, past them,
    // goes straight to the route.
    if !p.past_layers {
        // The HTTP transports refuse with 403 before they run a request;
        // this covers the requests they run without that check (a
        // 2025-03-26 batch). A refused request reaches no layer.
        if let Some(refusal) = p.scope_refusal() {
            return Response::error(Some(p.id.clone()), refusal.error(), Stage::Params);
        }
        // The layers run this function again, boxed, past them: a request
        // without layers is answered in this one future, as before layers
        // existed (a future of its own for the route would be one more
        // copy of its state per call).
        let tool = layered::tool_of(&p.route);
        if let Some((outer, own)) = layered::layers_of(&p, tool)
            && !tool.is_some_and(|position| runs_as_task(&p, position))
        {
            p.opened = layered::open_early(&p);
            let request = layered::view_of_route(&p, &p.route);
            if let Some(refused) = admission(&outer, own.as_ref(), &request) {
                return refused;
            }
            // A layer may give the handler up (a time limit): that cancels
            // the handler's token, which must not read as the client's own
            // cancelling (a 2025-era session answers nothing then).
            let options =
                RequestOptions { cancellation: options.cancellation.as_ref().map(|t| t.child_token()), ..options };
            p.past_layers = true;
            let handler = Box::new(move || past_layers(p, options));
            return Box::pin(run_layered(outer, own, request, handler)).await;
        }
    }
    // Taken out so that its params move into the call rather than being copied.
    let route = std::mem::replace(&mut p.route, Route::Discover);
    let parts = ContextParts { options, http: std::mem::take(&mut p.http), opened: p.opened.take() };
    let p = &p;
    match route {
        Route::Discover => discover::run(p),
        #[cfg(feature = "tool-search")]
        Route::List(ListKind::Tools, start) if let Some(searcher) = p.snapshot.searcher() => {
            super::tool_search::list_run(p, searcher, start)
        }
        Route::List(kind, start) => lists::run(p, kind, start),
        Route::CallTool(params, position) => tools_call::run(p, params, position, parts).await,
        Route::GetPrompt(params, handler) => prompts_get::run(p, params, handler, parts).await,
        Route::ReadResource(params) => resources_read::run(p, params, parts).await,
        Route::Complete(params) => complete::run(p, params, parts).await,
        Route::Listen(filter) => listen::run(p, filter, parts).await,
        // Boxed, like any rare path: the future of every request is as large
        // as its largest route's.
        #[cfg(feature = "tasks")]
        Route::Task(request) => Box::pin(tasks::run(p, request, parts)).await,
        #[cfg(feature = "skills")]
        Route::Skills(request) => {
            drop(parts);
            super::skills::run(p, request)
        }
        #[cfg(feature = "tool-search")]
        Route::SearchTools(arguments) => {
            drop(parts);
            super::tool_search::run(p, arguments)
        }
    }
}

/// [`run`] again, for a request through its layers (boxed: a future cannot
/// hold itself).
fn past_layers(p: Prepared, options: RequestOptions) -> BoxFuture<'static, Response> {
    Box::pin(run(p, options))
}

/// Whether the tool at `position` runs as a task for this request: its
/// layers then run inside the task ([`task_call`](super::task_call)). A
/// tool that takes its input first runs its rounds within calls, which
/// pass the layers each.
fn runs_as_task(p: &Prepared, position: usize) -> bool {
    #[cfg(feature = "tasks")]
    if let Some(support) = p.snapshot.catalog().tool(position).task {
        return !support.is_input_first() && crate::tasks::declared(&p.meta.client_capabilities);
    }
    let _ = (p, position);
    false
}
