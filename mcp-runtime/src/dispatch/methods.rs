//! Per-method routing (step 11), params validation (step 12) and execution
//! (steps 17–18).

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

use futures_util::FutureExt as _;
use serde::Deserialize;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::grace::Handled;
use super::listen;
use super::response::{Decorated, Meta, Page, Response, Stage};
use super::{Body, CalledTool, HeaderCheck, Prepared, RequestOptions, pagination};
use crate::call::{CompleteCall, PromptCall, ResourceCall, ToolCall};
use crate::catalog::Catalog;
use crate::context::{InputSlot, RequestContext};
use crate::handler::PromptFn;
use crate::input::{self, InputState, Interrupted, Interruptible};
use crate::outcome::Outcome;
use crate::protocol::{
    CacheHints, CallToolParams, CallToolResult, CompleteParams, CompleteResult, Completion, CompletionReference,
    ContentBlock, ErrorObject, GetPromptParams, InputRequest, InputRequiredResult, ListenParams, META_SERVER_INFO,
    ReadResourceParams, ResultType, SubscriptionFilter, TextContent,
};
use crate::request_state::{self, SealedState};
use crate::server::Snapshot;

/// A validated request, by method.
pub(super) enum Route {
    Discover,
    List(ListKind, usize),
    /// The params, and where the tool is in the request's snapshot.
    CallTool(CallToolParams, usize),
    GetPrompt(GetPromptParams, PromptFn),
    ReadResource(ReadResourceParams),
    Complete(CompleteParams),
    Listen(SubscriptionFilter),
}

#[derive(Clone, Copy)]
pub(super) enum ListKind {
    Tools,
    Prompts,
    Resources,
    Templates,
}

impl ListKind {
    /// The list's member in the result, which also tags its cursors.
    fn key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
        }
    }

    fn len(self, c: &Catalog) -> usize {
        match self {
            ListKind::Tools => c.tools.len(),
            ListKind::Prompts => c.prompts.len(),
            ListKind::Resources => c.resources.len(),
            ListKind::Templates => c.templates.len(),
        }
    }

    /// The sort key of item `i`, in the order the catalog keeps (names are
    /// unique for tools and prompts; resources sort by name, then URI).
    fn sort_key(self, c: &Catalog, i: usize) -> pagination::SortKey<'_> {
        match self {
            ListKind::Tools => (&c.tools[i].key, ""),
            ListKind::Prompts => (&c.prompts[i].key, ""),
            ListKind::Resources => (c.resources[i].entry.name(), &c.resources[i].key),
            ListKind::Templates => (c.templates[i].entry.name(), &c.templates[i].key),
        }
    }
}

/// The methods this revision defines for a server.
const METHODS: [&str; 10] = [
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "completion/complete",
    "subscriptions/listen",
];

/// Step 11: the method's name, if it exists and its capability is advertised.
pub(super) fn routable(snapshot: &Snapshot, method: &str) -> Option<&'static str> {
    let caps = &snapshot.capabilities;
    let name = METHODS.into_iter().find(|known| *known == method)?;
    let offered = match name {
        "server/discover" => true,
        "tools/list" | "tools/call" => caps.tools.is_some(),
        "prompts/list" | "prompts/get" => caps.prompts.is_some(),
        "resources/list" | "resources/read" | "resources/templates/list" => caps.resources.is_some(),
        "completion/complete" => caps.completions.is_some(),
        "subscriptions/listen" => listen::is_offered(caps),
        _ => false,
    };
    offered.then_some(name)
}

#[derive(Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

fn params_of<'de, T: Deserialize<'de>>(method: &str, params: Option<&'de RawValue>) -> Result<T, (ErrorObject, Stage)> {
    let text = params.map(RawValue::get).unwrap_or("{}");
    serde_json::from_str(text)
        .map_err(|e| (ErrorObject::invalid_params(format!("Invalid params for `{method}`: {e}")), Stage::Params))
}

/// Steps 12 and 13.
pub(super) fn route(
    snapshot: &Snapshot,
    method: &str,
    body: Body,
    headers: Option<&dyn HeaderCheck>,
) -> Result<Route, (ErrorObject, Stage)> {
    let catalog = &snapshot.catalog;
    let raw = match body {
        Body::Call(p) => return call_tool(snapshot, p, headers),
        Body::Raw(raw) => raw,
    };
    let params = raw.as_deref();
    let list = |kind: ListKind| -> Result<Route, (ErrorObject, Stage)> {
        let p: ListParams = params_of(method, params)?;
        let after = pagination::decode(p.cursor.as_deref(), kind.key()).map_err(|e| (e, Stage::Params))?;
        let start = pagination::start(after.as_ref(), kind.len(catalog), |i| kind.sort_key(catalog, i));
        Ok(Route::List(kind, start))
    };
    match method {
        "server/discover" => Ok(Route::Discover),
        "tools/list" => list(ListKind::Tools),
        "prompts/list" => list(ListKind::Prompts),
        "resources/list" => list(ListKind::Resources),
        "resources/templates/list" => list(ListKind::Templates),
        "tools/call" => call_tool(snapshot, params_of(method, params)?, headers),
        "prompts/get" => {
            let p: GetPromptParams = params_of(method, params)?;
            let Some(prompt) = catalog.prompt(&p.name) else {
                return Err((ErrorObject::invalid_params(format!("Unknown prompt: `{}`", p.name)), Stage::Params));
            };
            let args = p.arguments.as_ref();
            if let Some((key, _)) = args.and_then(|a| a.iter().find(|(_, v)| !v.is_string())) {
                let e = ErrorObject::invalid_params(format!("Prompt argument `{key}` must be a string"));
                return Err((e, Stage::Params));
            }
            let missing = prompt
                .definition
                .arguments
                .iter()
                .filter(|a| a.required == Some(true))
                .find(|a| !args.is_some_and(|m| m.contains_key(&a.name)));
            if let Some(arg) = missing {
                let e = ErrorObject::invalid_params(format!(
                    "Missing required argument `{}` for prompt `{}`",
                    arg.name, p.name
                ));
                return Err((e, Stage::Params));
            }
            let handler = Arc::clone(&prompt.handler);
            Ok(Route::GetPrompt(p, handler))
        }
        "resources/read" => Ok(Route::ReadResource(params_of(method, params)?)),
        "completion/complete" => {
            let p: CompleteParams = params_of(method, params)?;
            let known = match &p.reference {
                CompletionReference::Prompt { name, .. } => catalog.prompt(name).is_some(),
                CompletionReference::Resource { uri } => {
                    catalog.template(uri).is_some() || catalog.resource(uri).is_some()
                }
            };
            if !known {
                let e = ErrorObject::invalid_params("Unknown completion reference");
                return Err((e, Stage::Params));
            }
            Ok(Route::Complete(p))
        }
        "subscriptions/listen" => {
            let p: ListenParams = params_of(method, params)?;
            Ok(Route::Listen(listen::honoured(&snapshot.capabilities, p.notifications)))
        }
        other => Err((ErrorObject::method_not_found(other), Stage::Routing)),
    }
}

/// Steps 12 and 13 for `tools/call`.
fn call_tool(
    snapshot: &Snapshot,
    p: CallToolParams,
    headers: Option<&dyn HeaderCheck>,
) -> Result<Route, (ErrorObject, Stage)> {
    let catalog = &snapshot.catalog;
    let Some(position) = catalog.tool_position(&p.name) else {
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
            definition: &catalog.tools[position].entry.definition,
            header_params: catalog.tool_header_params(position),
        };
        headers.check_tool_arguments(tool, p.arguments.as_deref()).map_err(|e| (e, Stage::Headers))?;
    }
    Ok(Route::CallTool(p, position))
}

/// Serializes a result with `resultType`, cache hints and `_meta`.
fn finish<T: Serialize>(
    p: &Prepared,
    result_type: ResultType,
    body: &T,
    own_meta: Option<Map<String, Value>>,
    cache: Option<CacheHints>,
) -> Response {
    finish_sized(p, result_type, body, own_meta, cache, 0)
}

/// [`finish`] for a body known to need about `size` bytes of JSON.
fn finish_sized<T: Serialize>(
    p: &Prepared,
    result_type: ResultType,
    body: &T,
    own_meta: Option<Map<String, Value>>,
    cache: Option<CacheHints>,
    size: usize,
) -> Response {
    let shared = p.server.inner.result_meta.as_deref();
    let meta = match (own_meta, shared) {
        (None, Some(raw)) => Meta::Shared(raw),
        (None, None) => Meta::None,
        (Some(mut own), shared) => {
            // The handler's own keys win; server info is added beside them.
            if shared.is_some() && !own.contains_key(META_SERVER_INFO) {
                let info = serde_json::to_value(&p.server.inner.info).unwrap_or(Value::Null);
                own.insert(META_SERVER_INFO.into(), info);
            }
            Meta::Merged(own)
        }
    };
    let decorated = Decorated {
        result_type,
        body,
        ttl_ms: cache.map(|c| c.ttl_ms),
        cache_scope: cache.map(|c| c.cache_scope),
        meta,
    };
    match Response::result(p.id.clone(), &decorated, size) {
        Ok(response) => response,
        Err(e) => Response::error(
            Some(p.id.clone()),
            ErrorObject::internal(format!("The result could not be serialized: {e}")),
            Stage::Handler,
        ),
    }
}

/// The text of a tool result that is one plain text block and nothing
/// else: what most tools answer, written by [`Response::text_result`].
fn plain_text(result: &CallToolResult) -> Option<&str> {
    let CallToolResult { content, structured_content: None, is_error: None, meta: None } = result else {
        return None;
    };
    match content.as_slice() {
        [ContentBlock::Text(TextContent { text, annotations: None, meta: None })] => Some(text),
        _ => None,
    }
}

fn failed(p: &Prepared, error: ErrorObject) -> Response {
    Response::error(Some(p.id.clone()), error, Stage::Handler)
}

/// Runs a handler future, turning a panic into `-32603`.
async fn guarded<T>(fut: impl std::future::Future<Output = Result<T, ErrorObject>>) -> Result<T, ErrorObject> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(panic = %detail, "a handler panicked");
            Err(ErrorObject::internal("The handler failed unexpectedly"))
        }
    }
}

/// Step 16: the answers of earlier rounds (from a verified `requestState`,
/// which must have been issued for the same arguments, of digest `digest`)
/// merged with this round's `inputResponses`; without either, the state is
/// only made if the handler asks for input.
fn input_slot(
    p: &Prepared,
    target: &str,
    digest: impl FnOnce() -> Option<String>,
    responses: Option<Value>,
    request_state: Option<&str>,
) -> Result<InputSlot, ErrorObject> {
    if request_state.is_none() && matches!(responses, None | Some(Value::Null)) {
        return Ok(InputSlot::Available(OnceLock::new()));
    }
    let digest = digest();
    let sealed = match request_state {
        Some(state) => p.server.inner.request_state_key.open(p.method, target, digest.as_deref(), state)?,
        None => SealedState::default(),
    };
    let mut answers = sealed.answers;
    match responses {
        None | Some(Value::Null) => {}
        Some(Value::Object(new)) => answers.extend(new),
        Some(_) => return Err(ErrorObject::invalid_params("`inputResponses` must be an object")),
    }
    let state = Arc::new(InputState::new(answers, sealed.app, Arc::clone(&p.meta), digest));
    Ok(InputSlot::Available(OnceLock::from(state)))
}

/// Runs a handler that may stop to ask for input, sealing what it needs to
/// resume into `requestState`.
async fn interruptible<T, F>(
    p: &Prepared,
    target: &str,
    context: RequestContext,
    start: impl FnOnce() -> F + Send,
) -> Result<Outcome<T>, ErrorObject>
where
    F: std::future::Future<Output = Result<Outcome<T>, ErrorObject>> + Send + Unpin,
{
    let key = &p.server.inner.request_state_key;
    let method = p.method;
    // The handler hears through its token of the request being given up on.
    let watched = context.clone();
    let run = guarded(async move {
        match Interruptible::new(start(), context).await {
            // A result the handler built itself asks only what this client
            // can answer, as the `Input` API checks while it asks.
            Ok(Ok(Outcome::InputRequired(body))) => {
                check_input_requests(p, body.input_requests.as_ref())?;
                Ok(Outcome::InputRequired(body))
            }
            Ok(outcome) => outcome,
            Err(Interrupted::MissingCapabilities(needed)) => Err(ErrorObject::missing_client_capability(
                "This request needs client capabilities it did not declare",
                Value::Object(needed),
            )),
            Err(Interrupted::NeedsInput { requests, answers, app_state, digest }) => {
                let state = key.seal(method, target, digest.as_deref(), &SealedState { answers, app: app_state });
                Ok(Outcome::InputRequired(InputRequiredResult {
                    input_requests: (!requests.is_empty()).then_some(requests),
                    request_state: Some(state),
                    meta: None,
                }))
            }
        }
    });
    Handled::new(run, watched).await
}

/// The outcome of a handler as a response: complete results get `cache`.
fn outcome_response<T: Serialize>(
    p: &Prepared,
    outcome: Result<Outcome<T>, ErrorObject>,
    take_meta: impl FnOnce(&mut T) -> Option<Map<String, Value>>,
    cache: Option<CacheHints>,
) -> Response {
    match outcome {
        Ok(Outcome::Complete(mut body)) => {
            let own = take_meta(&mut body);
            finish(p, ResultType::Complete, &body, own, cache)
        }
        Ok(Outcome::InputRequired(mut body)) => {
            if body.input_requests.is_none() && body.request_state.is_none() {
                return failed(
                    p,
                    ErrorObject::internal("An input_required result needs inputRequests or requestState"),
                );
            }
            let own = body.meta.take();
            finish(p, ResultType::InputRequired, &body, own, None)
        }
        Err(e) => failed(p, e),
    }
}

/// The capabilities `requests` need that this client did not declare, as
/// `-32021`.
fn check_input_requests(p: &Prepared, requests: Option<&Map<String, Value>>) -> Result<(), ErrorObject> {
    let mut missing = Map::new();
    for (key, request) in requests.into_iter().flatten() {
        let request = InputRequest::deserialize(request).map_err(|e| {
            ErrorObject::internal(format!(
                "`inputRequests.{key}` is not an elicitation, sampling or roots request: {e}"
            ))
        })?;
        input::merge(&mut missing, input::missing_capabilities(&request, &p.meta.client_capabilities));
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(ErrorObject::missing_client_capability(
        "This request needs client capabilities it did not declare",
        Value::Object(missing),
    ))
}

pub(super) async fn run(mut p: Prepared, options: RequestOptions) -> Response {
    // Taken out so that its params move into the call rather than being copied.
    let route = std::mem::replace(&mut p.route, Route::Discover);
    let http = std::mem::take(&mut p.http);
    let p = &p;
    let inner = &*p.server.inner;
    let snapshot = &*p.snapshot;
    // Each route makes at most one context, which takes the options over.
    let context = |options: RequestOptions, input: InputSlot| {
        let RequestOptions { sink, cancellation } = options;
        RequestContext::new(p.id.clone(), p.method, p.meta.clone(), sink, cancellation, input, p.server.clone(), http)
    };
    match route {
        Route::Discover => finish(p, ResultType::Complete, &snapshot.discover, None, Some(inner.discover_cache)),
        Route::List(kind, start) => {
            let c = &snapshot.catalog;
            let key = kind.key();
            let (range, next_cursor) =
                pagination::page(key, start, kind.len(c), inner.page_size, |i| kind.sort_key(c, i));
            // Only this page's definitions, serialized when the server was built.
            let items: Vec<&RawValue> = match kind {
                ListKind::Tools => c.tools[range].iter().map(|t| &*t.json).collect(),
                ListKind::Prompts => c.prompts[range].iter().map(|t| &*t.json).collect(),
                ListKind::Resources => c.resources[range].iter().map(|t| &*t.json).collect(),
                ListKind::Templates => c.templates[range].iter().map(|t| &*t.json).collect(),
            };
            let size = items.iter().map(|item| item.get().len() + 1).sum();
            let page = Page { key, items, next_cursor };
            finish_sized(p, ResultType::Complete, &page, None, Some(inner.list_cache), size)
        }
        Route::CallTool(params, position) => {
            let CallToolParams { name, arguments, input_responses, request_state } = params;
            let tool = &snapshot.catalog.tools[position].entry;
            let target = tool.definition.name.as_str();
            let digest = || Some(request_state::tool_arguments_digest(arguments.as_deref()));
            let input = match input_slot(p, target, digest, input_responses, request_state.as_deref()) {
                Ok(input) => input,
                Err(e) => return failed(p, e),
            };
            let cx = context(options, input);
            let call = ToolCall::new(name, arguments, cx.clone());
            let handler = &tool.handler;
            let outcome = interruptible(p, target, cx, move || handler(call)).await;
            if let Ok(Outcome::Complete(result)) = &outcome
                && let Some(text) = plain_text(result)
            {
                return Response::text_result(p.id.clone(), text, inner.result_meta.as_deref());
            }
            outcome_response(p, outcome, |r| r.meta.take(), None)
        }
        Route::GetPrompt(params, handler) => {
            let GetPromptParams { name, arguments, input_responses, request_state } = params;
            let arguments = arguments.unwrap_or_default();
            let digest = || Some(request_state::arguments_digest(&arguments));
            let input = match input_slot(p, &name, digest, input_responses, request_state.as_deref()) {
                Ok(input) => input,
                Err(e) => return failed(p, e),
            };
            let cx = context(options, input);
            let call = PromptCall::new(name.clone(), arguments, cx.clone());
            let outcome = interruptible(p, &name, cx, move || handler(call)).await;
            outcome_response(p, outcome, |r| r.meta.take(), None)
        }
        Route::ReadResource(params) => {
            let uri = params.uri.as_str();
            let (entry, variables) = match snapshot.catalog.resource(uri) {
                Some(entry) => (entry, Map::new()),
                None => match snapshot.catalog.match_template(uri) {
                    Some(found) => found,
                    None => return failed(p, ErrorObject::resource_not_found(uri)),
                },
            };
            let cache = entry.cache.unwrap_or(inner.read_cache);
            let input = match input_slot(p, uri, || None, params.input_responses, params.request_state.as_deref()) {
                Ok(input) => input,
                Err(e) => return failed(p, e),
            };
            let cx = context(options, input);
            let call = ResourceCall::new(uri, variables, cx.clone());
            let handler = Arc::clone(&entry.handler);
            let mime: Option<Arc<str>> = entry.mime_type_of().map(Arc::from);
            let outcome = interruptible(p, uri, cx, move || handler(call, mime)).await;
            let outcome = match outcome {
                Ok(Outcome::Complete(r)) if r.contents.is_empty() => Err(ErrorObject::resource_not_found(uri)),
                other => other,
            };
            outcome_response(p, outcome, |r| r.meta.take(), Some(cache))
        }
        Route::Complete(params) => {
            let completer = match &params.reference {
                CompletionReference::Prompt { name, .. } => {
                    snapshot.catalog.prompt(name).and_then(|e| e.completer.clone())
                }
                CompletionReference::Resource { uri } => snapshot
                    .catalog
                    .template(uri)
                    .or_else(|| snapshot.catalog.resource(uri))
                    .and_then(|e| e.completer.clone()),
            };
            let completion = match completer {
                None => Ok(Completion::default()),
                Some(complete) => {
                    let others = params.context.clone().map(|c| c.arguments).unwrap_or_default();
                    let cx = context(options, InputSlot::Unavailable);
                    let watched = cx.clone();
                    let call = CompleteCall::new(&params.argument.name, &params.argument.value, others, cx);
                    Handled::new(guarded(async move { complete(call).await }), watched).await
                }
            };
            match completion {
                Ok(mut completion) => {
                    if completion.values.len() > Completion::MAX_VALUES {
                        let known = completion.total;
                        completion = Completion::from_values(completion.values);
                        // The handler may know of more matches than it listed.
                        completion.total = completion.total.max(known);
                    }
                    finish(p, ResultType::Complete, &CompleteResult { completion }, None, None)
                }
                Err(e) => failed(p, e),
            }
        }
        Route::Listen(filter) => {
            listen::stream(&p.server, &p.id, &filter, &options).await;
            let meta = listen::closing_meta(&p.id);
            finish(p, ResultType::Complete, &EmptyBody {}, Some(meta), None)
        }
    }
}

/// The body of a result with no fields of its own.
#[derive(Serialize)]
struct EmptyBody {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::Annotations;

    #[test]
    fn only_a_lone_plain_text_block_takes_the_direct_writing() {
        assert_eq!(plain_text(&CallToolResult::text("hi")), Some("hi"));

        let mut with_error_flag = CallToolResult::text("hi");
        with_error_flag.is_error = Some(false);
        let mut with_meta = CallToolResult::text("hi");
        with_meta.meta = Some(Map::new());
        let mut structured = CallToolResult::text("hi");
        structured.structured_content = Some(json!({"a": 1}));
        let annotated = CallToolResult::new(vec![ContentBlock::Text(TextContent {
            text: "hi".into(),
            annotations: Some(Annotations::default()),
            meta: None,
        })]);
        let two = CallToolResult::new(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
        for other in [with_error_flag, with_meta, structured, annotated, two, CallToolResult::new(Vec::new())] {
            assert_eq!(plain_text(&other), None, "{other:?}");
        }
    }
}
