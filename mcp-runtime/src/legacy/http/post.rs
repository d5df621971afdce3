//! A POST on a 2025-era session: a request, a notification, the client's
//! answer to one of our requests, or (2025-03-26) a batch of them.

use std::pin::pin;
use std::sync::Arc;

use http::StatusCode;
use http::request::Parts;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::endpoint::SessionEndpoint;
use super::replies::{error_response, live_response};
use super::sessions::HttpSession;
use super::stream::{Pushed, Stream};
use crate::endpoint::body::McpBody;
use crate::endpoint::in_flight::{InFlight, OwnedSlot, busy_error};
use crate::endpoint::media::Acceptable;
use crate::endpoint::responses::busy_http;
use crate::endpoint::responses::{empty, insufficient_scope, transport_error, with_body};
use crate::handler::principal::Principal;
use crate::legacy::bridge::{self, CloseConnection, Via};
use crate::legacy::message::{self, Incoming};
use crate::protocol::{ErrorObject, Method, RequestId};
use crate::registry::scopes;
use crate::server::Server;

/// Serves one message of `session`.
pub(super) async fn serve(
    endpoint: &SessionEndpoint,
    in_flight: &InFlight,
    session: Arc<HttpSession>,
    parts: Parts,
    accept: Acceptable,
    message: Value,
) -> http::Response<McpBody> {
    session.session.touch();
    match message::read(message) {
        Incoming::Request { id, method, .. } if method == Method::Initialize.name() => {
            let error = ErrorObject::invalid_request("The session is already initialized");
            error_response(StatusCode::BAD_REQUEST, Some(&id), &error)
        }
        Incoming::Request { id, method, params } => match in_flight.enter() {
            Some(slot) => request(endpoint, session, Request { id, method, params, parts }, accept, slot.owned()).await,
            None => busy(in_flight, Some(&id)),
        },
        Incoming::Notification { method, params } => match session.session.notified(&method, params) {
            None => empty(StatusCode::ACCEPTED),
            Some(change) => match session.session.change(change).await {
                Ok(()) => empty(StatusCode::ACCEPTED),
                Err(error) => error_response(StatusCode::SERVICE_UNAVAILABLE, None, &error),
            },
        },
        Incoming::Answer { id, outcome } => {
            session.session.answer(&id, outcome);
            empty(StatusCode::ACCEPTED)
        }
        Incoming::Batch(items) => match in_flight.enter() {
            Some(slot) => batch(endpoint, session, parts, items, slot.owned()).await,
            None => busy(in_flight, None),
        },
        Incoming::Modern => {
            transport_error(StatusCode::BAD_REQUEST, "The body must be a JSON-RPC request, notification or response")
        }
    }
}

/// 503 with `Retry-After`: every slot under the in-flight limit is taken.
fn busy(in_flight: &InFlight, id: Option<&RequestId>) -> http::Response<McpBody> {
    busy_http(bridge::failure(id, &busy_error(in_flight.limit())))
}

/// A session's request, with the HTTP request that carried it.
struct Request {
    id: RequestId,
    method: String,
    params: Option<Value>,
    parts: Parts,
}

/// Methods answered at once, that never send anything before their answer.
fn answers_at_once(method: &str) -> bool {
    matches!(
        Method::parse(method),
        Some(Method::Ping | Method::LoggingSetLevel | Method::ResourcesSubscribe | Method::ResourcesUnsubscribe)
    )
}

/// Serves a request in a task of its own, so that a client that goes away
/// does not cancel it. Answered with an event stream when the client takes
/// one (its notifications and requests to the client come first); with
/// JSON otherwise, those then going to the standalone stream.
async fn request(
    endpoint: &SessionEndpoint,
    session: Arc<HttpSession>,
    request: Request,
    accept: Acceptable,
    slot: OwnedSlot,
) -> http::Response<McpBody> {
    let server = endpoint.server.clone();
    let member = if request.method == Method::ResourcesRead.name() { "uri" } else { "name" };
    let target = request.params.as_ref().and_then(|p| p.get(member));
    if let Some(refusal) = refusal_for(&server, &request.method, target.and_then(Value::as_str), &request.parts) {
        let response = error_response(StatusCode::FORBIDDEN, Some(&request.id), &refusal.error());
        return insufficient_scope(response, &refusal, endpoint.settings.resource_metadata.as_deref());
    }
    let timeout = endpoint.settings.request_timeout;
    let cancel = session.session.begin(request.id.clone());
    let json_suffices = endpoint.settings.buffered_responses || answers_at_once(&request.method);
    if accept.event_stream && !(accept.json && json_suffices) {
        let stream = session.streams.open();
        let events = stream.connect();
        tokio::spawn(run_on_stream(server, Arc::clone(&session), (request, cancel), stream, (timeout, slot)));
        return live_response(endpoint, &session, events);
    }
    let Request { id, method, params, parts } = request;
    let via = Via { outlet: session.standalone_outlet(), close: None, timeout, http: Some(parts) };
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let _ = tx.send(bridge::serve(&server, &session.session, (id, cancel), &method, params, &via).await);
        drop(slot);
    });
    match rx.await {
        Ok(Some(answer)) => with_body(StatusCode::OK, "application/json", McpBody::full(answer)),
        // Cancelled by the client, which expects no answer.
        _ => empty(StatusCode::ACCEPTED),
    }
}

/// Runs a request whose messages go to `stream`, the answer last; then
/// ends the stream.
async fn run_on_stream(
    server: Server,
    session: Arc<HttpSession>,
    (request, cancel): (Request, CancellationToken),
    stream: Arc<Stream>,
    (timeout, _slot): (Option<std::time::Duration>, OwnedSlot),
) {
    let Request { id, method, params, parts } = request;
    // A stream that cannot be resumed and whose client falls too far behind
    // ends with this; the request is cancelled, as its answer cannot reach
    // the client any more.
    let abandoned = (!stream.resumable()).then(|| cancel.clone());
    if abandoned.is_some() {
        let message = "The client did not read this request's event stream: too much waited unread, so the \
                       request was cancelled";
        stream.set_last_words(&bridge::failure(Some(&id), &ErrorObject::internal(message)));
    }
    let (outlet, mut messages) = mpsc::unbounded_channel::<String>();
    let close = stream.resumable().then(|| {
        let stream = Arc::clone(&stream);
        Arc::new(move || stream.close_connection()) as CloseConnection
    });
    let via = Via { outlet, close, timeout, http: Some(parts) };
    let mut serve = pin!(bridge::serve(&server, &session.session, (id, cancel), &method, params, &via));
    let answer = loop {
        tokio::select! {
            biased;
            Some(message) = messages.recv() => {
                if stream.push(&message) == Pushed::Cut && let Some(cancel) = &abandoned {
                    cancel.cancel();
                }
            }
            answer = &mut serve => break answer,
        }
    };
    while let Ok(message) = messages.try_recv() {
        stream.push(&message);
    }
    if let Some(answer) = answer {
        stream.push(&answer);
    }
    stream.finish();
}

/// A 2025-03-26 batch: every request answered, the answers in one array.
async fn batch(
    endpoint: &SessionEndpoint,
    session: Arc<HttpSession>,
    parts: Parts,
    items: Vec<Value>,
    slot: OwnedSlot,
) -> http::Response<McpBody> {
    if session.session.protocol_version() != "2025-03-26" {
        let error = ErrorObject::invalid_request("Batches are not supported after protocol version 2025-03-26");
        return error_response(StatusCode::BAD_REQUEST, None, &error);
    }
    let server = endpoint.server.clone();
    let via = Via {
        outlet: session.standalone_outlet(),
        close: None,
        timeout: endpoint.settings.request_timeout,
        http: Some(parts),
    };
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let _ = tx.send(crate::legacy::batch::serve(&server, &session.session, items, &via).await);
        drop(slot);
    });
    match rx.await {
        Ok(answers) if !answers.is_empty() => {
            with_body(StatusCode::OK, "application/json", McpBody::full(format!("[{}]", answers.join(","))))
        }
        _ => empty(StatusCode::ACCEPTED),
    }
}

/// The refusal of a request carried by the HTTP request `parts`, for
/// `target` by `method`, if the server checks scopes and its caller lacks
/// one: for a transport that must answer 403 before it hands the request
/// to the dispatcher (a 2025-era session's request, whose answer may go on
/// a stream opened before the dispatcher sees it).
fn refusal_for(
    server: &crate::Server,
    method: &str,
    target: Option<&str>,
    parts: &http::request::Parts,
) -> Option<scopes::ScopeRefusal> {
    let authenticated = server.is_authenticated();
    if !authenticated {
        return None;
    }
    let access = scopes::Access::of(authenticated, parts.extensions.get::<Principal>());
    scopes::check(server.snapshot().catalog(), &access, method, target?)
}
