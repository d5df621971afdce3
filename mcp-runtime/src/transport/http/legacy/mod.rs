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

mod era;
mod live;
mod post;
mod relay;
mod resume;
mod sessions;
mod stream;

use std::sync::Arc;

use http::request::Parts;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use serde_json::Value;

pub(crate) use sessions::Sessions;
pub(crate) use stream::LiveBody;

use super::service::Shared;
use crate::dispatch::{Message, Response, Stage, parse_message};
use crate::endpoint::body::McpBody;
use crate::endpoint::media::{self, Acceptable};
use crate::endpoint::responses::{
    empty, event_stream_response, json_response, not_allowed, transport_error, with_body,
};
use crate::endpoint::sse::event;
use crate::eras::LEGACY_VERSIONS;
use crate::handler::principal::Principal;
use crate::legacy::SessionOwner;
use crate::legacy::bridge::{failure, success};
use crate::legacy::message::{self, Incoming};
use crate::protocol::{ErrorObject, RequestId};
use crate::telemetry::{Ending, Origin};
pub(crate) use era::Era;
use era::{PROTOCOL_VERSION, SESSION_ID};
use sessions::{HttpSession, Unavailable};

/// `Last-Event-ID`.
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The longest `Last-Event-ID` read: the ids sent here are two 64-bit
/// numbers after the replica's id. A longer one names no stream, and is
/// neither parsed nor sent on to another replica.
const MAX_EVENT_ID_LEN: usize = 1024;

/// A GET or DELETE on an endpoint that serves 2025-era clients: with a
/// session id, the session's standalone stream or its end; without one,
/// the stateless endpoint's 405.
pub(super) async fn respond_other(shared: &Shared, sessions: &Sessions, parts: &Parts) -> http::Response<McpBody> {
    let Some(id) = parts.headers.get(SESSION_ID).filter(|_| [Method::GET, Method::DELETE].contains(&parts.method))
    else {
        return not_allowed(&parts.method);
    };
    let session = match id.to_str() {
        Ok(id) if id.len() <= era::MAX_SESSION_ID_LEN => sessions.get(&shared.server, id, caller(shared, parts)).await,
        _ => Ok(None),
    };
    let session = match session {
        Ok(Some(session)) => session,
        Ok(None) => return era::not_found(),
        Err(refused) => return unavailable(None, &refused),
    };
    if let Some(refusal) = version_refusal(&parts.headers) {
        return refusal;
    }
    if parts.method == Method::DELETE {
        return match sessions.end(session.session.id()).await {
            Ok(_) => empty(StatusCode::NO_CONTENT),
            Err(refused) => unavailable(None, &refused),
        };
    }
    open_stream(shared, sessions, &session, parts).await
}

/// The era of a POST whose body was read: [`Era::Modern`] for the
/// stateless pipeline, anything else for [`serve_post`].
pub(super) fn route_post(parts: &Parts, bytes: &[u8]) -> Era {
    era::choose(&parts.headers, bytes)
}

/// Serves a POST [`route_post`] did not send to the stateless pipeline: a
/// session's message, `initialize`, or a refusal. Apart from the stateless
/// path, so that its future holds none of a session's state.
pub(super) async fn serve_post(
    shared: &Shared,
    sessions: &Sessions,
    era: Era,
    parts: Parts,
    accept: Acceptable,
    bytes: &[u8],
) -> http::Response<McpBody> {
    match era {
        Era::Modern if shared.server.eras().serves_modern() => {
            super::service::serve_modern(shared, parts, accept, bytes).await
        }
        Era::Modern => refuse_modern(bytes),
        Era::Initialize(message) => initialize(shared, sessions, &parts, accept, message).await,
        Era::Session(id, message) => match sessions.get(&shared.server, &id, caller(shared, &parts)).await {
            Ok(Some(session)) => match version_refusal(&parts.headers) {
                None => post::serve(shared, session, parts, accept, message).await,
                Some(refusal) => refusal,
            },
            Ok(None) => era::not_found(),
            Err(refused) => unavailable(None, &refused),
        },
        Era::Refused(refusal) => refusal,
    }
}

/// The verified caller of a request, whose identity owns the sessions it
/// begins: `None` on a server without authentication, where whatever a
/// layer put into the extensions was never verified (as for handlers).
fn caller<'a>(shared: &Shared, parts: &'a Parts) -> Option<&'a Principal> {
    if !shared.server.is_authenticated() {
        return None;
    }
    parts.extensions.get::<Principal>()
}

/// 503 for a session that cannot be opened or served now: too many are
/// live, or the store failed.
fn unavailable(id: Option<&RequestId>, refused: &Unavailable) -> http::Response<McpBody> {
    error_response(StatusCode::SERVICE_UNAVAILABLE, id, &unavailable_error(refused))
}

/// The JSON-RPC error of [`unavailable`].
fn unavailable_error(refused: &Unavailable) -> ErrorObject {
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

/// `initialize`: a new session, its id in the response's `Mcp-Session-Id`.
async fn initialize(
    shared: &Shared,
    sessions: &Sessions,
    parts: &Parts,
    accept: Acceptable,
    message: Value,
) -> http::Response<McpBody> {
    let Incoming::Request { id, params, .. } = message::read(message) else {
        return transport_error(StatusCode::BAD_REQUEST, "`initialize` must be a JSON-RPC request");
    };
    let mut observation = crate::legacy::observe::initialize(&id, params.as_ref(), &Origin::http(parts));
    let (session, result) = match crate::legacy::initialize::initialize(&shared.server, params.as_ref()) {
        Ok(opened) => opened,
        Err(error) => {
            observation.finish(Ending::Session(Err(&error)));
            return error_response(StatusCode::BAD_REQUEST, Some(&id), &error);
        }
    };
    let session = session.with_owner(caller(shared, parts).map(SessionOwner::of));
    let session = match sessions.open(&shared.server, session).await {
        Ok(session) => session,
        Err(refused) => {
            let error = unavailable_error(&refused);
            observation.finish(Ending::Session(Err(&error)));
            return error_response(StatusCode::SERVICE_UNAVAILABLE, Some(&id), &error);
        }
    };
    observation.session(session.session.id());
    observation.finish(Ending::Session(Ok(&result)));
    let mut response = answer(accept, success(&id, &result));
    if let Ok(value) = HeaderValue::from_str(session.session.id()) {
        response.headers_mut().insert(SESSION_ID, value);
    }
    response
}

/// A GET on a session: its standalone stream, or the stream `Last-Event-ID`
/// names, resumed after that event (here, or forwarded by the replica that
/// holds it).
async fn open_stream(
    shared: &Shared,
    sessions: &Sessions,
    session: &Arc<HttpSession>,
    parts: &Parts,
) -> http::Response<McpBody> {
    if !media::acceptable(&parts.headers).event_stream {
        return transport_error(StatusCode::NOT_ACCEPTABLE, "A GET needs an Accept header allowing text/event-stream");
    }
    session.session.touch();
    let resume = parts.headers.get(LAST_EVENT_ID).filter(|_| session.streams.resumable());
    let events = match resume {
        None => session.streams.standalone().connect(),
        Some(last) if last.len() > MAX_EVENT_ID_LEN => {
            return transport_error(
                StatusCode::BAD_REQUEST,
                format!("Last-Event-ID is longer than {MAX_EVENT_ID_LEN} bytes: it names no stream this session keeps"),
            );
        }
        Some(last) => {
            let last = last.to_str().unwrap_or_default();
            match session.streams.find(last) {
                Some((stream, after)) => stream.resume(after),
                None => match sessions.resume_elsewhere(session, last).await {
                    Some(events) => events,
                    None => {
                        return transport_error(
                            StatusCode::BAD_REQUEST,
                            "Last-Event-ID names no stream this session keeps",
                        );
                    }
                },
            }
        }
    };
    live_response(shared, session, events)
}

/// A response reading one of `session`'s streams.
fn live_response(shared: &Shared, session: &Arc<HttpSession>, events: live::LiveReceiver) -> http::Response<McpBody> {
    let body = LiveBody::new(events, shared.config.sse_keep_alive, session.connection());
    event_stream_response(StatusCode::OK, McpBody::live(body))
}

/// A server that serves only 2025-era clients answering a stateless
/// request: `server/discover` does not exist (404), any other request
/// names a version not served (400).
fn refuse_modern(bytes: &[u8]) -> http::Response<McpBody> {
    match parse_message(bytes) {
        Err(response) => json_response(*response),
        Ok(Message::Notification(_)) => empty(StatusCode::ACCEPTED),
        Ok(Message::Request(request)) => {
            let error = crate::legacy::refuse_modern(request.method());
            json_response(Response::error(Some(request.id().clone()), error, Stage::Version))
        }
    }
}

/// The 400 for a session's request naming a version no session speaks. It
/// may name none (2025-03-26 clients send none) or any 2025-era one: the
/// session speaks the one it negotiated.
fn version_refusal(headers: &HeaderMap) -> Option<http::Response<McpBody>> {
    let version = headers.get(PROTOCOL_VERSION)?;
    if LEGACY_VERSIONS.iter().any(|served| version.as_bytes() == served.as_bytes()) {
        return None;
    }
    Some(transport_error(
        StatusCode::BAD_REQUEST,
        format!(
            "MCP-Protocol-Version `{}` is not one a session speaks ({})",
            String::from_utf8_lossy(version.as_bytes()),
            LEGACY_VERSIONS.join(", ")
        ),
    ))
}

/// One JSON-RPC message as the answer: JSON, or an event stream of that
/// one event for a client that takes nothing else.
fn answer(accept: Acceptable, message: String) -> http::Response<McpBody> {
    if accept.json {
        with_body(StatusCode::OK, "application/json", McpBody::full(message))
    } else {
        event_stream_response(StatusCode::OK, McpBody::full(event(&message)))
    }
}

/// An HTTP-level refusal with a JSON-RPC error body.
fn error_response(status: StatusCode, id: Option<&RequestId>, error: &ErrorObject) -> http::Response<McpBody> {
    with_body(status, "application/json", McpBody::full(failure(id, error)))
}

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
