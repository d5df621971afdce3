//! 2025-era clients (2025-11-25, 2025-06-18, 2025-03-26) over Streamable
//! HTTP, on the endpoint that serves the stateless revision.
//!
//! `initialize` opens a session whose id the response carries in
//! `Mcp-Session-Id`; the client sends it on every later request. A POST on
//! a session is a request (answered with JSON, or an event stream carrying
//! its notifications and requests to the client first), a notification, or
//! the client's answer to one of our requests (both 202). A GET opens the
//! session's standalone stream (list changes, resource updates), or resumes
//! a stream with `Last-Event-ID`; a DELETE ends the session.
//!
//! Unlike a stateless request, a session's request is not cancelled when
//! its connection closes: it runs in a task of its own, and its stream can
//! be resumed (2025-11-25 sessions) or is dropped. The client cancels with
//! `notifications/cancelled`. JSON-RPC errors of a session's requests
//! travel with HTTP 200: a 404 would tell the client its session is gone.
//!
//! On an authenticated server a session answers only the identity whose
//! token began it (any token of it: a refreshed one too). Any other
//! caller's POST, GET or DELETE gets the 404 of an unknown session, before
//! the session is looked at or counted as used, so that an id cannot be
//! probed and a leaked one opens nothing.
//!
//! The `Origin`/`Host` check, the media types, the body limit and the body
//! timeout are those of the stateless path; the request timeout applies too.

mod endpoint;
mod era;
mod live;
mod post;
mod relay;
mod replies;
mod resume;
mod routes;
mod serving;
mod sessions;
mod stream;

pub(crate) use endpoint::{EndpointSettings, SessionEndpoint};
pub(crate) use era::Era;
pub(crate) use routes::route_post;
pub(crate) use sessions::SessionSettings;

/// `Last-Event-ID` as a session reads it, for [`crate::fuzzing`].
#[cfg(feature = "fuzzing")]
pub(crate) fn read_last_event_id(event_id: &str, replica: Option<&str>, open: usize) -> (Option<u64>, Option<String>) {
    let streams = stream::Streams::new(true, replica, usize::MAX);
    for _ in 0..open {
        streams.open();
    }
    let found = streams.find(event_id).map(|(_, after)| after);
    let holder = replica.and_then(|here| resume::holder(event_id, here)).map(str::to_owned);
    (found, holder)
}
