//! What a handler knows about the request it serves ([`RequestContext`]):
//! `_meta`, shared state, and the channel for request-scoped notifications.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::handler::http_request::HttpRequest;
use crate::handler::state::StateMap;
use crate::input::{Digest, InputState};
use crate::protocol::{
    ClientCapabilities, Implementation, LogMessageParams, LoggingLevel, MESSAGE, Notification, PROGRESS,
    ProgressParams, RequestId, RequestMeta,
};

/// Where a request's notifications (progress, log messages) go.
///
/// Transports implement it: stdio writes a line, HTTP upgrades the response
/// to an event stream. Nothing is kept after the request ends.
pub trait NotificationSink: Send + Sync {
    /// Sends one notification for the request being served.
    fn send(&self, notification: Notification);

    /// Ends the connection the request's messages travel on, leaving the
    /// stream to be resumed by the client; returns whether one was ended.
    /// Only transports whose streams can be resumed do anything: the
    /// default does nothing and returns `false`.
    fn close_connection(&self) -> bool {
        false
    }
}

/// A sink that drops every notification, for transports without a stream.
#[derive(Debug, Default, Clone, Copy)]
pub struct DiscardNotifications;

impl NotificationSink for DiscardNotifications {
    fn send(&self, _notification: Notification) {}
}

impl DiscardNotifications {
    /// One shared instance, so that requests that stream nothing do not
    /// allocate a sink each.
    pub(crate) fn shared() -> Arc<dyn NotificationSink> {
        static SHARED: std::sync::LazyLock<Arc<dyn NotificationSink>> =
            std::sync::LazyLock::new(|| Arc::new(DiscardNotifications));
        Arc::clone(&SHARED)
    }
}

/// What a request's context reaches of the server serving it: no more than
/// the handler core needs, so that this layer knows nothing of the server's
/// catalog, transports or settings. The server implements it; a handler
/// gets the whole server back through `RequestContext::server`, which the
/// server's own module provides.
pub(crate) trait ServerAccess: Send + Sync {
    /// The state set on the builder, for `State<T>`.
    fn state(&self) -> &StateMap;

    /// Whether requests arrive with a verified caller (see
    /// `ServerBuilder::authenticated_by_layer`).
    fn is_authenticated(&self) -> bool;

    /// The implementing value itself, for the layer that knows its type.
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
}

/// Everything a handler may know about the request it serves.
///
/// Cheap to clone. Handlers receive it as a parameter:
///
/// ```
/// use mcp_runtime::RequestContext;
/// async fn handler(cx: RequestContext) -> String {
///     let client = cx.client_info().map(|c| c.name.clone()).unwrap_or_default();
///     cx.progress(1.0, Some(1.0), None);
///     format!("hello {client}")
/// }
/// ```
#[derive(Clone)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    id: RequestId,
    method: &'static str,
    meta: Arc<RequestMeta>,
    sink: Arc<dyn NotificationSink>,
    /// Given by the transport, or made when a handler first asks.
    cancellation: OnceLock<CancellationToken>,
    last_progress: Mutex<Option<f64>>,
    input: InputSlot,
    server: Arc<dyn ServerAccess>,
    /// The server an entry mounted from another one belongs to: its state
    /// is the handler's, and `RequestContext::server` is it. Set once, by
    /// the mounted entry's handler, before the user's function runs.
    mounted: OnceLock<Arc<dyn ServerAccess>>,
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    http: HttpRequest,
}

/// Where a request's input state lives, if the request may ask for input.
pub(crate) enum InputSlot {
    /// Completions cannot ask the client anything.
    Unavailable,
    /// Made on first use, unless earlier rounds' answers came with the
    /// request: most handlers never ask, and pay nothing for it.
    Available(OnceLock<Arc<InputState>>),
}

impl RequestContext {
    #[expect(clippy::too_many_arguments, reason = "each part comes from a different step of the dispatcher")]
    pub(crate) fn new(
        id: RequestId,
        method: &'static str,
        meta: Arc<RequestMeta>,
        sink: Arc<dyn NotificationSink>,
        cancellation: Option<CancellationToken>,
        input: InputSlot,
        server: Arc<dyn ServerAccess>,
        http: HttpRequest,
    ) -> Self {
        let cancellation = cancellation.map_or_else(OnceLock::new, OnceLock::from);
        RequestContext {
            inner: Arc::new(ContextInner {
                id,
                method,
                meta,
                sink,
                cancellation,
                last_progress: Mutex::new(None),
                input,
                server,
                mounted: OnceLock::new(),
                http,
            }),
        }
    }

    /// The server serving the request, as the core sees it: the one its
    /// entry was mounted from, if it was.
    pub(crate) fn server_access(&self) -> &Arc<dyn ServerAccess> {
        self.inner.mounted.get().unwrap_or(&self.inner.server)
    }

    /// Serves the rest of the request as `server`, the one the entry was
    /// mounted from (its state, its `RequestContext::server`). The server
    /// that received it still says who the caller is.
    pub(crate) fn serve_as_mounted(&self, server: Arc<dyn ServerAccess>) {
        let _ = self.inner.mounted.set(server);
    }

    /// Whether the server that received the request verifies its callers.
    pub(crate) fn is_authenticated(&self) -> bool {
        self.inner.server.is_authenticated()
    }

    /// The identity of the authenticated caller, whom a `requestState` is
    /// sealed for.
    pub(crate) fn caller_identity(&self) -> Option<[u8; 16]> {
        self.inner.http.caller_identity()
    }

    /// Who makes the request, as the server's limits and caches tell
    /// callers apart (see [`Caller`](crate::middleware::Caller)): the
    /// authenticated principal, else the client's address over HTTP
    /// (known when the server has layers, tasks or streams that ask),
    /// else nobody in particular.
    pub fn caller(&self) -> crate::middleware::Caller {
        self.inner.http.caller()
    }

    /// The request's input state, made now (bound to the arguments of
    /// `digest`) if it was not yet; `None` when the request cannot ask for
    /// input.
    pub(crate) fn input_state(&self, digest: impl FnOnce() -> Digest) -> Option<Arc<InputState>> {
        match &self.inner.input {
            InputSlot::Unavailable => None,
            InputSlot::Available(cell) => {
                Some(Arc::clone(cell.get_or_init(|| {
                    Arc::new(InputState::new(Map::new(), None, Arc::clone(&self.inner.meta), digest()))
                })))
            }
        }
    }

    /// The request's input state if anything made it.
    pub(crate) fn started_input(&self) -> Option<&InputState> {
        match &self.inner.input {
            InputSlot::Unavailable => None,
            InputSlot::Available(cell) => cell.get().map(|state| &**state),
        }
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The JSON-RPC method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        self.inner.method
    }

    /// The request's validated `_meta`.
    pub fn meta(&self) -> &RequestMeta {
        &self.inner.meta
    }

    /// The capabilities the client declared on this request (and only this one).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.meta.client_capabilities
    }

    /// Whether this request's client renders interactive views (MCP Apps):
    /// it declares the `io.modelcontextprotocol/ui` extension with the
    /// views' MIME type, on this request (2026-07-28) or when its session
    /// began (2025 era). A tool bound to a view can then keep its text short,
    /// and say more when no view will be shown.
    ///
    /// ```
    /// use mcp_runtime::RequestContext;
    /// async fn show_board(cx: RequestContext) -> String {
    ///     if cx.client_renders_views() { "3 notes".into() } else { "3 notes: milk, eggs, bread".into() }
    /// }
    /// # let _ = show_board;
    /// ```
    pub fn client_renders_views(&self) -> bool {
        crate::apps::renders_views(&self.inner.meta.client_capabilities)
    }

    /// The client's self-description, if it sent one. For display only.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.meta.client_info.as_ref()
    }

    /// The head of the HTTP request that carried this call: its method,
    /// URI, headers and the extensions the application's middleware
    /// inserted (read those with [`Extension`](crate::extract::Extension)). `None`
    /// over stdio and for messages dispatched in process.
    ///
    /// ```
    /// use mcp_runtime::{RequestContext, tool};
    ///
    /// /// Names the HTTP client, when there is one.
    /// #[tool]
    /// async fn user_agent(cx: &RequestContext) -> String {
    ///     let agent = cx.http_request().and_then(|head| head.headers.get("user-agent"));
    ///     agent.and_then(|v| v.to_str().ok()).unwrap_or("not over HTTP").to_owned()
    /// }
    /// ```
    #[cfg(feature = "http")]
    pub fn http_request(&self) -> Option<&http::request::Parts> {
        self.inner.http.parts()
    }

    /// Shared state of type `T` set with [`ServerBuilder::state`](crate::ServerBuilder::state).
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.server_access().state().get::<T>()
    }

    /// Fires when the request is given up on: the client cancels it
    /// (stdio's `notifications/cancelled`) or goes away (a closed HTTP
    /// connection), or it times out. The handler then has the server's
    /// [cancellation grace](crate::ServerBuilder::cancellation_grace)
    /// (1 s by default) to finish before its future is dropped; what it
    /// answers is discarded. Over HTTP the token is made on the first call,
    /// so requests that never ask pay nothing. A handler also takes it as a
    /// `CancellationToken` parameter.
    ///
    /// Two ways to clean up. `select!` on the token, with the cleanup in its
    /// branch, which may await (within the grace period):
    ///
    /// ```
    /// use mcp_runtime::{CancellationToken, tool};
    ///
    /// # async fn crawl_site(url: &str) -> usize { url.len() }
    /// # async fn discard_partial_results() {}
    /// /// Crawls a site.
    /// #[tool]
    /// async fn crawl(url: String, cancel: CancellationToken) -> String {
    ///     tokio::select! {
    ///         () = cancel.cancelled() => {
    ///             discard_partial_results().await;
    ///             "cancelled".to_owned()
    ///         }
    ///         pages = crawl_site(&url) => format!("{pages} pages"),
    ///     }
    /// }
    /// ```
    ///
    /// Or hold a guard whose `Drop` cleans up: it runs however the handler
    /// ends (finished, cancelled, or dropped at the end of the grace
    /// period), but cannot await:
    ///
    /// ```
    /// use mcp_runtime::tool;
    ///
    /// struct Lease(&'static str);
    ///
    /// impl Drop for Lease {
    ///     fn drop(&mut self) {
    ///         // Give the lease back, whether the work finished or not.
    ///         let _ = self.0;
    ///     }
    /// }
    ///
    /// # async fn work() -> String { String::new() }
    /// /// Works under a lease.
    /// #[tool]
    /// async fn leased() -> String {
    ///     let _lease = Lease("worker-1");
    ///     work().await
    /// }
    /// ```
    ///
    /// A sync handler (a plain `fn`, run on the blocking pool) cannot be
    /// stopped: it checks [`is_cancelled`](Self::is_cancelled) between steps.
    pub fn cancellation(&self) -> &CancellationToken {
        self.inner.cancellation.get_or_init(CancellationToken::new)
    }

    /// `true` once the client has cancelled the request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.get().is_some_and(CancellationToken::is_cancelled)
    }

    /// Cancels the request's token: the request was given up on. The token
    /// is made if nothing asked for it yet, so that a handler polling
    /// [`is_cancelled`](Self::is_cancelled) sees it too.
    pub(crate) fn cancel_abandoned(&self) {
        self.cancellation().cancel();
    }

    /// Ends the connection of the event stream this request's answer
    /// travels on, without ending the request: the client reconnects with
    /// `Last-Event-ID` and receives what was sent meanwhile, the answer
    /// included. This is SSE polling, for a long handler that would rather
    /// not hold a connection open while it works. Returns whether a
    /// connection was ended.
    ///
    /// Only a 2025-11-25 session over Streamable HTTP has such streams (its
    /// client was told, with `retry:`, when to come back). Everywhere else
    /// this does nothing and returns `false`: a 2026-07-28 request whose
    /// connection closes is cancelled, clients of older sessions do not
    /// resume, a request answered with plain JSON has no stream, and stdio
    /// has no connections.
    ///
    /// ```
    /// use mcp_runtime::RequestContext;
    ///
    /// async fn long_job(cx: RequestContext) -> &'static str {
    ///     cx.close_sse_stream();
    ///     // ... work that takes longer than a proxy keeps a connection idle ...
    ///     "done"
    /// }
    /// ```
    pub fn close_sse_stream(&self) -> bool {
        self.inner.sink.close_connection()
    }

    /// Reports progress, if the client asked for it with a `progressToken`;
    /// in a handler running as a task, it becomes the task's
    /// `statusMessage` (the message, or `progress/total`), which clients
    /// polling the task read.
    ///
    /// Progress must strictly increase: a value not above the last one sent is
    /// dropped rather than sent out of order. Returns whether it was sent.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> bool {
        let task = self.started_input().and_then(crate::input::InputState::task_link);
        let token = self.inner.meta.progress_token.clone();
        if (task.is_none() && token.is_none()) || !progress.is_finite() {
            return false;
        }
        {
            let mut last = crate::sync::lock(&self.inner.last_progress);
            if last.is_some_and(|l| progress <= l) {
                return false;
            }
            *last = Some(progress);
        }
        if let Some(link) = task {
            Arc::clone(link).report(progress, total, message);
            return true;
        }
        let Some(token) = token else { return false };
        let mut params = ProgressParams::new(token, progress);
        params.total = total;
        params.message = message;
        self.inner.sink.send(Notification::new(PROGRESS, serde_json::to_value(params).unwrap_or_default()));
        true
    }

    /// Sends a log message, if the request opted in with a `logLevel` at or
    /// below `level`. Returns whether it was sent.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Into<Value>) -> bool {
        match self.inner.meta.log_level {
            Some(min) if level >= min => {
                let mut params = LogMessageParams::new(level, data.into());
                params.logger = logger.map(str::to_owned);
                self.inner.sink.send(Notification::new(MESSAGE, serde_json::to_value(params).unwrap_or_default()));
                true
            }
            _ => false,
        }
    }
}

impl fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestContext")
            .field("id", &self.inner.id)
            .field("method", &self.inner.method)
            .field("meta", &self.inner.meta)
            .finish_non_exhaustive()
    }
}
