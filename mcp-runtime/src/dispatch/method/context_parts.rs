//! What a route's handler context is made of besides the request itself
//! ([`ContextParts`]), and the contexts each kind of run makes of it.

#[cfg(feature = "tasks")]
use tokio_util::sync::CancellationToken;

use crate::dispatch::opened::Opened;
use crate::dispatch::{Prepared, RequestOptions};
use crate::handler::context::{DiscardNotifications, InputSlot, RequestContext};
use crate::handler::http_request::HttpRequest;

/// What a route's handler context is made of besides the request itself.
pub(super) struct ContextParts {
    pub(super) options: RequestOptions,
    pub(super) http: HttpRequest,
    /// The retry's `requestState`, when it was opened before the layers.
    pub(super) opened: Option<Box<Opened>>,
}

impl ContextParts {
    /// The handler's context: each route makes at most one, which takes
    /// the transport's options over.
    pub(super) fn context(self, p: &Prepared, input: InputSlot) -> RequestContext {
        let RequestOptions { sink, cancellation } = self.options;
        let method = p.method.name();
        RequestContext::new(
            p.id.clone(),
            method,
            p.meta.clone(),
            sink,
            cancellation,
            input,
            p.server.access(),
            self.http,
        )
    }

    /// The context of a handler that runs as a task: it outlives the
    /// request, so it has none of the transport's sink or token (progress
    /// and log messages go nowhere: the tasks extension carries neither),
    /// and `cancel` fires on `tasks/cancel`.
    #[cfg(feature = "tasks")]
    pub(super) fn task_context(self, p: &Prepared, input: InputSlot, cancel: CancellationToken) -> RequestContext {
        let options = RequestOptions { sink: DiscardNotifications::shared(), cancellation: Some(cancel) };
        ContextParts { options, http: self.http, opened: None }.context(p, input)
    }

    /// A context that only says who makes the request (for a route without
    /// a handler), and the transport's options.
    pub(super) fn split(self, p: &Prepared) -> (RequestContext, RequestOptions) {
        let options = self.options.clone();
        let quiet = RequestOptions { sink: DiscardNotifications::shared(), cancellation: None };
        (ContextParts { options: quiet, http: self.http, opened: None }.context(p, InputSlot::Unavailable), options)
    }
}
