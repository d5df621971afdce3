//! The pipeline: a request validated in the order the protocol pins
//! ([`Server::prepare`]), then run ([`Prepared::run`]).

use std::sync::Arc;

use super::envelope::{Message, Params, Request, parse_message};
use super::grace;
use super::method::{self, Method};
use super::params_head;
use super::prepared::{Body, HeaderCheck, Prepared, RequestOptions};
use super::request::ReadCall;
use crate::handler::http_request::HttpRequest;
use crate::protocol::{ErrorObject, SUPPORTED_VERSIONS};
use crate::registry::scopes::{self, Access, ScopeRefusal};
use crate::response::{Response, Stage};
use crate::server::Server;
use crate::telemetry::{self, Observation, Origin};

impl Prepared {
    /// Ends the request with `refusal` instead of running it (a transport
    /// check that comes after the pipeline's), which its span records.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn refuse(mut self, refusal: &Response) {
        self.observation.finish(telemetry::Ending::Answered(refusal));
    }

    /// Keeps the head of the HTTP request that carried this one, for the
    /// handler to read ([`RequestContext::http_request`](crate::RequestContext::http_request)),
    /// and its verified caller's access.
    #[cfg(feature = "http")]
    pub(crate) fn attach_http_request(&mut self, request: HttpRequest) {
        let authenticated = self.server.settings().authenticated;
        if authenticated && !self.access.is_checked() {
            self.access = Access::of(authenticated, request.principal());
        }
        self.http = request;
    }

    /// The head of the HTTP request that carried it, once attached.
    #[cfg(feature = "http")]
    pub(crate) fn http_parts(&self) -> Option<&http::request::Parts> {
        self.http.parts()
    }

    /// Who makes it (once its HTTP head is attached).
    #[cfg(feature = "http")]
    pub(crate) fn caller(&self) -> crate::middleware::Caller {
        self.http.caller()
    }

    /// The tool, prompt or resource it names.
    #[cfg(feature = "http")]
    pub(crate) fn target(&self) -> Option<&str> {
        method::target_of(&self.route)
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

    /// What the caller of a request from `origin` may see and use: its
    /// verified principal's, on an authenticated server, when the request
    /// came over HTTP.
    pub(super) fn access_from(&self, origin: &Origin<'_>) -> Access {
        #[cfg(feature = "http")]
        if self.settings().authenticated
            && let Some(parts) = origin.http_parts()
        {
            return Access::of(true, parts.extensions.get::<crate::handler::principal::Principal>());
        }
        let _ = origin;
        Access::Unchecked
    }

    /// The checks of [`prepare`](Self::prepare), unobserved.
    pub(super) fn validate(
        &self,
        request: Request,
        headers: Option<&dyn HeaderCheck>,
        access: Access,
    ) -> Result<Prepared, Box<Response>> {
        let Request { id, method, params } = request;
        let fail = |id: &crate::protocol::RequestId, error: ErrorObject, stage: Stage| {
            Box::new(Response::error(Some(id.clone()), error, stage))
        };

        // The method is read once; an unknown one is refused at routing,
        // after the checks that come before it.
        let (known, mut meta, target, body) = match params {
            Params::Raw(raw) => {
                let known = method::stateless(&method);
                let target = known.and_then(Method::target);
                let (meta, target) = params_head::read(target, raw.as_deref())
                    .map_err(|e| fail(&id, params_head::missing_meta(e, self.eras().versions()), Stage::Meta))?;
                (known, meta, target, Body::Raw(raw))
            }
            Params::Call(ReadCall { meta, params }) => (Some(Method::ToolsCall), meta, None, Body::Call(params)),
            #[cfg(feature = "session")]
            Params::Given { meta, raw } => (method::stateless(&method), meta, None, Body::Raw(Some(raw))),
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
        let Some(method) = known.filter(|&known| method::is_offered(known, snapshot.capabilities())) else {
            return Err(fail(&id, ErrorObject::method_not_found(&method), Stage::Routing));
        };

        // The method's params, then (for `tools/call`) the header params.
        let route = method::route(&snapshot, method, body, headers, &meta, &access)
            .map_err(|(e, stage)| fail(&id, e, stage))?;
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
            access,
            observation: Observation::default(),
            #[cfg(feature = "session")]
            shape: None,
            past_layers: false,
            opened: None,
        })
    }
}
