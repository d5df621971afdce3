//! The methods a server answers: one typed table of what each needs, and
//! each method's route (its params checked against what is served) and run
//! (its handler called, its result built) in a module of its own.
//!
//! A method name is read into a [`Method`] once per request; everything that
//! depends on the method (routing, the `Mcp-Method` and `Mcp-Name` header
//! checks, which params member is read ahead as the target, the fast
//! `tools/call` reading, streaming) asks it, and every question is an
//! exhaustive `match`: a method added without its entries does not compile.

mod complete;
mod discover;
mod listen;
mod lists;
mod prompts_get;
mod resources_read;
mod task_call;
mod tasks;
mod tools_call;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::response::{Response, Stage};
use super::{Body, HeaderCheck, Prepared, RequestOptions};
use crate::handler::context::{DiscardNotifications, InputSlot, RequestContext};
use crate::handler::functions::PromptFn;
use crate::handler::http_request::HttpRequest;
use crate::protocol::{
    CallToolParams, CompleteParams, ErrorObject, GetPromptParams, ReadResourceParams, RequestMeta, ServerCapabilities,
    SubscriptionFilter,
};
use crate::server::Snapshot;
use lists::ListKind;

/// Declares [`Method`] and the list of all its variants from one list, so
/// that [`Method::parse`] knows every method.
macro_rules! methods {
    ($($variant:ident),* $(,)?) => {
        /// A method this revision defines for a server.
        ///
        /// Anything else, `initialize` and `ping` of earlier revisions
        /// included, is not a `Method`: it is answered `-32601`, as is a
        /// method whose capability the server does not advertise.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Method {
            $($variant),*
        }

        impl Method {
            /// Every method, in the order [`Method::parse`] tries them.
            const ALL: &[Method] = &[$(Method::$variant),*];
        }
    };
}

// The most frequent first: parsing tries them in this order.
methods! {
    ToolsCall,
    Discover,
    ToolsList,
    PromptsList,
    PromptsGet,
    ResourcesList,
    ResourcesRead,
    ResourceTemplatesList,
    CompletionComplete,
    SubscriptionsListen,
    TasksGet,
    TasksUpdate,
    TasksCancel,
}

/// The params member naming a request's target, which the `Mcp-Name`
/// header repeats and `requestState` is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// `params.name`: a tool or a prompt.
    Name,
    /// `params.uri`: a resource.
    Uri,
    /// `params.taskId`: a task.
    TaskId,
}

impl Target {
    /// The member's name in `params`.
    pub(crate) const fn member(self) -> &'static str {
        match self {
            Target::Name => "name",
            Target::Uri => "uri",
            Target::TaskId => "taskId",
        }
    }
}

/// What a server must advertise for a method to be routed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Capability {
    /// Nothing: every server answers the method.
    Always,
    Tools,
    Prompts,
    Resources,
    Completions,
    /// Some notification kind that can be subscribed to.
    Subscriptions,
    /// The tasks extension.
    Tasks,
}

impl Capability {
    fn is_advertised(self, caps: &ServerCapabilities) -> bool {
        match self {
            Capability::Always => true,
            Capability::Tools => caps.tools.is_some(),
            Capability::Prompts => caps.prompts.is_some(),
            Capability::Resources => caps.resources.is_some(),
            Capability::Completions => caps.completions.is_some(),
            Capability::Subscriptions => listen::is_offered(caps),
            Capability::Tasks => tasks::is_offered(caps),
        }
    }
}

impl Method {
    /// The method named `name` on the wire, if this revision defines it.
    pub(crate) fn parse(name: &str) -> Option<Method> {
        Method::ALL.iter().copied().find(|method| method.name() == name)
    }

    /// The method's name on the wire.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Method::ToolsCall => "tools/call",
            Method::Discover => "server/discover",
            Method::ToolsList => "tools/list",
            Method::PromptsList => "prompts/list",
            Method::PromptsGet => "prompts/get",
            Method::ResourcesList => "resources/list",
            Method::ResourcesRead => "resources/read",
            Method::ResourceTemplatesList => "resources/templates/list",
            Method::CompletionComplete => "completion/complete",
            Method::SubscriptionsListen => "subscriptions/listen",
            Method::TasksGet => "tasks/get",
            Method::TasksUpdate => "tasks/update",
            Method::TasksCancel => "tasks/cancel",
        }
    }

    /// What the server must advertise for the method to exist.
    const fn capability(self) -> Capability {
        match self {
            Method::Discover => Capability::Always,
            Method::ToolsList | Method::ToolsCall => Capability::Tools,
            Method::PromptsList | Method::PromptsGet => Capability::Prompts,
            Method::ResourcesList | Method::ResourcesRead | Method::ResourceTemplatesList => Capability::Resources,
            Method::CompletionComplete => Capability::Completions,
            Method::SubscriptionsListen => Capability::Subscriptions,
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => Capability::Tasks,
        }
    }

    /// Whether this server answers the method: a method it does not
    /// advertise is answered as one that does not exist.
    pub(super) fn is_offered(self, caps: &ServerCapabilities) -> bool {
        self.capability().is_advertised(caps)
    }

    /// The params member naming the request's target, for the methods
    /// that have one: `Mcp-Name` must repeat it.
    pub(crate) const fn target(self) -> Option<Target> {
        match self {
            Method::ToolsCall | Method::PromptsGet => Some(Target::Name),
            Method::ResourcesRead => Some(Target::Uri),
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => Some(Target::TaskId),
            Method::Discover
            | Method::ToolsList
            | Method::PromptsList
            | Method::ResourcesList
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::SubscriptionsListen => None,
        }
    }

    /// Whether the answer is a stream of notifications that lasts until
    /// the client gives it up, rather than one result.
    pub(crate) const fn streams(self) -> bool {
        match self {
            Method::SubscriptionsListen => true,
            Method::ToolsCall
            | Method::Discover
            | Method::ToolsList
            | Method::PromptsList
            | Method::PromptsGet
            | Method::ResourcesList
            | Method::ResourcesRead
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::TasksGet
            | Method::TasksUpdate
            | Method::TasksCancel => false,
        }
    }
}

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
    Task(tasks::TaskRequest),
}

/// Reads a method's params (an absent `params` reads as `{}`); what does
/// not fit is `-32602`.
fn params_of<'de, T: Deserialize<'de>>(
    method: Method,
    params: Option<&'de RawValue>,
) -> Result<T, (ErrorObject, Stage)> {
    let text = params.map(RawValue::get).unwrap_or("{}");
    serde_json::from_str(text).map_err(|e| {
        (ErrorObject::invalid_params(format!("Invalid params for `{}`: {e}", method.name())), Stage::Params)
    })
}

/// Checks a routed method's params against what the snapshot serves (and,
/// for `tools/call`, the `Mcp-Param-*` headers against its arguments).
pub(super) fn route(
    snapshot: &Snapshot,
    method: Method,
    body: Body,
    headers: Option<&dyn HeaderCheck>,
    meta: &RequestMeta,
) -> Result<Route, (ErrorObject, Stage)> {
    let raw = match body {
        Body::Call(p) => return tools_call::route(snapshot, p, headers),
        Body::Raw(raw) => raw,
    };
    let params = raw.as_deref();
    match method {
        Method::Discover => Ok(Route::Discover),
        Method::ToolsList => lists::route(snapshot, method, ListKind::Tools, params),
        Method::PromptsList => lists::route(snapshot, method, ListKind::Prompts, params),
        Method::ResourcesList => lists::route(snapshot, method, ListKind::Resources, params),
        Method::ResourceTemplatesList => lists::route(snapshot, method, ListKind::Templates, params),
        Method::ToolsCall => tools_call::route(snapshot, params_of(method, params)?, headers),
        Method::PromptsGet => prompts_get::route(snapshot, params_of(method, params)?),
        Method::ResourcesRead => resources_read::route(params_of(method, params)?),
        Method::CompletionComplete => complete::route(snapshot, params_of(method, params)?),
        Method::SubscriptionsListen => listen::route(snapshot, params_of(method, params)?, meta),
        Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => tasks::route(method, params, meta),
    }
}

/// The name or URI a route's request names, for the scope check.
pub(super) fn target_of(route: &Route) -> Option<&str> {
    match route {
        Route::CallTool(params, _) => Some(&params.name),
        Route::GetPrompt(params, _) => Some(&params.name),
        Route::ReadResource(params) => Some(&params.uri),
        Route::Discover | Route::List(..) | Route::Complete(_) | Route::Listen(_) | Route::Task(_) => None,
    }
}

/// What a route's handler context is made of besides the request itself.
struct ContextParts {
    options: RequestOptions,
    http: HttpRequest,
}

impl ContextParts {
    /// The handler's context: each route makes at most one, which takes
    /// the transport's options over.
    fn context(self, p: &Prepared, input: InputSlot) -> RequestContext {
        let RequestOptions { sink, cancellation } = self.options;
        let method = p.method.name();
        RequestContext::new(
            p.id.clone(),
            method,
            p.meta.clone(),
            sink,
            cancellation,
            input,
            p.server.access(),
            self.http,
        )
    }

    /// The context of a handler that runs as a task: it outlives the
    /// request, so it has none of the transport's sink or token (progress
    /// and log messages go nowhere: the tasks extension carries neither),
    /// and `cancel` fires on `tasks/cancel`.
    fn task_context(self, p: &Prepared, input: InputSlot, cancel: CancellationToken) -> RequestContext {
        let options = RequestOptions { sink: DiscardNotifications::shared(), cancellation: Some(cancel) };
        ContextParts { options, http: self.http }.context(p, input)
    }

    /// A context that only says who makes the request (for a route without
    /// a handler), and the transport's options.
    fn split(self, p: &Prepared) -> (RequestContext, RequestOptions) {
        let options = self.options.clone();
        let quiet = RequestOptions { sink: DiscardNotifications::shared(), cancellation: None };
        (ContextParts { options: quiet, http: self.http }.context(p, InputSlot::Unavailable), options)
    }
}

/// Runs a prepared request's handler and builds its response.
pub(super) async fn run(mut p: Prepared, options: RequestOptions) -> Response {
    // The HTTP transports refuse with 403 before they run a request; this
    // covers the requests they run without that check (a 2025-03-26 batch).
    if let Some(refusal) = p.scope_refusal() {
        return Response::error(Some(p.id.clone()), refusal.error(), Stage::Params);
    }
    // Taken out so that its params move into the call rather than being copied.
    let route = std::mem::replace(&mut p.route, Route::Discover);
    let parts = ContextParts { options, http: std::mem::take(&mut p.http) };
    let p = &p;
    match route {
        Route::Discover => discover::run(p),
        Route::List(kind, start) => lists::run(p, kind, start),
        Route::CallTool(params, position) => tools_call::run(p, params, position, parts).await,
        Route::GetPrompt(params, handler) => prompts_get::run(p, params, handler, parts).await,
        Route::ReadResource(params) => resources_read::run(p, params, parts).await,
        Route::Complete(params) => complete::run(p, params, parts).await,
        Route::Listen(filter) => listen::run(p, filter, parts).await,
        // Boxed, like any rare path: the future of every request is as large
        // as its largest route's.
        Route::Task(request) => Box::pin(tasks::run(p, request, parts)).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_read_back_from_its_name_and_nothing_else_is_a_method() {
        for &method in Method::ALL {
            assert_eq!(Method::parse(method.name()), Some(method));
        }
        for other in ["initialize", "ping", "tools/call ", "Tools/call", "notifications/cancelled", ""] {
            assert_eq!(Method::parse(other), None, "{other}");
        }
    }
}
