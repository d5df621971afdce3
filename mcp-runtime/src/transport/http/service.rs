//! [`McpService`]: the MCP endpoint as a tower `Service`, from HTTP request
//! to JSON, event-stream or empty response.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::FutureExt as _;
use futures_util::future::Either;
use http::request::Parts;
use http::{Method, Request, StatusCode};
use http_body::Body;
use tokio_util::sync::CancellationToken;

use super::HttpConfig;
use super::health;
use super::request_headers::RequestHeaders;
use super::shared::Shared;
use crate::dispatch::{Message, Prepared, RequestOptions, Response, Stage, parse_message};
use crate::handler::context::DiscardNotifications;
use crate::handler::http_request::HttpRequest;
use crate::middleware::{Refusal, RefusalReason};
use crate::protocol::{ErrorObject, RequestId};
use crate::server::Server;
use crate::telemetry::Origin;
use crate::transport::http::body::{BodyError, BoxError, McpBody, read_body};
use crate::transport::http::deadline::Deadline;
use crate::transport::http::in_flight::{BUSY_CODE, Held, InFlight, Slot, busy_response};
use crate::transport::http::listen_limit::{ListenLimit, ListenSlot};
use crate::transport::http::media::{self, Acceptable};
use crate::transport::http::responses::busy_http;
use crate::transport::http::responses::{
    empty, event_stream, insufficient_scope, json_response, not_allowed, status_of, transport_error,
};
#[cfg(feature = "session")]
use crate::transport::http::session::{self as session, EndpointSettings, SessionEndpoint, SessionSettings};
use crate::transport::http::sse::{ChannelSink, EventStream, RunFuture, Start};

/// The MCP endpoint as a tower `Service`: cheap to clone, always ready,
/// never failing (every problem is an HTTP response).
///
/// It answers whatever path it is mounted at; in axum that is
/// `Router::new().route_service("/mcp", server.http_service(config))`,
/// beside the application's other routes and layers.
///
/// ```
/// use mcp_runtime::Server;
/// use mcp_runtime::transport::http::HttpConfig;
/// use tower_service::Service as _;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::builder("demo", "1.0.0").build().unwrap();
/// let mut mcp = server.http_service(HttpConfig::default());
/// let request = http::Request::get("/mcp").header("host", "localhost:3000").body(String::new()).unwrap();
/// let response = mcp.call(request).await.unwrap();
/// assert_eq!(response.status(), 405);
/// assert_eq!(response.headers()["allow"], "POST");
/// # });
/// ```
///
/// Middleware in front of it can pass what it learned (the caller an auth
/// layer identified, say) to the handlers as request extensions: a handler
/// reads one with [`Extension<T>`](crate::extract::Extension), and the request's
/// head with [`RequestContext::http_request`](crate::RequestContext::http_request).
///
/// The host application owns the connections, so the limits that are about
/// connections (header size, header read timeout, connection count,
/// graceful shutdown) are its own; the body limit, body and request
/// timeouts, the in-flight limit, the bound on unread stream events and
/// the `Origin`/`Host` checks of [`HttpConfig`] apply here.
#[derive(Clone)]
pub struct McpService {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for McpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpService").field("server", &self.shared.server.info().name).finish_non_exhaustive()
    }
}

/// The future of one [`McpService`] call.
pub struct ResponseFuture {
    inner: Pin<Box<dyn Future<Output = http::Response<McpBody>> + Send>>,
}

impl Future for ResponseFuture {
    type Output = Result<http::Response<McpBody>, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.inner.as_mut().poll(cx).map(Ok)
    }
}

impl ResponseFuture {
    pub(crate) fn ready(response: http::Response<McpBody>) -> Self {
        ResponseFuture { inner: Box::pin(std::future::ready(response)) }
    }
}

impl std::fmt::Debug for ResponseFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseFuture").finish_non_exhaustive()
    }
}

impl McpService {
    /// `bound_to_loopback`: what the standalone server knows of its address.
    pub(crate) fn new(server: Server, mut config: HttpConfig, bound_to_loopback: Option<bool>) -> Self {
        config.origin = config.origin.resolve(bound_to_loopback);
        warn_if_unenforced(&server);
        let in_flight = InFlight::new(config.max_in_flight);
        #[cfg(feature = "auth")]
        let auth = server.settings().verifier.clone();
        #[cfg(feature = "session")]
        let session = server.eras().serves_sessions().then(|| {
            let sessions = SessionSettings {
                store: config.session_store.as_ref().map(|store| Arc::clone(&store.0)),
                max_sessions: config.max_sessions,
                idle_timeout: config.session_idle_timeout,
                stream_buffer: config.max_stream_buffer,
            };
            #[cfg(feature = "auth")]
            let resource_metadata = auth.as_ref().map(|verifier| verifier.metadata.url.clone());
            #[cfg(not(feature = "auth"))]
            let resource_metadata = None;
            let settings = EndpointSettings {
                request_timeout: config.request_timeout,
                buffered_responses: config.buffered_responses,
                json_grace: config.session_json_grace,
                sse_keep_alive: config.sse_keep_alive,
                resource_metadata,
            };
            SessionEndpoint::new(server.clone(), sessions, settings)
        });
        // Layers and task quotas ask who calls.
        #[cfg(feature = "tasks")]
        let wants_client_address = server.has_layers() || server.has_task_tools();
        #[cfg(not(feature = "tasks"))]
        let wants_client_address = server.has_layers();
        #[cfg(feature = "server-card")]
        let cards = super::card::Cards::new(&server, &config);
        McpService {
            shared: Arc::new(Shared {
                server,
                wants_client_address,
                listen_limit: ListenLimit::new(config.max_listen_streams, config.max_listen_streams_per_caller),
                config,
                #[cfg(feature = "session")]
                session,
                draining: AtomicBool::new(false),
                in_flight,
                #[cfg(feature = "auth")]
                auth,
                #[cfg(feature = "server-card")]
                cards,
            }),
        }
    }

    /// Whether the readiness probe would answer 200 now: not
    /// [draining](Self::drain), and the stores the server depends on
    /// answer within a second (see [`HttpConfig::health_endpoints`]). For
    /// a host application that answers probes with its own routes.
    pub async fn is_ready(&self) -> bool {
        health::is_ready(&self.shared).await
    }

    /// Marks this service as shutting down: its readiness probe answers
    /// 503 from now on, while requests keep being served. The standalone
    /// server calls it when shutdown begins; a host application calls it
    /// from its own shutdown, before it stops accepting requests.
    pub fn drain(&self) {
        self.shared.draining.store(true, Ordering::Release);
    }

    /// Whether `path` is one of the probe paths, when probes are on.
    pub(crate) fn is_health_path(&self, path: &str) -> bool {
        self.shared.config.health.as_ref().is_some_and(|h| h.probe(path).is_some())
    }

    /// Whether `path` is the server card's or the AI Catalog's, when the
    /// server has a card.
    pub(crate) fn is_card_path(&self, path: &str) -> bool {
        #[cfg(feature = "server-card")]
        if let Some(cards) = &self.shared.cards {
            return cards.serves(path);
        }
        let _ = path;
        false
    }

    /// Whether `path` is one of the built-in authorization server's
    /// (`oauth-proxy` feature), which answers with its own CORS headers.
    pub(crate) fn is_oauth_proxy_path(&self, path: &str) -> bool {
        #[cfg(feature = "oauth-proxy")]
        if let Some(front) = &self.shared.server.settings().oauth_proxy {
            return front.serves(path);
        }
        let _ = path;
        false
    }

    /// Whether `path` is where a protected server's Protected Resource
    /// Metadata is served.
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        #[cfg(feature = "auth")]
        if let Some(verifier) = &self.shared.auth {
            return verifier.metadata.serves(path);
        }
        let _ = path;
        false
    }

    /// Serves one request; the same as `Service::call`, through a shared
    /// reference.
    pub fn handle<B>(&self, request: Request<B>) -> ResponseFuture
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        ResponseFuture { inner: Box::pin(respond(Arc::clone(&self.shared), request, None)) }
    }

    /// [`handle`](Self::handle), for a request received from `peer` by the
    /// standalone server.
    pub(crate) fn handle_from<B>(&self, request: Request<B>, peer: SocketAddr) -> ResponseFuture
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        ResponseFuture { inner: Box::pin(respond(Arc::clone(&self.shared), request, Some(peer))) }
    }
}

/// The address of the client of a request, for an application that mounts
/// the [`McpService`] and knows it: inserted into the request's
/// extensions, it is what rate limits, caches, quotas and audit logs key
/// unauthenticated callers by ([`McpRequest::client_address`](crate::middleware::McpRequest::client_address)).
/// (With the `axum` feature, axum's `ConnectInfo<SocketAddr>` is read too,
/// as `into_make_service_with_connect_info::<SocketAddr>()` inserts it.)
/// Behind [trusted proxies](HttpConfig::trusted_proxies), the address they
/// forwarded is read from the request instead.
///
/// ```
/// use mcp_runtime::transport::http::PeerAddress;
///
/// let mut request = http::Request::post("/mcp").body(String::new()).unwrap();
/// request.extensions_mut().insert(PeerAddress("192.0.2.7:51000".parse().unwrap()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddress(pub SocketAddr);

/// The peer a mounted service's host application gave, if any.
fn given_peer(parts: &Parts) -> Option<SocketAddr> {
    if let Some(peer) = parts.extensions.get::<PeerAddress>() {
        return Some(peer.0);
    }
    #[cfg(feature = "axum")]
    if let Some(info) = parts.extensions.get::<axum::extract::ConnectInfo<SocketAddr>>() {
        return Some(info.0);
    }
    None
}

/// Says, once per service, that the scopes the server's entries declare are
/// not enforced: without authentication nothing tells who calls, so every
/// entry is listed and callable over HTTP. Not an error: the same server
/// may be served over stdio (never authenticated), and a deployment may
/// keep it on a private network on purpose; but no one should learn it
/// from an audit.
fn warn_if_unenforced(server: &Server) {
    let scopes = server.declared_scopes();
    if !server.is_authenticated() && !scopes.is_empty() {
        let scopes = scopes.into_iter().collect::<Vec<_>>().join(" ");
        tracing::warn!(
            server = %server.info().name,
            %scopes,
            "served over HTTP without authentication: the scopes its tools, prompts and resources declare are not enforced, and every caller can use them all"
        );
    }
}

impl<B> tower_service::Service<Request<B>> for McpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = http::Response<McpBody>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> ResponseFuture {
        self.handle(request)
    }
}

/// Every check of a request in order (origin and host, method and path,
/// media types, size, the envelope, `_meta`, the MCP headers, the version,
/// routing, the params), then the handler. `peer`: where the standalone
/// server received it from.
async fn respond<B>(shared: Arc<Shared>, request: Request<B>, peer: Option<SocketAddr>) -> http::Response<McpBody>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    let (mut parts, body) = request.into_parts();
    let peer = peer.or_else(|| given_peer(&parts));
    // Where layers or tasks may ask who calls: known from the start, so
    // that refusals name their caller too. Others learn it only for the
    // requests that ask (listen streams), and pay nothing.
    if shared.wants_client_address
        && let Some(peer) = peer
    {
        shared.attach_client_address(&mut parts, peer);
    }
    // Before the `Origin`/`Host` check, which a balancer's probe by address
    // would fail; a probe learns nothing but ok or not.
    if let Some(probe) = shared.config.health.as_ref().and_then(|h| h.probe(parts.uri.path())) {
        // Boxed, so that the MCP paths' future does not carry its state.
        return Box::pin(health::answer(&shared, probe, &parts.method)).await;
    }
    // Public documents, for anyone, from any origin.
    #[cfg(feature = "server-card")]
    if let Some(cards) = &shared.cards
        && cards.serves(parts.uri.path())
    {
        return cards.answer(parts.uri.path(), &parts.method, &parts.headers);
    }
    // The authorization server's pages and endpoints: a browser navigates
    // to them from anywhere, and they check what they need themselves.
    #[cfg(feature = "oauth-proxy")]
    if let Some(front) = &shared.server.settings().oauth_proxy
        && front.serves(parts.uri.path())
    {
        let trusted = shared.config.trusted_proxies.as_ref();
        let address = peer.map(|peer| super::forwarded::client_address(peer, &parts.headers, trusted).ip());
        return Box::pin(super::oauth_proxy::answer(front, parts, body, address)).await;
    }
    if let Err(refusal) = shared.config.origin.check(&parts.headers, &parts.uri) {
        tracing::debug!(%refusal, "request refused");
        let message = refusal.to_string();
        let status = refusal.status();
        let hint = shared.config.origin.hint(&refusal);
        shared.server.refused(&Refusal::over_http(RefusalReason::Origin, &message, Some(&parts), status));
        return unread(&shared.config, &parts, body, transport_error(status, format!("{message}{hint}"))).await;
    }
    // Every request past here, of either era, needs a valid bearer token.
    #[cfg(feature = "auth")]
    if let Some(verifier) = &shared.auth {
        if let Some(document) = super::auth::metadata(verifier, &parts) {
            return unread(&shared.config, &parts, body, document).await;
        }
        // The token a client sends on every request is found at once; the
        // full check is boxed, so that no other request's future carries
        // its state.
        if !super::auth::known_caller(verifier, &mut parts)
            && let Err(refusal) = Box::pin(super::auth::authenticate(verifier, &shared.config, &mut parts)).await
        {
            if refusal.status() != StatusCode::SERVICE_UNAVAILABLE {
                let message = "no valid bearer token";
                let heard = Refusal::over_http(RefusalReason::Unauthenticated, message, Some(&parts), refusal.status());
                shared.server.refused(&heard);
            }
            // The first step of every client's OAuth discovery: its next
            // request comes on the same connection.
            return unread(&shared.config, &parts, body, refusal).await;
        }
    }
    if parts.method != Method::POST {
        // A GET or DELETE may name a 2025-era session; the stateless
        // endpoint takes POST only.
        #[cfg(feature = "session")]
        if let Some(sessions) = &shared.session {
            return Box::pin(sessions.respond_other(&parts)).await;
        }
        return unread(&shared.config, &parts, body, not_allowed(&parts.method)).await;
    }
    let accept = match acceptable(&parts) {
        Ok(accept) => accept,
        Err((status, message)) => return unread(&shared.config, &parts, body, transport_error(status, message)).await,
    };
    let bytes = match read_request(&shared.config, &parts, body).await {
        Ok(read) => read,
        Err(refusal) => return refusal,
    };
    // A server that serves 2025-era clients tells each POST's era first.
    // One flat path otherwise: every level of futures between here and the
    // handler is state that is moved, so the stateless path stays one.
    #[cfg(feature = "session")]
    if let Some(sessions) = &shared.session {
        let era = session::route_post(&parts, &bytes);
        if !matches!(era, session::Era::Stateless if shared.server.eras().serves_stateless()) {
            return Box::pin(sessions.serve_post(era, parts, accept, &bytes, &shared.in_flight)).await;
        }
    }
    serve_stateless(&shared, parts, accept, &bytes, peer).await
}

/// The media types of a POST, checked before its body is read, the same
/// for both eras: the formats the client takes.
fn acceptable(parts: &Parts) -> Result<Acceptable, (StatusCode, &'static str)> {
    if !media::is_json_content(&parts.headers) {
        return Err((StatusCode::UNSUPPORTED_MEDIA_TYPE, "The body must be `Content-Type: application/json`"));
    }
    let accept = media::acceptable(&parts.headers);
    if !accept.json && !accept.event_stream {
        return Err((StatusCode::NOT_ACCEPTABLE, "The Accept header must allow application/json or text/event-stream"));
    }
    Ok(accept)
}

/// The body of a POST, bounded in size and read time. A body refused
/// part-way leaves the rest unread: its HTTP/1.1 connection closes, and the
/// refusal says so.
pub(super) async fn read_request<B>(
    config: &HttpConfig,
    parts: &Parts,
    body: B,
) -> Result<Vec<u8>, http::Response<McpBody>>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    let refusal = match read_body(body, config.max_body_bytes, config.body_timeout).await {
        Ok(bytes) => return Ok(bytes),
        Err(BodyError::TooLarge) => {
            let message = format!("The request body is larger than {} bytes", config.max_body_bytes);
            transport_error(StatusCode::PAYLOAD_TOO_LARGE, message)
        }
        Err(BodyError::TimedOut) => {
            transport_error(StatusCode::REQUEST_TIMEOUT, "The request body took too long to arrive")
        }
        Err(BodyError::Read(e)) => {
            transport_error(StatusCode::BAD_REQUEST, format!("The request body could not be read: {e}"))
        }
    };
    Err(closing(parts, refusal))
}

/// How much of a refused request's body is read to keep its connection:
/// what a client sends before it learns it needs a token, say.
const DISCARDED_BODY: usize = 64 * 1024;

/// The longest a refused request's body is waited for.
const DISCARD_TIME: Duration = Duration::from_secs(5);

/// `response`, to a request whose body it does not use: over HTTP/1.1 the
/// body is read and dropped first, so that the connection carries the
/// client's next request; one too long or too slow to be worth it closes
/// the connection, and the response says so (`Connection: close`), rather
/// than the client learning it from a broken pipe.
async fn unread<B>(
    config: &HttpConfig,
    parts: &Parts,
    body: B,
    response: http::Response<McpBody>,
) -> http::Response<McpBody>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    // HTTP/2 ends the request's stream alone; the connection goes on.
    if parts.version == http::Version::HTTP_2 {
        return response;
    }
    let time = config.body_timeout.unwrap_or(DISCARD_TIME).min(DISCARD_TIME);
    if crate::transport::http::body::discard(body, DISCARDED_BODY, time).await {
        response
    } else {
        closing(parts, response)
    }
}

/// `response` announcing that the HTTP/1.x connection closes after it.
fn closing(parts: &Parts, mut response: http::Response<McpBody>) -> http::Response<McpBody> {
    if parts.version != http::Version::HTTP_2 {
        response.headers_mut().insert(http::header::CONNECTION, http::HeaderValue::from_static("close"));
    }
    response
}

/// A stateless request whose body was read: the dispatcher's pipeline,
/// then the handler.
pub(super) async fn serve_stateless(
    shared: &Shared,
    mut parts: Parts,
    accept: Acceptable,
    bytes: &[u8],
    peer: Option<SocketAddr>,
) -> http::Response<McpBody> {
    let config = &shared.config;
    let request = match parse_message(bytes) {
        Err(response) => return json_response(*response),
        // Only stdio has client notifications that mean something
        // (`notifications/cancelled`); over HTTP closing the stream cancels.
        Ok(Message::Notification(_)) => return empty(StatusCode::ACCEPTED),
        Ok(Message::Request(request)) => request,
    };
    let id = request.id().clone();
    let check = RequestHeaders::new(&parts.headers);
    let mut prepared = match shared.server.prepare_from(request, Some(&check), Origin::http(&parts)) {
        Ok(prepared) => prepared,
        Err(response) => return json_response(*response),
    };
    let listen = prepared.streams();
    if listen
        && !shared.wants_client_address
        && let Some(peer) = peer
    {
        shared.attach_client_address(&mut parts, peer);
    }
    // Moved rather than cloned: handlers that never read it cost a box.
    prepared.attach_http_request(HttpRequest::new(parts));
    if let Some(refusal) = prepared.scope_refusal() {
        let error = refusal.error();
        if shared.server.hears_refusals() {
            let parts = prepared.http_parts();
            let mut heard = Refusal::over_http(RefusalReason::Forbidden, &error.message, parts, StatusCode::FORBIDDEN);
            heard.method = Some(prepared.method());
            heard.target = prepared.target();
            heard.error_code = Some(error.code);
            shared.server.refused(&heard);
        }
        let response = Response::error(Some(id), error, Stage::Params);
        let metadata = shared.resource_metadata_url();
        let answer = insufficient_scope(json_response(response.clone()), &refusal, metadata, prepared.http_parts());
        prepared.refuse(&response);
        return answer;
    }
    if listen && !accept.event_stream {
        let error =
            ErrorObject::invalid_request("subscriptions/listen needs an Accept header allowing text/event-stream");
        let refusal = Response::error(Some(id), error, Stage::Envelope);
        prepared.refuse(&refusal);
        let mut response = json_response(refusal);
        *response.status_mut() = StatusCode::NOT_ACCEPTABLE;
        return response;
    }
    // A listen stream lasts as long as the client wants it; it is not a
    // request that could take too long, nor one that holds a handler's
    // place: the listen limits bound them instead.
    let (timeout, slot, held) = if listen {
        match shared.listen_limit.enter(prepared.caller()) {
            Ok(held) => (None, None, Some(held)),
            Err(full) => {
                let message = full.message();
                let error = ErrorObject { code: BUSY_CODE, message, data: None };
                return busy(shared, prepared, Response::error(Some(id), error, Stage::Envelope));
            }
        }
    } else {
        let Some(slot) = shared.in_flight.enter() else {
            return busy(shared, prepared, busy_response(id, shared.in_flight.limit()));
        };
        (config.request_timeout, Some(slot), None)
    };
    // Without a progress token or a log level nothing can be sent before the
    // result (and a listen stream always streams), so a client that takes
    // JSON gets it without a stream being set up that would never be used.
    // With buffered responses, only a listen stream is worth a stream.
    let meta = prepared.meta();
    let may_notify =
        listen || (!config.buffered_responses && (meta.progress_token.is_some() || meta.log_level.is_some()));
    let accept = Acceptable { event_stream: accept.event_stream && (may_notify || !accept.json), ..accept };
    let limits = StreamLimits { keep_alive: config.sse_keep_alive, buffer: config.max_stream_buffer };
    // Only what holds a slot or a listen place is held by the stream.
    run(prepared, id, accept, timeout, limits, slot, held).await
}

/// 503 with `Retry-After` and `refusal`, for a request refused for want of
/// room, which the server's layers hear of.
fn busy(shared: &Shared, prepared: Prepared, refusal: Response) -> http::Response<McpBody> {
    if shared.server.hears_refusals() {
        let message = refusal.as_error().map(|e| e.message.as_str()).unwrap_or_default();
        let parts = prepared.http_parts();
        let mut heard = Refusal::over_http(RefusalReason::Busy, message, parts, StatusCode::SERVICE_UNAVAILABLE);
        heard.method = Some(prepared.method());
        heard.target = prepared.target();
        heard.error_code = refusal.as_error().map(|e| e.code);
        shared.server.refused(&heard);
    }
    prepared.refuse(&refusal);
    busy_http(refusal.into_bytes())
}

/// What bounds an event stream: its keep-alive period and its unread bytes.
#[derive(Clone, Copy)]
struct StreamLimits {
    keep_alive: Option<Duration>,
    buffer: usize,
}

/// Runs the handler and picks the response format: JSON unless a
/// notification comes before the response (and the client takes a stream).
/// A combinator rather than an `async fn`, so that a JSON answer's future
/// stays small (it is moved into place more than once).
fn run<'a>(
    prepared: Prepared,
    id: RequestId,
    accept: Acceptable,
    timeout: Option<Duration>,
    limits: StreamLimits,
    slot: Option<Slot<'a>>,
    listen: Option<ListenSlot>,
) -> impl Future<Output = http::Response<McpBody>> + 'a {
    if !accept.event_stream {
        // A client gone or a timeout drops this future: the handler's token
        // fires first and the handler gets the cancellation grace to end.
        // The slot goes with it, or with the answer.
        let options = RequestOptions { sink: DiscardNotifications::shared(), cancellation: None };
        return Either::Left(bounded(prepared.run(options), timeout, id).map(move |response| {
            drop(slot);
            json_response(response)
        }));
    }
    // Boxed, so that the (much larger) streaming state is only paid for by
    // requests that may stream.
    let held = slot.map(|slot| Held::InFlight(slot.owned())).or(listen.map(Held::Listen));
    Either::Right(Box::pin(run_streaming(prepared, id, accept, timeout, limits, held)))
}

async fn run_streaming(
    prepared: Prepared,
    id: RequestId,
    accept: Acceptable,
    timeout: Option<Duration>,
    limits: StreamLimits,
    slot: Option<Held>,
) -> http::Response<McpBody> {
    let token = CancellationToken::new();
    // Dropping the guard (client gone) cancels the request, even once the
    // handler's future is done and the stream is still being written.
    let guard = token.clone().drop_guard();
    let (sink, rx) = ChannelSink::bounded(limits.buffer, token.clone());
    let listen = prepared.streams();
    let options = RequestOptions { sink: Arc::new(sink), cancellation: Some(token) };
    // A listen stream told to end answers with its closing result; any
    // other request is cut, and answered with this error.
    let overflow = (!listen).then(|| id.clone());
    let run: RunFuture = Box::pin(bounded(prepared.run(options), timeout, id));
    let mut stream = EventStream::new(run, rx, guard, limits.keep_alive).holding(slot).on_overflow(overflow);
    match stream.start().await {
        Start::Finished(response) if accept.json => json_response(response),
        Start::Finished(response) => {
            stream.finish_with(&response);
            event_stream(status_of(&response), stream)
        }
        Start::Notified => event_stream(StatusCode::OK, stream),
    }
}

/// The handler bounded by the request timeout. A combinator rather than an
/// `async fn`, which would hold the handler's future twice over.
fn bounded(
    run: impl Future<Output = Response>,
    timeout: Option<Duration>,
    id: RequestId,
) -> impl Future<Output = Response> {
    let Some(limit) = timeout else { return Either::Left(run) };
    // Cut off, the handler's future is dropped, which cancels its token.
    Either::Right(Deadline::new(run, limit).map(move |finished| {
        finished.unwrap_or_else(|_| {
            let message = format!("The request did not finish within {} s", limit.as_secs_f64());
            Response::error(Some(id), ErrorObject::internal(message), Stage::Handler)
        })
    }))
}

#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
impl Server {
    /// The MCP endpoint as a tower `Service`, to mount in an existing
    /// application; see [`McpService`].
    pub fn http_service(&self, config: HttpConfig) -> McpService {
        McpService::new(self.clone(), config, None)
    }
}
