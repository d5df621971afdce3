//! What a layer sees of a request ([`McpRequest`]), and the answers it can
//! make for it.

use std::net::SocketAddr;
use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::handler::caller::Caller;
use crate::handler::principal::Principal;
use crate::input::request_state::Round;
use crate::protocol::{
    CallToolResult, ClientCapabilities, ErrorObject, Implementation, Method, RequestId, RequestMeta, ResultType, Tool,
};
use crate::response::Response;

/// What a layer sees of a request, made once per request that passes
/// layers.
pub(crate) struct View {
    pub(crate) method: Method,
    pub(crate) target: Option<String>,
    pub(crate) arguments: Option<Box<RawValue>>,
    pub(crate) meta: Arc<RequestMeta>,
    pub(crate) caller: Caller,
    pub(crate) principal: Option<Principal>,
    pub(crate) client_address: Option<SocketAddr>,
    pub(crate) task: bool,
    /// The round a retry resumes: set only when it carried a state this
    /// server sealed for this caller, which opened.
    pub(crate) round: Option<Round>,
    /// Whether it carried `inputResponses` or a `requestState` at all.
    #[cfg_attr(not(feature = "cache"), allow(dead_code))]
    pub(crate) carries_input: bool,
    /// Whether it came over HTTP.
    #[cfg_attr(not(feature = "cache"), allow(dead_code))]
    pub(crate) over_http: bool,
    /// How answers are written for the request, by the dispatcher.
    pub(crate) answers: Box<dyn Answer>,
}

/// What the dispatcher provides a layer's view with: the request's id and
/// session, the called tool, and answers written as the request's era
/// reads them.
pub(crate) trait Answer: Send + Sync {
    /// The request's id.
    fn id(&self) -> &RequestId;
    /// The revision the request's results are written for, when its
    /// client reads an older one than 2026-07-28 (a 2025-era session's).
    fn older_revision(&self) -> Option<crate::protocol::ProtocolVersion>;
    /// The definition of the tool a `tools/call` names.
    fn tool(&self) -> Option<&Tool>;
    /// The name of the server serving the request.
    #[cfg_attr(not(feature = "cache"), allow(dead_code))]
    fn server_name(&self) -> &str;
    /// Whether that tool opted into having its content recorded.
    fn records_content(&self) -> bool;
    /// An error answer.
    fn error(&self, error: ErrorObject) -> Response;
    /// A result of `kind`, with `_meta` keys of its own.
    fn result(&self, kind: ResultType, body: Map<String, Value>, own_meta: Option<Map<String, Value>>) -> Response;
}

/// A request as a [`Layer`](crate::middleware::Layer) sees it: validated,
/// allowed by the caller's scopes, about to reach its handler. Cheap to
/// clone (one shared pointer).
///
/// ```
/// use mcp_runtime::middleware::{self, McpRequest, Next};
///
/// let log_calls = middleware::from_fn(|request: McpRequest, next: Next| async move {
///     let who = request.principal().and_then(|p| p.subject()).unwrap_or("anonymous").to_owned();
///     let what = format!("{} {}", request.method().name(), request.target().unwrap_or(""));
///     let response = next.run(request).await;
///     tracing::info!(%who, %what, failed = response.as_error().is_some(), "served");
///     response
/// });
/// # let _ = log_calls;
/// ```
#[derive(Clone)]
pub struct McpRequest(pub(crate) Arc<View>);

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("id", self.0.answers.id())
            .field("method", &self.0.method)
            .field("target", &self.0.target)
            .finish_non_exhaustive()
    }
}

impl McpRequest {
    /// The method, in either era (a 2025-era session's `tools/call` is
    /// [`Method::ToolsCall`] too).
    pub fn method(&self) -> Method {
        self.0.method
    }

    /// The request's id.
    pub fn id(&self) -> &RequestId {
        self.0.answers.id()
    }

    /// What the request names: the tool of a `tools/call`, the prompt of a
    /// `prompts/get`, the URI of a `resources/read`, the task of a task
    /// method; `None` for the others.
    pub fn target(&self) -> Option<&str> {
        self.0.target.as_deref()
    }

    /// The arguments of a `tools/call` or a `prompts/get`, as a JSON
    /// object (a tool's as the client sent them); `None` for other methods
    /// and for a request without arguments.
    pub fn arguments(&self) -> Option<&RawValue> {
        self.0.arguments.as_deref()
    }

    /// The definition of the tool a `tools/call` names (its annotations
    /// say whether it is read-only, idempotent, ...).
    pub fn tool(&self) -> Option<&Tool> {
        self.0.answers.tool()
    }

    /// Who makes the request, on a server that authenticates its callers
    /// (HTTP with [`ServerBuilder::authorization`](crate::ServerBuilder)
    /// or an authentication layer in front); `None` otherwise.
    pub fn principal(&self) -> Option<&Principal> {
        self.0.principal.as_ref()
    }

    /// The address the request came from over HTTP: the connection's peer
    /// on the standalone server ([`Server::serve_http`]), or the address
    /// [trusted proxies] forwarded; in a mounted service, the one its host
    /// application gave (see [`McpService`]). `None` over stdio and in
    /// process.
    #[cfg_attr(
        feature = "http",
        doc = "\n\n[`Server::serve_http`]: crate::Server::serve_http\n\
               [trusted proxies]: crate::transport::http::HttpConfig::trusted_proxies\n\
               [`McpService`]: crate::transport::http::McpService"
    )]
    // Without the feature (no address, ever), the names lead to the transports.
    #[cfg_attr(
        not(feature = "http"),
        doc = "\n\n[`Server::serve_http`]: crate::transport\n[trusted proxies]: crate::transport\n\
               [`McpService`]: crate::transport"
    )]
    pub fn client_address(&self) -> Option<SocketAddr> {
        self.0.client_address
    }

    /// Who makes the request, as limits and caches tell callers apart: the
    /// principal, else the client's address (see [`Caller`]). What a layer
    /// that counts or keeps something per caller keys it by.
    pub fn caller(&self) -> Caller {
        self.0.caller
    }

    /// The client's name and version, when it sent them.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.0.meta.client_info.as_ref()
    }

    /// The capabilities the client declared.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.0.meta.client_capabilities
    }

    /// The protocol revision the request is answered in: `2026-07-28`, or
    /// the version a 2025-era session negotiated.
    pub fn protocol_version(&self) -> &str {
        self.0.answers.older_revision().map_or(&self.0.meta.protocol_version, |v| v.as_str())
    }

    /// The request's validated `_meta`.
    pub fn meta(&self) -> &RequestMeta {
        &self.0.meta
    }

    /// Whether the tool a `tools/call` names opted into having its
    /// arguments and results recorded
    /// ([`ToolEntry::trace_content`](crate::entry::ToolEntry::trace_content),
    /// the opt-in of request spans too): what a layer that logs should
    /// honour.
    pub fn records_content(&self) -> bool {
        self.0.answers.records_content()
    }

    /// Whether this is a `tools/call` that runs as a task (the layers run
    /// inside the task then, around its work).
    pub fn is_task(&self) -> bool {
        self.0.task
    }

    /// Whether this is a later round of a request whose handler asked for
    /// input: it carries a `requestState` that this server sealed for this
    /// caller, and that opened (checked before any layer runs). Answers
    /// alone (`inputResponses`) do not make a later round, nor does a state
    /// that does not open, which the request then fails with.
    ///
    /// A state may be sent again while it lives: a layer that grants a
    /// later round something once (a rate limit that does not count it)
    /// keeps track of which rounds it granted; [`RateLimit`](crate::middleware)
    /// does.
    pub fn is_later_round(&self) -> bool {
        self.0.round.is_some()
    }

    /// An error answer to the request, as a layer that refuses it returns
    /// it.
    pub fn error(&self, error: ErrorObject) -> Response {
        self.0.answers.error(error)
    }

    /// A `tools/call` answer that is a tool error (`isError: true`) with
    /// `message`: what the model reads, as a handler's own error would be.
    pub fn tool_error(&self, message: impl Into<String>) -> Response {
        self.reply(&CallToolResult::error(message))
    }

    /// A result answer to the request, written as its era reads it (with
    /// `resultType` and the server's `_meta` in 2026-07-28, as the
    /// session's version reads it in a 2025-era session). A `_meta` of
    /// `result`'s own is kept; a `resultType` is written anew.
    pub fn reply<T: Serialize + ?Sized>(&self, result: &T) -> Response {
        let mut body = match serde_json::to_value(result) {
            Ok(Value::Object(body)) => body,
            Ok(_) => return self.error(ErrorObject::internal("A layer's result is not a JSON object")),
            Err(e) => {
                return self.error(ErrorObject::internal(format!("A layer's result could not be serialized: {e}")));
            }
        };
        body.remove("resultType");
        let own_meta = match body.remove("_meta") {
            Some(Value::Object(meta)) => Some(meta),
            _ => None,
        };
        self.0.answers.result(ResultType::Complete, body, own_meta)
    }
}
