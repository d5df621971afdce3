//! [`Refusal`]: a request the server answered without running it, as the
//! layers hear of it ([`Layer::refused`](super::Layer::refused)).

use std::net::SocketAddr;

use crate::handler::caller::Caller;
use crate::handler::principal::Principal;

/// Why a request was refused before it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefusalReason {
    /// Its `Host` or `Origin` is not one the server answers for (403): DNS
    /// rebinding, or a web page of another origin.
    Origin,
    /// No valid bearer token on a protected server (401, or 400 for a
    /// malformed one).
    Unauthenticated,
    /// Its caller's scopes do not allow what it asks (403, or `-32001` in a
    /// batch).
    Forbidden,
    /// It is not a request the server serves as sent: an unknown method,
    /// tool, prompt or protocol version, params or headers that do not
    /// check (a JSON-RPC error before any handler).
    Invalid,
    /// Too many requests in flight on the server (503).
    Busy,
    /// A layer's [`admit`](super::Layer::admit) refused it (a rate limit).
    Admission,
}

impl RefusalReason {
    /// A short name for logs: `origin`, `unauthenticated`, `forbidden`,
    /// `invalid`, `busy`, `admission`.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalReason::Origin => "origin",
            RefusalReason::Unauthenticated => "unauthenticated",
            RefusalReason::Forbidden => "forbidden",
            RefusalReason::Invalid => "invalid",
            RefusalReason::Busy => "busy",
            RefusalReason::Admission => "admission",
        }
    }
}

/// A request the server refused before any handler ran, and before any
/// layer's `call` saw it: what [`Layer::refused`](super::Layer::refused)
/// hears, so that an audit trail holds the refusals too. Some of it is not
/// known for every refusal: a request refused for its `Origin` is refused
/// before its body is read, so it has no method.
#[derive(Debug, Clone, Copy)]
pub struct Refusal<'a> {
    pub(crate) reason: RefusalReason,
    pub(crate) message: &'a str,
    pub(crate) method: Option<&'a str>,
    pub(crate) target: Option<&'a str>,
    pub(crate) principal: Option<&'a Principal>,
    pub(crate) client_address: Option<SocketAddr>,
    pub(crate) error_code: Option<i32>,
    pub(crate) http_status: Option<u16>,
}

impl<'a> Refusal<'a> {
    pub(crate) fn new(reason: RefusalReason, message: &'a str) -> Self {
        Refusal {
            reason,
            message,
            method: None,
            target: None,
            principal: None,
            client_address: None,
            error_code: None,
            http_status: None,
        }
    }

    /// A refusal of the request whose head is `parts`, answered with
    /// `status`: its caller as far as the head says.
    #[cfg(feature = "http")]
    pub(crate) fn over_http(
        reason: RefusalReason,
        message: &'a str,
        parts: Option<&'a http::request::Parts>,
        status: http::StatusCode,
    ) -> Self {
        let mut refusal = Refusal::new(reason, message);
        refusal.principal = parts.and_then(|parts| parts.extensions.get::<Principal>());
        refusal.client_address =
            parts.and_then(|parts| parts.extensions.get::<crate::handler::caller::ClientAddress>()).map(|a| a.0);
        refusal.http_status = Some(status.as_u16());
        refusal
    }

    /// Why it was refused.
    pub fn reason(&self) -> RefusalReason {
        self.reason
    }

    /// What the client was told.
    pub fn message(&self) -> &str {
        self.message
    }

    /// The JSON-RPC method, when the request got as far as naming one.
    pub fn method(&self) -> Option<&str> {
        self.method
    }

    /// The tool, prompt or resource it names, when known.
    pub fn target(&self) -> Option<&str> {
        self.target
    }

    /// The verified caller, when it got past authentication.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal
    }

    /// The client's address over HTTP (see
    /// [`McpRequest::client_address`](super::McpRequest::client_address)).
    pub fn client_address(&self) -> Option<SocketAddr> {
        self.client_address
    }

    /// Who made the request (see [`Caller`]).
    pub fn caller(&self) -> Caller {
        Caller::of(self.principal, self.client_address.map(|address| address.ip()))
    }

    /// The JSON-RPC error code it was answered with, if any (a refusal of
    /// the HTTP transport has none).
    pub fn error_code(&self) -> Option<i32> {
        self.error_code
    }

    /// The HTTP status it was answered with, over HTTP.
    pub fn http_status(&self) -> Option<u16> {
        self.http_status
    }
}
