//! The stateless dispatcher: one request in, one response out.
//!
//! [`Server::prepare`] runs the validation pipeline in the order the protocol
//! digest pins (envelope → `_meta` → headers → version → routing → params →
//! header params) without touching any handler; [`Prepared::run`] then calls
//! the handler and decorates the result. Nothing is remembered between
//! requests: everything comes from the request itself.

mod envelope;
mod grace;
mod listen;
mod meta_memo;
mod methods;
mod pagination;
mod response;
mod single_pass;

use std::sync::Arc;

use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

pub use envelope::{ClientNotification, Message, Request, parse_message};
pub use response::{Response, Stage};

use crate::context::{DiscardNotifications, NotificationSink};
use crate::extension::HttpRequest;
use crate::header_param::HeaderParam;
use crate::protocol::member::{RawMember, read_members, skip};
use crate::protocol::{CallToolParams, ErrorObject, RequestMeta, SUPPORTED_VERSIONS, Tool};
use crate::server::{Server, Snapshot};
use envelope::Params;
use methods::Route;
use single_pass::ReadCall;

/// HTTP header checks (steps 9 and 13), supplied by the HTTP transport so
/// that they run at their place in the pipeline. stdio has no headers.
pub trait HeaderCheck: Send + Sync {
    /// Step 9: `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`,
    /// `prompts/get`, `resources/read`) `Mcp-Name` against the body. `name`
    /// is `params.name` or `params.uri` when the body has it as a string.
    fn check_request(&self, method: &str, protocol_version: &str, name: Option<&str>) -> Result<(), ErrorObject>;

    /// Step 13: `Mcp-Param-*` headers for the tool's `x-mcp-header` properties.
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
    method: &'static str,
    meta: Arc<RequestMeta>,
    route: Route,
    http: HttpRequest,
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
        self.method
    }

    /// Keeps the head of the HTTP request that carried this one, for the
    /// handler to read ([`RequestContext::http_request`](crate::RequestContext::http_request)).
    #[cfg(feature = "http")]
    pub(crate) fn attach_http_request(&mut self, parts: http::request::Parts) {
        self.http = HttpRequest::new(parts);
    }

    /// Runs the handler (if the method has one) and builds the response.
    /// A panic in the handler becomes `-32603` for this request only.
    ///
    /// Dropping the future before it finishes gives the request up: its
    /// cancellation token fires, and the handler runs on in a task of its
    /// own for the server's
    /// [cancellation grace](crate::ServerBuilder::cancellation_grace), so
    /// that it can react to the token, before it is dropped.
    pub fn run(self, options: RequestOptions) -> impl Future<Output = Response> + Send + 'static {
        // Boxed once (by `Graceful`): the handler's state is large, and
        // transports wrap it in a timeout and more, each of which would
        // copy it again.
        let grace = self.server.inner.cancellation_grace;
        grace::Graceful::new(methods::run(self, options), grace)
    }
}

/// What step 8 reads of raw params: `_meta`, and the member naming the
/// request's target, which step 9 compares with `Mcp-Name`.
struct ParamsHead<'a> {
    meta: RawMember<'a>,
    target: RawMember<'a>,
}

/// Reads a [`ParamsHead`] from an object, and only an object: a derived
/// struct would take an array's elements as its fields in order. A member
/// this does not read may repeat; one it reads may not.
struct HeadSeed {
    /// The member naming the target, for the methods that have one.
    target: Option<&'static str>,
}

impl<'de> DeserializeSeed<'de> for HeadSeed {
    type Value = ParamsHead<'de>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<ParamsHead<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for HeadSeed {
    type Value = ParamsHead<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamsHead<'de>, A::Error> {
        let mut members = [RawMember::default(); 2];
        match self.target {
            Some(target) => read_members(&mut map, &["_meta", target], &mut members, skip)?,
            None => read_members(&mut map, &["_meta"], &mut members[..1], skip)?,
        }
        let [meta, target] = members;
        Ok(ParamsHead { meta, target })
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
        match self.prepare(request, headers) {
            Ok(prepared) => prepared.run(options).await,
            Err(response) => *response,
        }
    }

    /// Steps 8 to 13 of the pipeline: everything that can reject a request
    /// before its handler runs.
    pub fn prepare(&self, request: Request, headers: Option<&dyn HeaderCheck>) -> Result<Prepared, Box<Response>> {
        let Request { id, method, params } = request;
        let fail = |id: &crate::protocol::RequestId, error: ErrorObject, stage: Stage| {
            Box::new(Response::error(Some(id.clone()), error, stage))
        };

        // Step 8: `params._meta` and its required keys.
        let (mut meta, target, body) = match params {
            Params::Raw(raw) => {
                let (meta, target) = read_head(&method, raw.as_deref()).map_err(|e| fail(&id, e, Stage::Meta))?;
                (meta, target, Body::Raw(raw))
            }
            Params::Call(ReadCall { meta, params }) => (meta, None, Body::Call(params)),
        };
        if !self.inner.features.logging && meta.log_level.is_some() {
            Arc::make_mut(&mut meta).log_level = None;
        }

        // Step 9: HTTP headers against the body.
        if let Some(headers) = headers {
            let name = match &body {
                Body::Call(params) => Some(params.name.as_str()),
                Body::Raw(_) => target.as_deref(),
            };
            headers.check_request(&method, &meta.protocol_version, name).map_err(|e| fail(&id, e, Stage::Headers))?;
        }

        // Step 10: the protocol version.
        if !SUPPORTED_VERSIONS.contains(&meta.protocol_version.as_str()) {
            let error = ErrorObject::unsupported_version(SUPPORTED_VERSIONS, &meta.protocol_version);
            return Err(fail(&id, error, Stage::Version));
        }

        // Step 11: routing, against one consistent view of what is served.
        let snapshot = self.snapshot();
        let Some(method) = methods::routable(&snapshot, &method) else {
            return Err(fail(&id, ErrorObject::method_not_found(&method), Stage::Routing));
        };

        // Steps 12 and 13: method params, then header params.
        let route = methods::route(&snapshot, method, body, headers).map_err(|(e, stage)| fail(&id, e, stage))?;
        if matches!(route, methods::Route::Listen(_)) && !id.has_exact_value() {
            // Every frame repeats the id as `subscriptionId`, inside
            // notification params that hold `serde_json::Value`s.
            let e = ErrorObject::invalid_params(
                "A `subscriptions/listen` id must be a string or an integer that fits in 64 bits: every notification of the stream repeats it",
            );
            return Err(fail(&id, e, Stage::Params));
        }
        Ok(Prepared { server: self.clone(), snapshot, id, method, meta, route, http: HttpRequest::default() })
    }
}

/// A request's params after step 8.
pub(crate) enum Body {
    /// Still raw: read by the method's route.
    Raw(Option<Box<RawValue>>),
    /// A `tools/call`'s params, read already.
    Call(CallToolParams),
}

/// Step 8 for raw params: the validated `_meta`, and `params.name` or
/// `params.uri` (by method) for the header checks of step 9.
fn read_head(method: &str, params: Option<&RawValue>) -> Result<(Arc<RequestMeta>, Option<String>), ErrorObject> {
    let target = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    let Some(raw) = params else {
        return Err(ErrorObject::invalid_params("Missing `params._meta`"));
    };
    // The text is JSON already, so the only way to fail is not to be an object.
    let head = HeadSeed { target }
        .deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
        .map_err(|_| ErrorObject::invalid_params("`params` must be an object"))?;
    let repeated = |name: &str| ErrorObject::invalid_params(format!("`params.{name}` appears more than once"));
    if head.meta.repeated {
        return Err(repeated("_meta"));
    }
    let Some(raw_meta) = head.meta.value else {
        return Err(ErrorObject::invalid_params("Missing `params._meta`"));
    };
    let meta = meta_memo::read(raw_meta.get())
        .map_err(|reason| ErrorObject::invalid_params(format!("Invalid `params._meta`: {reason}")))?;
    if let Some(name) = target.filter(|_| head.target.repeated) {
        return Err(repeated(name));
    }
    let target = head.target.value.and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
    Ok((meta, target))
}
