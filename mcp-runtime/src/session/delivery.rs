//! [`Delivery`]: how one request of a session reaches its client, which the
//! bridge serves it through and its observation reads its origin from.

use std::sync::Arc;
use std::time::Duration;

use super::destination::Destination;

/// A request's stream that can be resumed, whose connection a handler may
/// end (so that its client comes back for the rest).
pub(crate) trait Resumable: Send + Sync {
    /// Ends the connection the stream is read on, leaving the stream to be
    /// resumed; `false` when there was none to end.
    fn close_connection(&self) -> bool;
}

/// What ends the connection of a request's resumable stream.
pub(crate) type CloseConnection = Arc<dyn Resumable>;

/// How one request's messages reach the client, and what its transport
/// adds to it.
pub(crate) struct Delivery {
    /// Where its notifications and its requests to the client go.
    pub(crate) outlet: Destination,
    /// Set when the stream its messages go to can be resumed (a 2025-11-25
    /// session over HTTP): what a handler's
    /// [`close_sse_stream`](crate::RequestContext::close_sse_stream) does.
    pub(crate) close: Option<CloseConnection>,
    /// How long it may run before it is answered with `-32603`.
    pub(crate) timeout: Option<Duration>,
    /// The head of the HTTP request that carried it, for the handler.
    #[cfg(feature = "http")]
    pub(crate) http: Option<Arc<http::request::Parts>>,
}

impl Delivery {
    /// Messages to `outlet`, and nothing else: no resumable stream, no
    /// time limit, no HTTP request: a stdio session's.
    #[cfg(feature = "stdio")]
    pub(crate) fn outlet(outlet: Destination) -> Self {
        Delivery {
            outlet,
            close: None,
            timeout: None,
            #[cfg(feature = "http")]
            http: None,
        }
    }
}
