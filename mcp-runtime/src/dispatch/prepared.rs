//! A request that passed validation ([`Prepared`]), and what a transport
//! hands the dispatcher besides the message: its header checks
//! ([`HeaderCheck`]) and options ([`RequestOptions`]).

use std::sync::Arc;

use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::method::{Method, Route};
use crate::handler::context::{DiscardNotifications, NotificationSink};
use crate::handler::http_request::HttpRequest;
use crate::protocol::{CallToolParams, ErrorObject, RequestMeta, Tool};
use crate::registry::param_headers::HeaderParam;
use crate::registry::scopes::Access;
use crate::server::{Server, Snapshot};
use crate::telemetry::Observation;

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
    pub(super) definition: &'a Tool,
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(super) header_params: &'a [HeaderParam],
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
    pub(super) server: Server,
    pub(super) snapshot: Arc<Snapshot>,
    pub(super) id: crate::protocol::RequestId,
    pub(super) method: Method,
    pub(super) meta: Arc<RequestMeta>,
    pub(super) route: Route,
    pub(super) http: HttpRequest,
    /// What its caller may see and use: checked only on an authenticated
    /// server, for a request that came over HTTP.
    pub(super) access: Access,
    /// Its span and measurements, from its arrival.
    pub(super) observation: Observation,
    /// The shape its results are written in, when its client reads an
    /// older one (a 2025-era session); `None` on the stateless path.
    #[cfg(feature = "session")]
    pub(super) shape: Option<&'static dyn super::ResultShape>,
    /// Whether it has been through its layers, and goes to its handler now.
    pub(super) past_layers: bool,
    /// The retry's `requestState`, opened before the layers (only when
    /// there are layers, and a state).
    pub(super) opened: Option<Box<super::opened::Opened>>,
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

    /// Writes the results in `shape` (an `input_required` result
    /// excepted, which stays for whoever chose the shape to read).
    #[cfg(feature = "session")]
    pub(crate) fn answer_in(&mut self, shape: &'static dyn super::ResultShape) {
        self.shape = Some(shape);
    }

    /// Whether the answer is a stream of notifications that lasts as long
    /// as the client wants it (`subscriptions/listen`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn streams(&self) -> bool {
        self.method.streams()
    }
}

/// A request's params once `_meta` is read.
pub(crate) enum Body {
    /// Still raw: read by the method's route.
    Raw(Option<Box<RawValue>>),
    /// A `tools/call`'s params, read already.
    Call(CallToolParams),
}
