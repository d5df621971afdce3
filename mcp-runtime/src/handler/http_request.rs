//! The head of the HTTP request that carried a call, kept for its handler:
//! read through [`RequestContext::http_request`](crate::RequestContext::http_request),
//! and its extensions through the [`Extension`](crate::extract::Extension) extractor.
//!
//! Only HTTP has a request; over stdio, and when a message is dispatched in
//! process, there is none.

#[cfg(feature = "http")]
use crate::handler::principal::Principal;

/// The head of the HTTP request a call came in (method, URI, headers,
/// extensions), kept for the handler; empty for other transports.
///
/// Boxed, so that requests that do not come over HTTP, and the values that
/// carry it until the handler runs, grow by one pointer only.
#[derive(Default)]
pub(crate) struct HttpRequest {
    #[cfg(feature = "http")]
    parts: Option<Box<http::request::Parts>>,
}

impl HttpRequest {
    /// The head of a request received over HTTP. Moved, never copied: the
    /// headers are not cloned for handlers that do not read them.
    #[cfg(feature = "http")]
    pub(crate) fn new(parts: http::request::Parts) -> Self {
        HttpRequest { parts: Some(Box::new(parts)) }
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
}
