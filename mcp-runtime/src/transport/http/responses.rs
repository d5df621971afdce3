//! The responses an MCP endpoint sends: a JSON-RPC response as JSON or as
//! an event stream, and the transport's own answers (an HTTP-level refusal
//! with a JSON-RPC error body, 405, 403 with its challenge, an empty 202).

use http::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use http::{HeaderValue, Method, StatusCode};

use super::body::McpBody;
use super::in_flight::RETRY_AFTER_SECONDS;
use super::sse::EventStream;
use crate::protocol::ErrorObject;
use crate::registry::scopes::ScopeRefusal;
use crate::response::{Response, Stage};

/// Asks reverse proxies not to buffer an event stream.
const X_ACCEL_BUFFERING: http::HeaderName = http::HeaderName::from_static("x-accel-buffering");

/// 405, naming the one method every request may use.
pub(crate) fn not_allowed(method: &Method) -> http::Response<McpBody> {
    let mut response = transport_error(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("Method {method} is not allowed: the MCP endpoint takes POST only"),
    );
    response.headers_mut().insert(ALLOW, HeaderValue::from_static("POST"));
    response
}

pub(crate) fn status_of(response: &Response) -> StatusCode {
    StatusCode::from_u16(response.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

pub(crate) fn json_response(response: Response) -> http::Response<McpBody> {
    let status = status_of(&response);
    with_body(status, "application/json", McpBody::full(response.into_bytes()))
}

pub(crate) fn event_stream(status: StatusCode, stream: EventStream) -> http::Response<McpBody> {
    event_stream_response(status, McpBody::stream(stream))
}

/// An event stream's response: its media type, and the headers that keep
/// caches and proxies from holding events back.
pub(crate) fn event_stream_response(status: StatusCode, body: McpBody) -> http::Response<McpBody> {
    let mut response = with_body(status, "text/event-stream", body);
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Reverse proxies (nginx and those that follow it) would otherwise hold
    // events back until a buffer fills: a listen stream could wait forever.
    headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    response
}

/// `response` (the refusal's JSON-RPC error) as the 403 of RFC 6750 §3.1,
/// whose challenge names the scopes a token must grant: what an OAuth
/// client acts on to ask for them (step-up authorization).
///
/// `parts`: the head of the refused request, whose token's scheme the
/// challenge repeats.
pub(crate) fn insufficient_scope(
    mut response: http::Response<McpBody>,
    refusal: &ScopeRefusal,
    resource_metadata: Option<&str>,
    parts: Option<&http::request::Parts>,
) -> http::Response<McpBody> {
    *response.status_mut() = StatusCode::FORBIDDEN;
    #[cfg(feature = "auth")]
    let scheme = match parts.and_then(|parts| parts.extensions.get::<crate::auth::dpop::ProvenPossession>()) {
        Some(_) => "DPoP",
        None => "Bearer",
    };
    #[cfg(not(feature = "auth"))]
    let scheme = {
        let _ = parts;
        "Bearer"
    };
    // Scope tokens are visible ASCII without `"` or `\` (checked when the
    // server was built): the challenge is always a valid header value.
    if let Ok(challenge) = HeaderValue::from_str(&refusal.challenge(scheme, resource_metadata)) {
        response.headers_mut().insert(WWW_AUTHENTICATE, challenge);
    }
    response
}

/// An HTTP-level refusal, with a JSON-RPC error body without id.
pub(crate) fn transport_error(status: StatusCode, message: impl Into<String>) -> http::Response<McpBody> {
    let body = Response::error(None, ErrorObject::invalid_request(message), Stage::Envelope).to_json();
    with_body(status, "application/json", McpBody::full(body))
}

pub(crate) fn empty(status: StatusCode) -> http::Response<McpBody> {
    let mut response = http::Response::new(McpBody::empty());
    *response.status_mut() = status;
    response
}

pub(crate) fn with_body(status: StatusCode, content_type: &'static str, body: McpBody) -> http::Response<McpBody> {
    let mut response = http::Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// 503 with `Retry-After`, carrying `body` (a JSON-RPC error).
pub(crate) fn busy_http(body: impl Into<bytes::Bytes>) -> http::Response<McpBody> {
    let mut response = with_body(StatusCode::SERVICE_UNAVAILABLE, "application/json", McpBody::full(body));
    response.headers_mut().insert(RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}
