//! The head of the HTTP request that carried a call, kept for its handler:
//! read through [`RequestContext::http_request`](crate::RequestContext::http_request),
//! and its extensions through the [`Extension`](crate::extract::Extension) extractor.
//!
//! Only HTTP has a request; over stdio, and when a message is dispatched in
//! process, there is none.

use crate::handler::caller::Caller;
#[cfg(feature = "http")]
use crate::handler::caller::ClientAddress;
#[cfg(feature = "http")]
use crate::handler::principal::Principal;

/// The head of the HTTP request a call came in (method, URI, headers,
/// extensions), kept for the handler; empty for other transports.
///
/// Behind one pointer, so that requests that do not come over HTTP, and the
/// values that carry it until the handler runs, grow by that pointer only;
/// shared, so that a 2025-era session's request, which may reach the
/// dispatcher more than once, hands it over without copying the headers.
#[derive(Default)]
pub(crate) struct HttpRequest {
    #[cfg(feature = "http")]
    parts: Option<std::sync::Arc<http::request::Parts>>,
}

impl HttpRequest {
    /// The head of a request received over HTTP. Moved, never copied: the
    /// headers are not cloned for handlers that do not read them.
    #[cfg(feature = "http")]
    pub(crate) fn new(parts: http::request::Parts) -> Self {
        HttpRequest { parts: Some(std::sync::Arc::new(parts)) }
    }

    /// The head of a request received over HTTP, shared with its transport.
    #[cfg(all(feature = "http", feature = "session"))]
    pub(crate) fn shared(parts: std::sync::Arc<http::request::Parts>) -> Self {
        HttpRequest { parts: Some(parts) }
    }

    #[cfg(feature = "http")]
    pub(crate) fn parts(&self) -> Option<&http::request::Parts> {
        self.parts.as_deref()
    }

    /// The caller an authentication layer put in the request's extensions
    /// (verified only on an authenticated server: whoever reads it checks).
    #[cfg(feature = "http")]
    pub(crate) fn principal(&self) -> Option<&Principal> {
        self.parts()?.extensions.get::<Principal>()
    }

    /// The client's address, when the transport put it in the request's
    /// extensions (see [`ClientAddress`]).
    #[cfg(feature = "http")]
    pub(crate) fn client_address(&self) -> Option<std::net::SocketAddr> {
        self.parts()?.extensions.get::<ClientAddress>().map(|address| address.0)
    }

    /// Whom a `requestState` is sealed for: the identity of an
    /// authenticated caller. Unauthenticated callers are not told apart
    /// (an address is no identity: it changes, and many share one), so
    /// their states are anybody's.
    pub(crate) fn caller_identity(&self) -> Option<[u8; 16]> {
        #[cfg(feature = "http")]
        return self.principal().map(Principal::identity);
        #[cfg(not(feature = "http"))]
        None
    }

    /// Who makes the request.
    pub(crate) fn caller(&self) -> Caller {
        #[cfg(feature = "http")]
        return Caller::of(self.principal(), self.client_address().map(|address| address.ip()));
        #[cfg(not(feature = "http"))]
        Caller::of(None, None)
    }
}
