//! The stateless dispatcher: one request in, one response out.
//!
//! [`Server::prepare`] runs the validation pipeline in the order the protocol
//! digest pins (envelope → `_meta` → headers → version → routing → params →
//! header params) without touching any handler; [`Prepared::run`] then calls
//! the handler and decorates the result. Nothing is remembered between
//! requests: everything comes from the request itself.

mod decorate;
mod envelope;
mod grace;
mod meta_cache;
mod method;
mod nesting;
mod observed;
mod pagination;
mod params_head;
mod request;
mod response;
mod round_trip;
mod tools_call_reader;
mod visible;

use std::sync::Arc;

use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

pub use envelope::{ClientNotification, Message, Request, parse_message};
pub use response::{Response, Stage};

use crate::handler::context::{DiscardNotifications, NotificationSink};
use crate::handler::http_request::HttpRequest;
#[cfg(feature = "http")]
use crate::handler::principal::Principal;
use crate::protocol::{CallToolParams, ErrorObject, RequestMeta, SUPPORTED_VERSIONS, Tool};
use crate::registry::param_headers::HeaderParam;
use crate::registry::scopes::{self, Access, ScopeRefusal};
use crate::server::{Server, Snapshot};
use crate::telemetry::{self, Observation, Origin};
use envelope::Params;
pub(crate) use method::Method;
use method::Route;
use tools_call_reader::ReadCall;

/// The HTTP header checks, supplied by the HTTP transport so that they run
/// at their place in the pipeline: the request headers once `_meta` is
/// read, the `Mcp-Param-*` headers once the tool's params are. stdio has
/// no headers.
pub trait HeaderCheck: Send + Sync {
    /// `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`,
    /// `prompts/get`, `resources/read`, and `tasks/get`, `tasks/update`,
    /// `tasks/cancel`) `Mcp-Name` against the body. `name` is
    /// `params.name`, `params.uri` or `params.taskId` when the body has it
    /// as a string.
    fn check_request(&self, method: &str, protocol_version: &str, name: Option<&str>) -> Result<(), ErrorObject>;

    /// `Mcp-Param-*` headers for the tool's `x-mcp-header` properties.
    fn check_tool_arguments(&self, tool: CalledTool<'_>, arguments: Option<&RawValue>) -> Result<(), ErrorObject>;
}

/// The tool a `tools/call` names, as [`HeaderCheck::check_tool_arguments`]
/// sees it: its definition and, ready for lookups, the arguments it
/// mirrors into `Mcp-Param-*` headers.
#[derive(Debug, Clone, Copy)]
pub struct CalledTool<'a> {
    definition: &'a Tool,
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    header_params: &'a [HeaderParam],
}

impl<'a> CalledTool<'a> {
    /// The tool's definition.
    pub fn definition(&self) -> &'a Tool {
        self.definition
    }

    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn header_params(&self) -> &'a [HeaderParam] {
        self.header_params
    }
}

/// What a transport provides for one request besides the message.
#[derive(Clone)]
pub struct RequestOptions {
    /// Where request-scoped notifications (progress, log messages) go.
    pub sink: Arc<dyn NotificationSink>,
    /// Cancelled when the client gives up on the request, for transports
    /// that learn of it by message (stdio's `notifications/cancelled`).
    ///
    /// `None` when giving up means dropping the request's future (a closed
    /// HTTP connection, a timeout): a handler that asks for a token then
    /// gets one made on the spot, cancelled if the future is dropped before
    /// the handler finishes (which then has the server's cancellation
    /// grace to react). Most handlers never ask, and pay nothing.
    pub cancellation: Option<CancellationToken>,
}

impl Default for RequestOptions {
    /// Notifications discarded; cancelled by dropping the future.
    fn default() -> Self {
        RequestOptions { sink: DiscardNotifications::shared(), cancellation: None }
    }
}

/// A request that passed validation, ready to run.
pub struct Prepared {
    server: Server,
    snapshot: Arc<Snapshot>,
    id: crate::protocol::RequestId,
    method: Method,
    meta: Arc<RequestMeta>,
    route: Route,
    http: HttpRequest,
    /// What its caller may see and use: checked only on an authenticated
    /// server, for a request that came over HTTP.
    access: Access,
    /// Its span and measurements, from its arrival.
    observation: Observation,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared").field("id", &self.id).field("method", &self.method).finish_non_exhaustive()
    }
}

impl Prepared {
    /// The request's validated `_meta`.
    pub fn meta(&self) -> &RequestMeta {
        &self.meta
    }

    /// The request's method.
    pub fn method(&self) -> &'static str {
        self.method.name()
    }

    /// Whether the answer is a stream of notifications that lasts as long
    /// as the client wants it (`subscriptions/listen`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn streams(&self) -> bool {
        self.method.streams()
    }

    /// Ends the request with `refusal` instead of running it (a transport
    /// check that comes after the pipeline's), which its span records.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn refuse(mut self, refusal: &Response) {
        self.observation.finish(telemetry::Ending::Answered(refusal));
    }

    /// Keeps the head of the HTTP request that carried this one, for the
    /// handler to read ([`RequestContext::http_request`](crate::RequestContext::http_request)).
    #[cfg(feature = "http")]
    pub(crate) fn attach_http_request(&mut self, parts: http::request::Parts) {
        let authenticated = self.server.settings().authenticated;
        if authenticated {
            self.access = Access::of(authenticated, parts.extensions.get::<Principal>());
        }
        self.http = HttpRequest::new(parts);
    }

    /// The refusal of a request for an entry whose scopes its caller
    /// lacks; `None` when it may go on (or nothing is checked).
    pub(crate) fn scope_refusal(&self) -> Option<ScopeRefusal> {
        if !self.access.is_checked() {
            return None;
        }
        let target = method::target_of(&self.route)?;
        scopes::check(self.snapshot.catalog(), &self.access, self.method.name(), target)
    }

    /// Runs the handler (if the method has one) and builds the response.
    /// A panic in the handler becomes `-32603` for this request only.
    ///
    /// Dropping the future before it finishes gives the request up: its
    /// cancellation token fires, and the handler runs on in a task of its
    /// own for the server's
    /// [cancellation grace](crate::ServerBuilder::cancellation_grace), so
    /// that it can react to the token, before it is dropped.
    ///
    /// The handler runs in the request's span, through its grace too; the
    /// observation of the request ends with the response, or when the
    /// future is dropped before it.
    pub fn run(mut self, options: RequestOptions) -> impl Future<Output = Response> + Send + 'static {
        // Boxed once (by `Graceful`): the handler's state is large, and
        // transports wrap it in a timeout and more, each of which would
        // copy it again.
        let grace = self.server.settings().cancellation_grace;
        let mut observation = std::mem::take(&mut self.observation);
        if let Some(token) = &options.cancellation {
            observation.cancelled_by(token);
        }
        grace::Graceful::new(method::run(self, options), grace, observation)
    }
}

impl Server {
    /// Serves one raw message: `None` for a notification (never answered),
    /// otherwise the response. Transports with headers call
    /// [`parse_message`], [`prepare`](Self::prepare) and [`Prepared::run`]
    /// themselves.
    pub async fn handle_bytes(&self, bytes: &[u8], options: RequestOptions) -> Option<Response> {
        match parse_message(bytes) {
            Err(response) => Some(*response),
            Ok(Message::Notification(_)) => None,
            Ok(Message::Request(request)) => Some(self.handle(request, None, options).await),
        }
    }

    /// Serves one request.
    pub async fn handle(
        &self,
        request: Request,
        headers: Option<&dyn HeaderCheck>,
        options: RequestOptions,
    ) -> Response {
        self.handle_from(request, headers, options, Origin::default()).await
    }

    /// Everything that can reject a request before its handler runs, in
    /// the order the protocol pins: `_meta`, the HTTP headers, the protocol
    /// version, routing, the method's params, the `Mcp-Param-*` headers.
    pub fn prepare(&self, request: Request, headers: Option<&dyn HeaderCheck>) -> Result<Prepared, Box<Response>> {
        self.prepare_from(request, headers, Origin::default())
    }

    /// The checks of [`prepare`](Self::prepare), unobserved.
    fn validate(&self, request: Request, headers: Option<&dyn HeaderCheck>) -> Result<Prepared, Box<Response>> {
        let Request { id, method, params } = request;
        let fail = |id: &crate::protocol::RequestId, error: ErrorObject, stage: Stage| {
            Box::new(Response::error(Some(id.clone()), error, stage))
        };

        // The method is read once; an unknown one is refused at routing,
        // after the checks that come before it.
        let (known, mut meta, target, body) = match params {
            Params::Raw(raw) => {
                let known = Method::parse(&method);
                let target = known.and_then(Method::target);
                let (meta, target) = params_head::read(target, raw.as_deref())
                    .map_err(|e| fail(&id, params_head::missing_meta(e, self.eras().versions()), Stage::Meta))?;
                (known, meta, target, Body::Raw(raw))
            }
            Params::Call(ReadCall { meta, params }) => (Some(Method::ToolsCall), meta, None, Body::Call(params)),
        };
        if !self.settings().logging && meta.log_level.is_some() {
            Arc::make_mut(&mut meta).log_level = None;
        }

        // The HTTP headers against the body.
        if let Some(headers) = headers {
            let name = match &body {
                Body::Call(params) => Some(params.name.as_str()),
                Body::Raw(_) => target.as_deref(),
            };
            headers.check_request(&method, &meta.protocol_version, name).map_err(|e| fail(&id, e, Stage::Headers))?;
        }

        // The protocol version.
        if !SUPPORTED_VERSIONS.contains(&meta.protocol_version.as_str()) {
            let error = ErrorObject::unsupported_version(self.eras().versions(), &meta.protocol_version);
            return Err(fail(&id, error, Stage::Version));
        }

        // Routing, against one consistent view of what is served: a method
        // the server does not advertise does not exist.
        let snapshot = self.snapshot();
        let Some(method) = known.filter(|known| known.is_offered(snapshot.capabilities())) else {
            return Err(fail(&id, ErrorObject::method_not_found(&method), Stage::Routing));
        };

        // The method's params, then (for `tools/call`) the header params.
        let route = method::route(&snapshot, method, body, headers, &meta).map_err(|(e, stage)| fail(&id, e, stage))?;
        if method.streams() && !id.has_exact_value() {
            // Every frame repeats the id as `subscriptionId`, inside
            // notification params that hold `serde_json::Value`s.
            let e = ErrorObject::invalid_params(
                "A `subscriptions/listen` id must be a string or an integer that fits in 64 bits: every notification of the stream repeats it",
            );
            return Err(fail(&id, e, Stage::Params));
        }
        Ok(Prepared {
            server: self.clone(),
            snapshot,
            id,
            method,
            meta,
            route,
            http: HttpRequest::default(),
            access: Access::Unchecked,
            observation: Observation::default(),
        })
    }
}

/// A request's params once `_meta` is read.
pub(crate) enum Body {
    /// Still raw: read by the method's route.
    Raw(Option<Box<RawValue>>),
    /// A `tools/call`'s params, read already.
    Call(CallToolParams),
}

/// The readers of this module, for [`crate::fuzzing`].
#[cfg(feature = "fuzzing")]
pub(crate) mod fuzzing {
    use std::sync::Arc;

    use serde_json::value::RawValue;

    use super::{Method, meta_cache, pagination, params_head};
    use crate::protocol::{ErrorObject, RequestMeta};

    pub(crate) fn read_meta(text: &str) -> Result<Arc<RequestMeta>, String> {
        meta_cache::read(text)
    }

    pub(crate) fn read_params_head(
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<(Arc<RequestMeta>, Option<String>), ErrorObject> {
        params_head::read(Method::parse(method).and_then(Method::target), params)
    }

    pub(crate) fn decode_cursor(cursor: &str, list: &str) -> Result<Option<(String, String)>, ErrorObject> {
        pagination::decode(Some(cursor), list)
    }

    pub(crate) fn encode_cursor(list: &str, last: (&str, &str)) -> String {
        pagination::encode(list, last)
    }
}
