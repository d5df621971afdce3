//! The answers of a session's endpoint that carry no handler's result:
//! JSON-RPC errors at the HTTP level, the 503 of a session that cannot be
//! served now, one message as JSON or as a one-event stream, and the
//! response reading one of a session's streams.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::StatusCode;
use tokio::time::Sleep;

use super::endpoint::SessionEndpoint;
use super::live::LiveReceiver;
use super::sessions::{HttpSession, OpenConnection, Unavailable};
use crate::protocol::{ErrorObject, RequestId};
use crate::session::bridge::failure;
use crate::transport::http::body::{EventSource, McpBody};
use crate::transport::http::media::Acceptable;
use crate::transport::http::responses::{event_stream_response, with_body};
use crate::transport::http::sse::{KEEP_ALIVE, event};

/// 503 for a session that cannot be opened or served now: too many are
/// live, or the store failed.
pub(super) fn unavailable(id: Option<&RequestId>, refused: &Unavailable) -> http::Response<McpBody> {
    error_response(StatusCode::SERVICE_UNAVAILABLE, id, &unavailable_error(refused))
}

/// The JSON-RPC error of [`unavailable`].
pub(super) fn unavailable_error(refused: &Unavailable) -> ErrorObject {
    match refused {
        Unavailable::Full => {
            ErrorObject { code: -32000, message: "Too many sessions are open; retry later".to_owned(), data: None }
        }
        Unavailable::Store(error) => {
            tracing::warn!(%error, "the session store failed");
            ErrorObject::internal("The session store is unavailable; retry later")
        }
    }
}

/// A response reading one of `session`'s streams.
pub(super) fn live_response(
    endpoint: &SessionEndpoint,
    session: &Arc<HttpSession>,
    events: LiveReceiver,
) -> http::Response<McpBody> {
    let body = LiveBody::new(events, endpoint.settings.sse_keep_alive, session.connection());
    event_stream_response(StatusCode::OK, McpBody::live(body))
}

/// One JSON-RPC message as the answer: JSON, or an event stream of that
/// one event for a client that takes nothing else.
pub(super) fn answer(accept: Acceptable, message: String) -> http::Response<McpBody> {
    if accept.json {
        with_body(StatusCode::OK, "application/json", McpBody::full(message))
    } else {
        event_stream_response(StatusCode::OK, McpBody::full(event(&message)))
    }
}

/// An HTTP-level refusal with a JSON-RPC error body.
pub(super) fn error_response(
    status: StatusCode,
    id: Option<&RequestId>,
    error: &ErrorObject,
) -> http::Response<McpBody> {
    with_body(status, "application/json", McpBody::full(failure(id, error)))
}

/// The body of a response reading one stream: its events as they come,
/// with keep-alive comments in long silences. It ends when the stream ends
/// or its connection is ended; dropping it (the client went away) leaves
/// the stream and its request running.
pub(crate) struct LiveBody {
    events: LiveReceiver,
    keep_alive: Option<(Duration, Pin<Box<Sleep>>)>,
    _open: OpenConnection,
}

impl LiveBody {
    pub(crate) fn new(events: LiveReceiver, keep_alive: Option<Duration>, open: OpenConnection) -> Self {
        let keep_alive = keep_alive.map(|period| (period, Box::pin(tokio::time::sleep(period))));
        LiveBody { events, keep_alive, _open: open }
    }
}

impl EventSource for LiveBody {
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let next = match self.events.poll_recv(cx) {
            Poll::Ready(next) => next,
            Poll::Pending => {
                let quiet_too_long =
                    self.keep_alive.as_mut().is_some_and(|(_, sleep)| sleep.as_mut().poll(cx).is_ready());
                if !quiet_too_long {
                    return Poll::Pending;
                }
                Some(Bytes::from_static(KEEP_ALIVE))
            }
        };
        if let (Some(_), Some((period, sleep))) = (&next, &mut self.keep_alive) {
            sleep.as_mut().reset(tokio::time::Instant::now() + *period);
        }
        Poll::Ready(next)
    }
}
