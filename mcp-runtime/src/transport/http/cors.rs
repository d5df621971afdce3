//! CORS for the standalone server, opted into with [`HttpConfig::cors`]:
//! browser-based clients send a preflight `OPTIONS` before their first
//! `POST` (every MCP request carries headers outside the CORS safelist) and
//! can only read responses that name their origin.
//!
//! The origins are the ones the `Origin`/`Host` check accepts (see
//! [`HttpConfig`]), so a page is either refused or allowed by both; the
//! header lists are [`CORS_REQUEST_HEADERS`] and [`CORS_EXPOSED_HEADERS`],
//! which an application mounting [`McpService`](super::McpService) behind
//! its own CORS layer can use too.
//!
//! [`HttpConfig::cors`]: super::HttpConfig::cors
//! [`HttpConfig`]: super::HttpConfig

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ACCESS_CONTROL_REQUEST_HEADERS,
    ACCESS_CONTROL_REQUEST_METHOD, ORIGIN, VARY,
};
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode};

use super::origin::OriginPolicy;
use crate::transport::http::body::McpBody;

/// The request headers a browser may send to the MCP endpoint (lower case,
/// as a preflight's `Access-Control-Request-Headers` names them): those of
/// this revision, `Authorization`, and the ones session clients send.
///
/// `Mcp-Param-{Name}` headers (a tool argument marked `x-mcp-header`) are
/// allowed too, by prefix ([`CORS_REQUEST_HEADER_PREFIX`]); a CORS layer
/// that only takes a fixed list must list the ones the server's tools use.
///
/// Mounted in an axum application, with `tower-http`'s `CorsLayer`:
///
/// ```
/// use axum::Router;
/// use http::{HeaderName, HeaderValue, Method};
/// use mcp_runtime::Server;
/// use mcp_runtime::transport::http::{CORS_EXPOSED_HEADERS, CORS_REQUEST_HEADERS, HttpConfig};
/// use tower_http::cors::CorsLayer;
///
/// let server = Server::builder("demo", "1.0.0").build().unwrap();
/// let config = HttpConfig::default().allowed_origins(["https://app.example.com"]);
/// let names = |list: &[&'static str]| list.iter().map(|h| HeaderName::from_static(h)).collect::<Vec<_>>();
/// // Plus the `Mcp-Param-*` headers of the server's tools, if any.
/// let mut request_headers = names(CORS_REQUEST_HEADERS);
/// request_headers.push(HeaderName::from_static("mcp-param-region"));
/// let cors = CorsLayer::new()
///     .allow_origin(HeaderValue::from_static("https://app.example.com"))
///     .allow_methods([Method::POST])
///     .allow_headers(request_headers)
///     .expose_headers(names(CORS_EXPOSED_HEADERS));
/// let mut app: Router = Router::new().route_service("/mcp", server.http_service(config)).layer(cors);
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// # use tower_service::Service as _;
/// # let preflight = http::Request::options("/mcp")
/// #     .header("host", "localhost")
/// #     .header("origin", "https://app.example.com")
/// #     .header("access-control-request-method", "POST")
/// #     .header("access-control-request-headers", "content-type, mcp-method, mcp-param-region")
/// #     .body(axum::body::Body::empty())
/// #     .unwrap();
/// # let answer = app.call(preflight).await.unwrap();
/// # assert_eq!(answer.headers()["access-control-allow-origin"], "https://app.example.com");
/// # let allowed = answer.headers()["access-control-allow-headers"].to_str().unwrap();
/// # assert!(allowed.contains("mcp-method") && allowed.contains("mcp-param-region"), "{allowed}");
/// # });
/// ```
///
/// Keep the layer's origins and [`HttpConfig::allowed_origins`](super::HttpConfig::allowed_origins)
/// the same: the service refuses (403) an origin the layer would allow.
pub const CORS_REQUEST_HEADERS: &[&str] = &[
    "content-type",
    "accept",
    "authorization",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
    "mcp-session-id",
    // The proof of a DPoP-bound token (RFC 9449).
    "dpop",
];

/// The prefix of the `Mcp-Param-{Name}` request headers, allowed whatever
/// the name.
pub const CORS_REQUEST_HEADER_PREFIX: &str = "mcp-param-";

/// The response headers a browser-based client needs to read: the session
/// id, the authentication challenge of a 401 or 403, and the nonce a DPoP
/// proof must carry.
pub const CORS_EXPOSED_HEADERS: &[&str] = &["mcp-session-id", "www-authenticate", "dpop-nonce"];

/// How long a browser may cache a preflight's answer, in seconds.
const MAX_AGE: HeaderValue = HeaderValue::from_static("7200");

/// The CORS rules of one standalone server.
#[derive(Debug)]
pub(super) struct Cors {
    /// The server's `Origin`/`Host` rules, settled for its address.
    origins: OriginPolicy,
    exposed: HeaderValue,
    /// POST, and GET and DELETE when 2025-era sessions are served.
    methods: HeaderValue,
}

impl Cors {
    pub(super) fn new(origins: OriginPolicy, sessions: bool) -> Self {
        let exposed = HeaderValue::from_str(&CORS_EXPOSED_HEADERS.join(", ")).unwrap_or(HeaderValue::from_static(""));
        let methods = HeaderValue::from_static(if sessions { "GET, POST, DELETE" } else { "POST" });
        Cors { origins, exposed, methods }
    }

    /// The request's `Origin`, when it is one the server accepts: a request
    /// without one is not cross-origin, and one refused gets its 403 from
    /// the service, without any CORS header.
    pub(super) fn allowed_origin<B>(&self, request: &Request<B>) -> Option<HeaderValue> {
        let origin = request.headers().get(ORIGIN)?;
        self.origins.check(request.headers(), request.uri()).ok()?;
        Some(origin.clone())
    }

    /// The answer to a preflight from an allowed origin, or `None` when the
    /// request is not a preflight (an `OPTIONS` naming the method it
    /// prepares).
    pub(super) fn preflight<B>(&self, request: &Request<B>, origin: &HeaderValue) -> Option<http::Response<McpBody>> {
        if request.method() != Method::OPTIONS || !request.headers().contains_key(ACCESS_CONTROL_REQUEST_METHOD) {
            return None;
        }
        let mut response = http::Response::new(McpBody::empty());
        *response.status_mut() = StatusCode::NO_CONTENT;
        let headers = response.headers_mut();
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        headers.insert(ACCESS_CONTROL_ALLOW_METHODS, self.methods.clone());
        if let Some(allowed) = allowed_request_headers(request.headers()) {
            headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, allowed);
        }
        headers.insert(ACCESS_CONTROL_MAX_AGE, MAX_AGE);
        headers.insert(
            VARY,
            HeaderValue::from_static("origin, access-control-request-method, access-control-request-headers"),
        );
        Some(response)
    }

    /// What an actual response to an allowed origin carries.
    fn decorate(&self, headers: &mut HeaderMap, origin: HeaderValue) {
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, self.exposed.clone());
        headers.append(VARY, HeaderValue::from_static("origin"));
    }
}

/// The headers of `Access-Control-Request-Headers` the endpoint takes,
/// named back as the preflight asked: a browser then sends the request only
/// if every header it needs is there.
fn allowed_request_headers(headers: &HeaderMap) -> Option<HeaderValue> {
    let requested = headers.get_all(ACCESS_CONTROL_REQUEST_HEADERS).iter().filter_map(|v| v.to_str().ok());
    let allowed: Vec<String> = requested
        .flat_map(|list| list.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| is_allowed_request_header(name))
        .collect();
    if allowed.is_empty() {
        return None;
    }
    HeaderValue::from_str(&allowed.join(", ")).ok()
}

/// Whether a browser may send `name` (lower case) to the endpoint.
fn is_allowed_request_header(name: &str) -> bool {
    if CORS_REQUEST_HEADERS.contains(&name) {
        return true;
    }
    name.strip_prefix(CORS_REQUEST_HEADER_PREFIX).is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    })
}

/// The CORS headers owed to one response: the rules and the allowed origin.
pub(super) type Grant = Box<(std::sync::Arc<Cors>, HeaderValue)>;

pin_project_lite::pin_project! {
    /// A response future whose response gets the CORS headers of an allowed
    /// origin; without one it passes the response through untouched.
    pub(super) struct WithCors<F> {
        #[pin]
        inner: F,
        // Boxed: a server without CORS moves and drops one null pointer.
        grant: Option<Grant>,
    }
}

impl<F> WithCors<F> {
    pub(super) fn new(inner: F, grant: Option<Grant>) -> Self {
        WithCors { inner, grant }
    }
}

impl<F, B> Future for WithCors<F>
where
    F: Future<Output = Result<http::Response<B>, Infallible>>,
{
    type Output = Result<http::Response<B>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = ready!(this.inner.poll(cx))?;
        if let Some(grant) = this.grant.take() {
            let (cors, origin) = *grant;
            cors.decorate(response.headers_mut(), origin);
        }
        Poll::Ready(Ok(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preflight_gets_back_the_mcp_headers_it_names_and_no_others() {
        let mut headers = HeaderMap::new();
        headers.append(
            ACCESS_CONTROL_REQUEST_HEADERS,
            HeaderValue::from_static("Content-Type,mcp-protocol-version, MCP-METHOD,mcp-name"),
        );
        headers
            .append(ACCESS_CONTROL_REQUEST_HEADERS, HeaderValue::from_static("mcp-param-region, x-secret, mcp-param-"));
        let allowed = allowed_request_headers(&headers).expect("some allowed");
        assert_eq!(allowed, "content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region");
        assert_eq!(allowed_request_headers(&HeaderMap::new()), None);
    }
}
