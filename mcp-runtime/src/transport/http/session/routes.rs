//! The requests of the 2025 era on an HTTP endpoint: a POST told apart by
//! era ([`route_post`]) and served ([`SessionEndpoint::serve_post`]), and a
//! GET or DELETE on a session ([`SessionEndpoint::respond_other`]).

use std::sync::Arc;

use http::request::Parts;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

use super::endpoint::SessionEndpoint;
use super::era::{self, Era, PROTOCOL_VERSION, SESSION_ID};
use super::post;
use super::replies::{answer, error_response, live_response, unavailable, unavailable_error};
use super::sessions::HttpSession;
use crate::dispatch::{Message, parse_message};
use crate::eras::SESSION_VERSIONS;
use crate::response::{Response, Stage};
use crate::session::SessionOwner;
use crate::session::bridge::success;
use crate::session::message::{Incoming, SessionRequest};
use crate::telemetry::{Ending, Origin};
use crate::transport::http::body::McpBody;
use crate::transport::http::in_flight::InFlight;
use crate::transport::http::media::{self, Acceptable};
use crate::transport::http::responses::{empty, json_response, not_allowed, transport_error};

/// `Last-Event-ID`.
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The longest `Last-Event-ID` read: the ids sent here are two 64-bit
/// numbers after the replica's id. A longer one names no stream, and is
/// neither parsed nor sent on to another replica.
const MAX_EVENT_ID_LEN: usize = 1024;

/// The era of a POST whose body was read: [`Era::Stateless`] for the
/// stateless pipeline, anything else for [`serve_post`].
pub(crate) fn route_post(parts: &Parts, bytes: &[u8]) -> Era {
    era::choose(&parts.headers, bytes)
}

impl SessionEndpoint {
    /// A GET or DELETE on an endpoint that serves 2025-era clients: with a
    /// session id, the session's standalone stream or its end; without one,
    /// the stateless endpoint's 405.
    pub(crate) async fn respond_other(&self, parts: &Parts) -> http::Response<McpBody> {
        let sessions = &self.sessions;
        let Some(id) = parts.headers.get(SESSION_ID).filter(|_| [Method::GET, Method::DELETE].contains(&parts.method))
        else {
            return not_allowed(&parts.method);
        };
        let session = match id.to_str() {
            Ok(id) if id.len() <= era::MAX_SESSION_ID_LEN => sessions.get(&self.server, id, self.caller(parts)).await,
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
        self.open_stream(&session, parts).await
    }

    /// Serves a POST of the 2025 era (or a stateless one on a server that
    /// serves only that era): a session's message, `initialize`, or a refusal. Apart from the stateless
    /// path, so that its future holds none of a session's state.
    pub(crate) async fn serve_post(
        &self,
        era: Era,
        parts: Parts,
        accept: Acceptable,
        bytes: &[u8],
        in_flight: &InFlight,
    ) -> http::Response<McpBody> {
        match era {
            Era::Stateless => refuse_stateless(bytes),
            // Once per session: boxed, so that the future of every other request stays small.
            Era::Initialize(message) => Box::pin(self.initialize(&parts, accept, message)).await,
            Era::Session(id, message) => match self.sessions.get(&self.server, &id, self.caller(&parts)).await {
                Ok(Some(session)) => match version_refusal(&parts.headers) {
                    None => post::serve(self, in_flight, session, parts, accept, message).await,
                    Some(refusal) => refusal,
                },
                Ok(None) => era::not_found(),
                Err(refused) => unavailable(None, &refused),
            },
            Era::Refused(refusal) => refusal,
        }
    }

    /// `initialize`: a new session, its id in the response's `Mcp-Session-Id`.
    async fn initialize(&self, parts: &Parts, accept: Acceptable, message: Incoming) -> http::Response<McpBody> {
        let Incoming::Request(SessionRequest { id, params, .. }) = message else {
            return transport_error(StatusCode::BAD_REQUEST, "`initialize` must be a JSON-RPC request");
        };
        let params = params.to_value();
        let mut observation = crate::session::observe::initialize(&id, params.as_ref(), &Origin::http(parts));
        let (session, result) = match crate::session::initialize::initialize(&self.server, params.as_ref()) {
            Ok(opened) => opened,
            Err(error) => {
                observation.finish(Ending::Session(Err(&error)));
                return error_response(StatusCode::BAD_REQUEST, Some(&id), &error);
            }
        };
        let session = session.with_owner(self.caller(parts).map(SessionOwner::of));
        let session = match self.sessions.open(&self.server, session).await {
            Ok(session) => session,
            Err(refused) => {
                let error = unavailable_error(&refused);
                observation.finish(Ending::Session(Err(&error)));
                return error_response(StatusCode::SERVICE_UNAVAILABLE, Some(&id), &error);
            }
        };
        observation.session(session.session.id());
        observation.finish(Ending::Session(Ok(&result.to_string())));
        let mut response = answer(accept, success(&id, &result));
        if let Ok(value) = HeaderValue::from_str(session.session.id()) {
            response.headers_mut().insert(SESSION_ID, value);
        }
        response
    }

    /// A GET on a session: its standalone stream, or the stream `Last-Event-ID`
    /// names, resumed after that event (here, or forwarded by the replica that
    /// holds it).
    async fn open_stream(&self, session: &Arc<HttpSession>, parts: &Parts) -> http::Response<McpBody> {
        if !media::acceptable(&parts.headers).event_stream {
            return transport_error(
                StatusCode::NOT_ACCEPTABLE,
                "A GET needs an Accept header allowing text/event-stream",
            );
        }
        session.session.touch();
        let resume = parts.headers.get(LAST_EVENT_ID).filter(|_| session.streams.resumable());
        let events = match resume {
            None => session.streams.standalone().connect(),
            Some(last) if last.len() > MAX_EVENT_ID_LEN => {
                return transport_error(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "Last-Event-ID is longer than {MAX_EVENT_ID_LEN} bytes: it names no stream this session keeps"
                    ),
                );
            }
            Some(last) => {
                let last = last.to_str().unwrap_or_default();
                match session.streams.find(last) {
                    Some((stream, after)) => stream.resume(after),
                    None => match self.sessions.resume_elsewhere(session, last).await {
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
        live_response(self, session, events)
    }
}

/// A server that serves only 2025-era clients answering a stateless
/// request: `server/discover` does not exist (404), any other request
/// names a version not served (400).
fn refuse_stateless(bytes: &[u8]) -> http::Response<McpBody> {
    match parse_message(bytes) {
        Err(response) => json_response(*response),
        Ok(Message::Notification(_)) => empty(StatusCode::ACCEPTED),
        Ok(Message::Request(request)) => {
            let error = crate::session::refuse_stateless(request.method());
            json_response(Response::error(Some(request.id().clone()), error, Stage::Version))
        }
    }
}

/// The 400 for a session's request naming a version no session speaks. It
/// may name none (2025-03-26 clients send none) or any 2025-era one: the
/// session speaks the one it negotiated.
fn version_refusal(headers: &HeaderMap) -> Option<http::Response<McpBody>> {
    let version = headers.get(PROTOCOL_VERSION)?;
    if SESSION_VERSIONS.iter().any(|served| version.as_bytes() == served.as_bytes()) {
        return None;
    }
    Some(transport_error(
        StatusCode::BAD_REQUEST,
        format!(
            "MCP-Protocol-Version `{}` is not one a session speaks ({})",
            String::from_utf8_lossy(version.as_bytes()),
            SESSION_VERSIONS.join(", ")
        ),
    ))
}
