//! [`HttpConfig`]: the settings of the HTTP transport; who reaches the
//! server and by which names in `reach`.

mod reach;

#[cfg(feature = "session")]
use std::sync::Arc;
use std::time::Duration;

use super::forwarded::TrustedProxies;

use super::origin::OriginPolicy;
#[cfg(feature = "session")]
use crate::session::SessionStore;

/// Settings of the HTTP transport. Every field has a safe default:
///
/// | setting | default |
/// |---|---|
/// | [`endpoint`](Self::endpoint) (standalone server only) | `/mcp` |
/// | [`max_body_bytes`](Self::max_body_bytes) | 4 MiB (413 beyond) |
/// | [`max_header_bytes`](Self::max_header_bytes) (standalone) | 32 KiB (431 beyond) |
/// | [`body_timeout`](Self::body_timeout) | 30 s to receive the body (408 after) |
/// | [`request_timeout`](Self::request_timeout) | 5 min for the handler (`-32603` after); none for listen streams |
/// | [`sse_keep_alive`](Self::sse_keep_alive) | a comment after 15 s without events on a stream |
/// | [`buffered_responses`](Self::buffered_responses) | off: notifications before a result are streamed |
/// | [`header_read_timeout`](Self::header_read_timeout) (standalone) | 10 s, also the keep-alive idle limit |
/// | [`write_timeout`](Self::write_timeout) (standalone) | 30 s without write progress closes the connection |
/// | [`max_connections`](Self::max_connections) (standalone) | 1024 |
/// | [`max_connections_per_address`](Self::max_connections_per_address) (standalone) | 128 from one address (an IPv6 /64); off behind [trusted proxies](Self::trusted_proxies) |
/// | [`http2_max_concurrent_streams`](Self::http2_max_concurrent_streams) (standalone) | 100 requests at once on one HTTP/2 connection |
/// | [`max_in_flight`](Self::max_in_flight) | 512 requests handled at once (503 with `Retry-After` beyond) |
/// | [`max_listen_streams`](Self::max_listen_streams) | 1024 `subscriptions/listen` streams open at once, 16 per caller (503 beyond) |
/// | [`max_stream_buffer`](Self::max_stream_buffer) | 1 MiB unread on one event stream (the stream is ended beyond) |
/// | [`shutdown_grace`](Self::shutdown_grace) (standalone) | 10 s |
/// | `Origin`/`Host` checks | loopback names only; bound wider, loopback names and addresses; see [`public_url`](Self::public_url), [`allowed_hosts`](Self::allowed_hosts) |
/// | [`trusted_proxies`](Self::trusted_proxies) | none: the client is the connection's peer |
/// | [`cors`](Self::cors) (standalone) | off |
// The 2025-era settings exist with the `session` feature only.
#[cfg_attr(
    feature = "session",
    doc = "| [`max_sessions`](Self::max_sessions) (2025-era clients, `session` feature) | 10 000 live at once (503 beyond) |\n\
           | [`session_idle_timeout`](Self::session_idle_timeout) (2025-era clients, `session` feature) | 30 min unused ends a session |\n\
           | [`session_json_grace`](Self::session_json_grace) (2025-era clients, `session` feature) | 1 s: a request that ends within it having sent nothing is answered as JSON |\n\
           | [`session_store`](Self::session_store) (2025-era clients, `session` feature) | in this process's memory |"
)]
/// | [`health_endpoints`](Self::health_endpoints) | off |
/// | [`shutdown_drain`](Self::shutdown_drain) (standalone) | none |
///
#[doc = include_str!("../../../../doc/http_config.md")]
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub(crate) endpoint: String,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_header_bytes: usize,
    pub(crate) body_timeout: Option<Duration>,
    pub(crate) request_timeout: Option<Duration>,
    pub(crate) sse_keep_alive: Option<Duration>,
    pub(crate) buffered_responses: bool,
    pub(crate) header_read_timeout: Duration,
    pub(crate) write_timeout: Duration,
    pub(crate) max_connections: usize,
    /// `None`: the default, 128, unless behind trusted proxies.
    pub(crate) max_connections_per_address: Option<usize>,
    pub(crate) http2_max_concurrent_streams: u32,
    pub(crate) max_in_flight: usize,
    pub(crate) max_listen_streams: usize,
    pub(crate) max_listen_streams_per_caller: usize,
    /// Where clients reach the endpoint: what names the server to them.
    #[allow(dead_code, reason = "only its host is read yet, by the `Host` check, which keeps its own copy")]
    pub(crate) public_url: Option<http::Uri>,
    pub(crate) trusted_proxies: Option<TrustedProxies>,
    pub(crate) max_stream_buffer: usize,
    pub(crate) shutdown_grace: Duration,
    pub(crate) origin: OriginPolicy,
    pub(crate) cors: bool,
    #[cfg(feature = "session")]
    pub(crate) max_sessions: usize,
    #[cfg(feature = "session")]
    pub(crate) session_idle_timeout: Duration,
    #[cfg(feature = "session")]
    pub(crate) session_json_grace: Duration,
    #[cfg(feature = "session")]
    pub(crate) session_store: Option<StoreSlot>,
    pub(crate) health: Option<HealthPaths>,
    pub(crate) shutdown_drain: Duration,
    #[cfg(feature = "tls")]
    pub(crate) tls: Option<super::tls::TlsFiles>,
}

/// The store [`HttpConfig::session_store`] set.
#[cfg(feature = "session")]
#[derive(Clone)]
pub(crate) struct StoreSlot(pub(crate) Arc<dyn SessionStore>);

#[cfg(feature = "session")]
impl std::fmt::Debug for StoreSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionStore")
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            endpoint: "/mcp".to_owned(),
            max_body_bytes: 4 * 1024 * 1024,
            max_header_bytes: 32 * 1024,
            body_timeout: Some(Duration::from_secs(30)),
            request_timeout: Some(Duration::from_secs(300)),
            sse_keep_alive: Some(Duration::from_secs(15)),
            buffered_responses: false,
            header_read_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_connections_per_address: None,
            http2_max_concurrent_streams: 100,
            max_in_flight: 512,
            max_listen_streams: 1024,
            max_listen_streams_per_caller: 16,
            public_url: None,
            trusted_proxies: None,
            max_stream_buffer: 1024 * 1024,
            shutdown_grace: Duration::from_secs(10),
            origin: OriginPolicy::default(),
            cors: false,
            #[cfg(feature = "session")]
            max_sessions: 10_000,
            #[cfg(feature = "session")]
            session_idle_timeout: Duration::from_secs(30 * 60),
            #[cfg(feature = "session")]
            session_json_grace: Duration::from_secs(1),
            #[cfg(feature = "session")]
            session_store: None,
            health: None,
            shutdown_drain: Duration::ZERO,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }
}

impl HttpConfig {
    /// The path of the MCP endpoint when serving standalone (default `/mcp`);
    /// other paths answer 404. A mounted [`McpService`](super::McpService) answers on whatever
    /// path it is mounted at.
    pub fn endpoint(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.endpoint = if path.starts_with('/') { path } else { format!("/{path}") };
        self
    }

    /// The largest request body accepted, in bytes (default 4 MiB); a larger
    /// one is answered 413 without being read further.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// The largest request head (request line and headers) accepted by the
    /// standalone server, in bytes (default 32 KiB, at least 4 KiB); a larger
    /// one is answered 431 (over HTTP/2, the header list as HTTP/2 counts
    /// it).
    pub fn max_header_bytes(mut self, bytes: usize) -> Self {
        self.max_header_bytes = bytes.max(4096);
        self
    }

    /// How long a client may take to send the request body (default 30 s;
    /// `None` for no limit), counted from when the server first has to wait
    /// for it. A client still sending after that gets 408.
    pub fn body_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.body_timeout = timeout.into();
        self
    }

    /// How long a handler may run (default 5 minutes; `None` for no limit),
    /// counted from the first time it waits (a handler answering without
    /// waiting never reads the clock). A handler still running after that
    /// is cancelled (its token fires, and it is dropped after the server's
    /// [cancellation grace](crate::ServerBuilder::cancellation_grace)), and
    /// the client receives a `-32603` error at once; the request's place
    /// under [`max_in_flight`](Self::max_in_flight) is free from then on.
    /// `subscriptions/listen` streams are exempt: they last
    /// until the client leaves or the server shuts down. On a 2025-era
    /// session the time a request waits for the client's answers (an
    /// elicitation waits for a person) counts too.
    pub fn request_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.request_timeout = timeout.into();
        self
    }

    /// How long an event stream may stay silent before a `: keep-alive`
    /// comment is sent (default 15 s; `None` to never send one), so proxies
    /// with idle timeouts do not cut long tool calls or listen streams.
    pub fn sse_keep_alive(mut self, interval: impl Into<Option<Duration>>) -> Self {
        self.sse_keep_alive = interval.into();
        self
    }

    /// Answers every request whose client takes JSON with one JSON
    /// document, never an event stream (default `false`): for platforms
    /// that buffer a response until it ends, such as AWS Lambda or an API
    /// gateway, where a stream's events would all arrive with the result
    /// anyway. The notifications a handler sends before its result
    /// (progress, log messages) are then dropped, as for a client that takes
    /// only JSON (a 2025-era session's go to its standalone stream, as they
    /// do for such a client). A client that takes only event streams still
    /// gets one, and `subscriptions/listen`, which is nothing but a stream,
    /// is unchanged.
    ///
    /// ```
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// let config = HttpConfig::default().buffered_responses(true);
    /// # let _ = config;
    /// ```
    pub fn buffered_responses(mut self, buffered: bool) -> Self {
        self.buffered_responses = buffered;
        self
    }

    /// How long a connection of the standalone server may wait for its
    /// next complete request head (default 10 s), counted from the accept
    /// or from the end of the previous response: it closes idle keep-alive
    /// connections and heads that trickle in (slowloris). A request in
    /// progress is never cut by it; the body, request and write timeouts
    /// bound those. One timer per connection, however many requests it
    /// carries.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// // Idle keep-alive connections closed after 5 s.
    /// let config = HttpConfig::default().header_read_timeout(Duration::from_secs(5));
    /// # let _ = config;
    /// ```
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long the standalone server waits for a client that does not
    /// read what it is sent (default 30 s) before closing its connection,
    /// so a stalled reader cannot keep its place under the connection limit.
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// How many connections the standalone server keeps open at once
    /// (default 1024, at least 1); further clients wait to be accepted.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How many connections the standalone server keeps open at once from
    /// one address (default 128, at least 1; an IPv6 address counts by its
    /// /64, as one host holds a whole /64). A connection beyond it is
    /// closed as soon as it is accepted, so that one client cannot take the
    /// [`max_connections`](Self::max_connections) of all. Behind
    /// [trusted proxies](Self::trusted_proxies), whose peers are the
    /// proxies, it is off unless set.
    pub fn max_connections_per_address(mut self, connections: usize) -> Self {
        self.max_connections_per_address = Some(connections.max(1));
        self
    }

    /// How many requests the standalone server handles at once on one
    /// HTTP/2 connection (default 100, at least 1; `http2` feature): the
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` it announces.
    pub fn http2_max_concurrent_streams(mut self, streams: u32) -> Self {
        self.http2_max_concurrent_streams = streams.max(1);
        self
    }

    /// How many `subscriptions/listen` streams may be open at once
    /// (default 1024, at least 1), and how many of them one
    /// [caller](crate::middleware::Caller) may hold (default 16, at least
    /// 1). A listen stream lasts as long as its client wants and takes no
    /// place under [`max_in_flight`](Self::max_in_flight), so these bound
    /// them instead: one more is answered 503 with `Retry-After` and a
    /// JSON-RPC error. Callers are told apart by their principal, else
    /// their address (behind [trusted proxies](Self::trusted_proxies), the
    /// forwarded one).
    pub fn max_listen_streams(mut self, streams: usize, per_caller: usize) -> Self {
        self.max_listen_streams = streams.max(1);
        self.max_listen_streams_per_caller = per_caller.max(1);
        self
    }

    /// The per-address connection limit in force: the one set, else 128
    /// unless behind trusted proxies.
    pub(crate) fn connections_per_address(&self) -> Option<usize> {
        match (self.max_connections_per_address, self.trusted_proxies) {
            (Some(limit), _) => Some(limit),
            (None, None) => Some(128),
            (None, Some(_)) => None,
        }
    }

    /// How many requests may be handled at once (default 512, at least 1).
    /// One more is refused at once rather than queued: HTTP 503 with
    /// `Retry-After: 1` and a JSON-RPC error (`-32000`) echoing the
    /// request's id, so that a client matching answers by id knows which
    /// one to send again. Under a flood the requests already admitted keep
    /// their pace, and the others learn quickly that they must come back.
    ///
    /// A request holds its place while its handler runs: until its JSON
    /// answer is ready, or, answered with an event stream, until its
    /// handler finishes; a handler cut by the
    /// [request timeout](Self::request_timeout) gives its place back then.
    /// Counted: every request of the 2026-07-28 revision and of 2025-era
    /// sessions (a 2025-03-26 batch counts once). Not counted, since they
    /// last as long as the client wants and run no handler of the
    /// application: `subscriptions/listen` streams and the standalone
    /// streams of 2025-era sessions (bounded by
    /// [`max_connections`](Self::max_connections) instead), notifications,
    /// the client's answers, `initialize` (bounded by [`max_sessions`]) and
    /// the probes.
    #[cfg_attr(feature = "session", doc = "\n\n[`max_sessions`]: Self::max_sessions")]
    // Without the feature, no `initialize` comes: the name leads to the eras.
    #[cfg_attr(not(feature = "session"), doc = "\n\n[`max_sessions`]: crate::server::Eras")]
    ///
    /// Keep it under [`max_connections`](Self::max_connections) for the
    /// standalone server, so that a flood is refused quickly instead of
    /// waiting to be accepted. A request costs two atomic operations on
    /// one counter.
    ///
    /// ```
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// // At most 64 handlers at once (a tool that calls a rate-limited
    /// // API, say); the 65th request is answered 503 at once.
    /// let config = HttpConfig::default().max_in_flight(64);
    /// # let _ = config;
    /// ```
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self
    }

    /// How many bytes of events one event stream may hold for a client
    /// that does not read them (default 1 MiB, at least 4 KiB), beyond what
    /// the connection itself buffers. A client that falls further behind
    /// has its stream ended, in a way that tells it so:
    ///
    /// - a request answered with an event stream (progress, log messages
    ///   before its result) is cancelled, and its stream ends with a
    ///   `-32603` error for it, saying the client did not read its stream;
    /// - a `subscriptions/listen` stream ends with its closing result, as
    ///   at shutdown: the client listens again (and reads again what it
    ///   follows);
    /// - on a 2025-11-25 session, the connection reading a stream ends
    ///   with `retry:`, and the stream goes on: the client comes back with
    ///   `Last-Event-ID` and is sent what it missed (at most 128 events
    ///   wait, half of the 256 the stream keeps for that, so the client
    ///   has 128 more to come back before it misses any);
    /// - on older sessions, whose streams cannot be resumed, a request's
    ///   stream ends with a `-32603` error for the request, which is
    ///   cancelled, and the standalone stream's connection ends (the
    ///   client opens it again).
    ///
    /// Nothing is dropped silently from a stream that goes on. A listen
    /// stream takes the server's changes only as fast as its client reads
    /// them, so it gets there only with a burst of large notifications;
    /// one that falls behind the server's event bus is told that
    /// everything it follows may have changed. A client that reads nothing at all loses its connection
    /// after the [write timeout](Self::write_timeout) too.
    ///
    /// ```
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// let config = HttpConfig::default().max_stream_buffer(256 * 1024);
    /// # let _ = config;
    /// ```
    pub fn max_stream_buffer(mut self, bytes: usize) -> Self {
        self.max_stream_buffer = bytes.max(4096);
        self
    }

    /// How long requests in flight may take to finish once shutdown starts
    /// (default 10 s); connections still busy after that are closed.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Serves HTTPS (`tls` feature): the certificate chain and its private
    /// key from these PEM files (the chain's first certificate the
    /// server's own; the key PKCS#8, PKCS#1 or SEC1). Both are read when the
    /// server starts (a file that does not read stops it with an error
    /// naming the file) and again when either changes, so that a renewed
    /// certificate is served without a restart. ALPN offers HTTP/2 and
    /// HTTP/1.1. Standalone server only: an application that
    /// [mounts](crate::Server::http_service) the service terminates TLS
    /// itself.
    ///
    /// ```
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// let config = HttpConfig::default().tls("/etc/mcp/fullchain.pem", "/etc/mcp/privkey.pem");
    /// # let _ = config;
    /// ```
    #[cfg(feature = "tls")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
    pub fn tls(mut self, cert: impl Into<std::path::PathBuf>, key: impl Into<std::path::PathBuf>) -> Self {
        self.tls = Some(super::tls::TlsFiles { cert: cert.into(), key: key.into() });
        self
    }

    /// How many 2025-era sessions may be live at once (default 10 000, at
    /// least 1). Beyond it `initialize` is answered 503 with a JSON-RPC
    /// error, and the sessions already open are left alone: a flood of
    /// `initialize` cannot evict the clients being served. Expired sessions
    /// make room first. Servers that serve only the 2026-07-28 revision
    /// ([`Eras::Stateless`](crate::server::Eras::Stateless)) keep no sessions.
    #[cfg(feature = "session")]
    #[cfg_attr(docsrs, doc(cfg(feature = "session")))]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// How long a 2025-era session may go unused before it is ended
    /// (default 30 minutes): no request in that time and no stream of it
    /// being read. Its id is then answered 404, which tells the client to
    /// `initialize` again.
    #[cfg(feature = "session")]
    #[cfg_attr(docsrs, doc(cfg(feature = "session")))]
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle_timeout = idle;
        self
    }

    /// How long a 2025-era session's request that is not answered at once
    /// may hold back its response's head (default 1 s) so that, if it ends
    /// within that time having sent nothing (a tool reading a database or
    /// calling an API), it is answered as plain JSON: an event stream costs
    /// the server a task and the client a stream parser. A request that
    /// sends something first (progress, a log message, a question) gets its
    /// event stream at that moment, and one still going when the time is up
    /// gets it then. `Duration::ZERO` gives every request that waits its
    /// stream at once, with the priming event that tells its client where to
    /// resume from.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// // Behind a proxy that gives up on a response without a head after 500 ms.
    /// let config = HttpConfig::default().session_json_grace(Duration::from_millis(200));
    /// # let _ = config;
    /// ```
    #[cfg(feature = "session")]
    #[cfg_attr(docsrs, doc(cfg(feature = "session")))]
    pub fn session_json_grace(mut self, grace: Duration) -> Self {
        self.session_json_grace = grace;
        self
    }

    /// Where 2025-era sessions are kept (default: in this process's memory,
    /// [`MemorySessionStore`](crate::session::MemorySessionStore)). With a
    /// store several replicas share, such as [`RedisSessionStore`] (`redis`
    /// feature), a session opened on one replica is served by any other,
    /// behind a load balancer that does not route by `Mcp-Session-Id`: a
    /// request to the client may be answered on any replica, a DELETE on
    /// any replica ends the session everywhere. [`max_sessions`](Self::max_sessions)
    /// and [`session_idle_timeout`](Self::session_idle_timeout) bound the
    /// store's sessions, and, on each replica, the copies it holds. Every
    /// request of a session loads its record (one round trip to the store);
    /// while the store is out of reach, they are answered 503.
    ///
    /// An event stream stays with the replica that holds it, and its event
    /// ids name that replica. A `Last-Event-ID` GET reaching another replica
    /// is forwarded: the replica holding the stream resumes it and sends its
    /// events on through the store's messages, so a handler that ends its
    /// stream's connection ([`close_sse_stream`](crate::RequestContext::close_sse_stream))
    /// has its result delivered wherever the client comes back. A replica
    /// that does not answer within seconds (it is gone) makes that GET a
    /// 400, and one that falls silent while forwarding ends the resumed
    /// connection, as its own would have ended. The messages a
    /// request answered with plain JSON sends (its notifications, its
    /// requests to the client) go to the standalone stream of the replica
    /// serving it; clients that take an event stream, as clients do, get
    /// them on the request's own stream. List changes and resource updates
    /// reach every replica's standalone stream through the server's
    /// [`EventBus`](crate::events::EventBus), so give replicas a shared one
    /// ([`RedisBus`]) too.
    #[cfg_attr(
        feature = "redis",
        doc = "\n\n[`RedisSessionStore`]: crate::redis::RedisSessionStore\n[`RedisBus`]: crate::redis::RedisBus"
    )]
    // Without the feature the names lead to what those types implement.
    #[cfg_attr(
        not(feature = "redis"),
        doc = "\n\n[`RedisSessionStore`]: crate::session::SessionStore\n[`RedisBus`]: crate::events::EventBus"
    )]
    #[cfg(feature = "session")]
    #[cfg_attr(docsrs, doc(cfg(feature = "session")))]
    pub fn session_store(mut self, store: impl SessionStore) -> Self {
        self.session_store = Some(StoreSlot(Arc::new(store)));
        self
    }

    /// Answers liveness and readiness probes at these two paths (default
    /// off: they are then 404 like any other path of the standalone
    /// server), for load balancers and orchestrators. `GET` or `HEAD`:
    ///
    /// - `live`: 200 `ok` while the process serves requests;
    /// - `ready`: 200 `ok` when the stores the server depends on answer
    ///   within a second (its [`EventBus`](crate::events::EventBus), and
    ///   the [session store] when it serves 2025-era clients: a Redis
    ///   `PING` for the Redis ones, see their `ready` method), 503 `not
    ///   ready` otherwise, and 503 from the moment shutdown begins, while
    ///   requests in flight finish, so that a balancer stops sending new
    ///   ones (see [`shutdown_drain`](Self::shutdown_drain)). Why a replica
    ///   is not ready is logged, not sent.
    #[cfg_attr(feature = "session", doc = "\n\n[session store]: Self::session_store")]
    // Without the feature, no 2025-era client is served: the name leads to the eras.
    #[cfg_attr(not(feature = "session"), doc = "\n\n[session store]: crate::server::Eras")]
    ///
    /// Probes skip the `Origin`/`Host` check: balancers probe by address
    /// (`Host: 10.0.3.7:3000`), which [`allowed_hosts`](Self::allowed_hosts)
    /// need not list, and the answer reveals nothing else. They skip every
    /// MCP check too, and CORS. Choose paths other than the MCP endpoint's:
    /// a probe path is answered as a probe, whatever the method.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// // Kubernetes: livenessProbe on /healthz, readinessProbe on /readyz
    /// // (periodSeconds: 2), and a drain longer than two probe periods.
    /// let config = HttpConfig::default()
    ///     .health_endpoints("/healthz", "/readyz")
    ///     .shutdown_drain(Duration::from_secs(5));
    /// # let _ = config;
    /// ```
    ///
    /// A [mounted](crate::Server::http_service) [`McpService`](super::McpService) answers the probes
    /// only on the requests its host application routes to it, by their
    /// path as the service sees it: mount it at the probe paths too
    /// (`route_service("/readyz", service.clone())`), or answer them with
    /// the application's own routes, asking [`McpService::is_ready`](super::McpService::is_ready). The
    /// application owns shutdown then: it calls [`McpService::drain`](super::McpService::drain) when
    /// shutdown begins.
    pub fn health_endpoints(mut self, live: impl Into<String>, ready: impl Into<String>) -> Self {
        let path = |p: String| if p.starts_with('/') { p } else { format!("/{p}") };
        self.health = Some(HealthPaths { live: path(live.into()), ready: path(ready.into()) });
        self
    }

    /// How long the standalone server keeps accepting and serving requests
    /// once shutdown begins, with its readiness probe answering 503, before
    /// it stops accepting and gives requests in flight
    /// [`shutdown_grace`](Self::shutdown_grace) to finish (default none).
    /// A balancer that probes readiness every few seconds needs that long
    /// to stop sending new requests here; without it, they are refused
    /// with a closed port in the meantime. Listen streams close at the end
    /// of it.
    pub fn shutdown_drain(mut self, drain: Duration) -> Self {
        self.shutdown_drain = drain;
        self
    }
}

/// The two probe paths, as configured.
#[derive(Debug, Clone)]
pub(crate) struct HealthPaths {
    pub(crate) live: String,
    pub(crate) ready: String,
}

/// Which probe a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    Live,
    Ready,
}

impl HealthPaths {
    pub(crate) fn probe(&self, path: &str) -> Option<Probe> {
        if path == self.live {
            Some(Probe::Live)
        } else if path == self.ready {
            Some(Probe::Ready)
        } else {
            None
        }
    }
}
