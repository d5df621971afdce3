//! Streamable HTTP (revision 2026-07-28): one POST endpoint answering
//! `application/json`, or `text/event-stream` when a request sends
//! notifications (progress, log messages) before its result.
//!
//! Two ways in:
//!
//! - [`Server::serve_http`](crate::Server::serve_http) binds an address and serves until SIGINT or
//!   SIGTERM, with every limit of [`HttpConfig`] applied, speaking HTTP/1.1 and HTTP/2 (with prior
//!   knowledge, as `curl --http2-prior-knowledge` does; the connection's first bytes tell) on the
//!   same port: a browser host behind a proxy that speaks HTTP/2 to the server is not held to six
//!   connections, each held by a stream;
//! - [`Server::http_service`](crate::Server::http_service) returns an [`McpService`], a tower `Service`
//!   to mount inside an existing application (for example with axum's
//!   `Router::route_service("/mcp", service)`), next to other routes and
//!   middleware.
//!
//! ```no_run
//! use mcp_runtime::{Server, entry::ToolEntry};
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = Server::builder("hello", "1.0.0")
//!     .tool(ToolEntry::new("hello", || async { "Hello!" }))
//!     .build()
//!     .expect("a valid server");
//! server.serve_http("127.0.0.1:3000").await // POST http://127.0.0.1:3000/mcp
//! # }
//! ```
//!
//! What a request goes through, in order (after the
//! [probes](HttpConfig::health_endpoints), when on, which are answered
//! first): the `Origin`/`Host` check (403), on a server protected with
//! `ServerBuilder::authorization` (`auth` feature) its Protected Resource Metadata and then the bearer
//! token (401, 400 for a token in the query string, 503 while the issuer is
//! out of reach), the method (405 with `Allow: POST`), `Content-Type` (415) and `Accept`
//! (406), the body limit (413) and read timeout (408), then the dispatcher's
//! pipeline, where the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//! `Mcp-Param-*` headers are compared with the body (400 with `-32020`),
//! then the [in-flight limit](HttpConfig::max_in_flight) (503 with
//! `Retry-After`). Notifications posted by the client are answered 202 with
//! an empty body.
//!
//! Guarantees: nothing is sent for a request after its response; a client
//! that disconnects cancels its request (the handler's
//! [`CancellationToken`](crate::CancellationToken) fires, and its future is
//! dropped after the server's
//! [cancellation grace](crate::ServerBuilder::cancellation_grace)); every error
//! response echoes the request id when it could be read. Not provided:
//! HTTP/2, TLS (put a reverse proxy in front), and CORS for a mounted
//! service (the standalone server has it: [`HttpConfig::cors`]).
//!
//! # 2025-era clients
//!
//! Unless the server serves only the 2026-07-28 revision
//! ([`Eras`](crate::server::Eras)), the same endpoint serves clients of 2025-11-25,
//! 2025-06-18 and 2025-03-26, each request's era told apart after the
//! `Origin`/`Host` check: a body carrying the 2026-07-28 `_meta` is always
//! stateless; `initialize` opens a session, whose id the response carries in
//! `Mcp-Session-Id`; a request with that header belongs to its session
//! (404 once the session is gone); a 2025-era `MCP-Protocol-Version`
//! without a session id is refused with 400. A session's requests are
//! POSTs as above (a JSON-RPC error travels with 200 there), a GET with the
//! session id opens its stream of list changes and resource updates (a
//! newer GET takes the place of an older one), a DELETE ends it. Such a
//! request is not cancelled by a closed connection (the client sends
//! `notifications/cancelled`), and on 2025-11-25 sessions a stream can be
//! resumed with `Last-Event-ID` (see
//! [`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream)).
//! How many sessions are kept and for how long: [`HttpConfig::max_sessions`]
//! and [`HttpConfig::session_idle_timeout`]. Where: in the process's memory
//! by default, so that replicas behind a load balancer need it to route by
//! `Mcp-Session-Id`; in a store the replicas share
//! ([`HttpConfig::session_store`], such as [`RedisSessionStore`]), any replica
//! serves any session, and a stream held by one replica is resumed through
//! any other (see that method for the details).
#![cfg_attr(
    all(feature = "session", feature = "redis"),
    doc = "\n\n[`RedisSessionStore`]: crate::redis::RedisSessionStore"
)]
// Without `redis` the name leads to what the store implements; without
// `session` (no sessions) every name of this paragraph leads to the eras.
#![cfg_attr(
    all(feature = "session", not(feature = "redis")),
    doc = "\n\n[`RedisSessionStore`]: crate::session::SessionStore"
)]
#![cfg_attr(
    not(feature = "session"),
    doc = "\n\n[`HttpConfig::max_sessions`]: crate::server::Eras\n\
           [`HttpConfig::session_idle_timeout`]: crate::server::Eras\n\
           [`HttpConfig::session_store`]: crate::server::Eras\n\
           [`RedisSessionStore`]: crate::server::Eras"
)]

#[cfg(feature = "auth")]
mod auth;
// The parts every endpoint is built from, whatever the era it speaks:
// bodies read under limits, response bodies (one JSON document, an event
// stream, a stream fed by a queue), the responses the transport sends by
// itself, `Content-Type` and `Accept`, and the limits on requests at once
// and on listen streams. The 2025-era sessions (`session`) use them too.
pub(crate) mod body;
#[cfg(feature = "server-card")]
mod card;
mod config;
mod cors;
pub(crate) mod deadline;
mod forwarded;
mod health;
mod idle;
pub(crate) mod in_flight;
pub(crate) mod listen_limit;
pub(crate) mod media;
#[cfg(feature = "oauth-proxy")]
mod oauth_proxy;
mod origin;
mod per_address;
mod protocol;
mod request_headers;
pub(crate) mod responses;
mod serve;
mod service;
// 2025-era sessions over this transport (`initialize`, `Mcp-Session-Id`);
// what a session means is the `session` module's.
#[cfg(feature = "session")]
pub(crate) mod session;
mod shared;
pub(crate) mod sse;
mod stall;
#[cfg(feature = "tls")]
mod tls;

pub use body::McpBody;
pub use config::HttpConfig;
pub use cors::{CORS_EXPOSED_HEADERS, CORS_REQUEST_HEADER_PREFIX, CORS_REQUEST_HEADERS};
pub use forwarded::ForwardedHeader;
pub use service::{McpService, PeerAddress, ResponseFuture};

/// The readers of this transport, for [`crate::fuzzing`].
#[cfg(feature = "fuzzing")]
pub(crate) mod fuzzing {
    use std::borrow::Cow;

    use serde_json::value::RawValue;
    use serde_json::{Map, Value};

    use super::request_headers::{RequestHeaders, check_params, decode};
    use crate::dispatch::HeaderCheck;
    use crate::protocol::ErrorObject;

    #[cfg(feature = "session")]
    pub(crate) use crate::transport::http::session::read_last_event_id;

    pub(crate) fn decode_header_value(value: &str) -> Result<Cow<'_, str>, &'static str> {
        decode(value)
    }

    pub(crate) fn check_headers(
        headers: &http::HeaderMap,
        method: &str,
        protocol_version: &str,
        name: Option<&str>,
        input_schema: &Map<String, Value>,
        arguments: Option<&RawValue>,
    ) -> Option<Result<(), ErrorObject>> {
        let params = crate::registry::param_headers::find(input_schema).ok()?;
        let checks = RequestHeaders::new(headers);
        Some(
            checks
                .check_request(method, protocol_version, name)
                .and_then(|()| check_params(headers, &params, arguments)),
        )
    }
}
