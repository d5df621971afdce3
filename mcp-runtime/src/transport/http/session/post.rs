//! A POST on a 2025-era session: a request, a notification, the client's
//! answer to one of our requests, or (2025-03-26) a batch of them.

use std::sync::Arc;
use std::task::Poll;

use http::StatusCode;
use http::request::Parts;
use serde_json::value::RawValue;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::endpoint::SessionEndpoint;
use super::replies::{error_response, live_response};
use super::serving::{FinishesDetached, Progress, RequestStream, Serving, poll_once, within_grace};
use super::sessions::HttpSession;
use crate::handler::principal::Principal;
use crate::protocol::{ErrorObject, Method, RequestId};
use crate::registry::scopes;
use crate::server::Server;
use crate::session::bridge::{self, CloseConnection, Delivery};
use crate::session::destination::Destination;
use crate::session::message::{self, Incoming, SessionParams, SessionRequest};
use crate::transport::http::body::McpBody;
use crate::transport::http::in_flight::{InFlight, OwnedSlot, busy_error};
use crate::transport::http::media::Acceptable;
use crate::transport::http::responses::busy_http;
use crate::transport::http::responses::{empty, insufficient_scope, transport_error, with_body};

/// Serves one message of `session`.
pub(super) async fn serve(
    endpoint: &SessionEndpoint,
    in_flight: &InFlight,
    session: Arc<HttpSession>,
    parts: Parts,
    accept: Acceptable,
    message: Incoming,
) -> http::Response<McpBody> {
    match message {
        Incoming::Request(request) if request.method == Method::Initialize.name() => {
            let error = ErrorObject::invalid_request("The session is already initialized");
            error_response(StatusCode::BAD_REQUEST, Some(&request.id), &error)
        }
        Incoming::Request(request) => match in_flight.enter() {
            Some(slot) => self::request(endpoint, session, (request, parts), accept, slot.owned()).await,
            None => busy(in_flight, Some(&request.id)),
        },
        Incoming::Notification { method, params } => {
            match session.session.notified(&method, message::value_of(params.as_deref())) {
                None => empty(StatusCode::ACCEPTED),
                Some(change) => match Box::pin(session.session.change(change)).await {
                    Ok(()) => empty(StatusCode::ACCEPTED),
                    Err(error) => error_response(StatusCode::SERVICE_UNAVAILABLE, None, &error),
                },
            }
        }
        Incoming::Answer { id, outcome } => {
            session.session.answer(&id, outcome);
            empty(StatusCode::ACCEPTED)
        }
        Incoming::Batch(items) => match in_flight.enter() {
            Some(slot) => batch(endpoint, session, parts, items, slot.owned()).await,
            None => busy(in_flight, None),
        },
        Incoming::Stateless | Incoming::Unreadable => {
            transport_error(StatusCode::BAD_REQUEST, "The body must be a JSON-RPC request, notification or response")
        }
    }
}

/// 503 with `Retry-After`: every slot under the in-flight limit is taken.
fn busy(in_flight: &InFlight, id: Option<&RequestId>) -> http::Response<McpBody> {
    busy_http(bridge::failure(id, &busy_error(in_flight.limit())))
}

/// Methods answered at once, that never send anything before their answer.
fn answers_at_once(method: &str) -> bool {
    matches!(
        Method::parse(method),
        Some(Method::Ping | Method::LoggingSetLevel | Method::ResourcesSubscribe | Method::ResourcesUnsubscribe)
    )
}

/// Serves a request in the connection's task, so that a request answered
/// at once, or within the grace having sent nothing
/// ([`HttpConfig::session_json_grace`](crate::transport::http::HttpConfig::session_json_grace)),
/// is answered as JSON, without a task or a stream of its own. One that
/// sends something first (a notification, a request to the client) or is
/// still going after that is answered with an event stream when the client
/// takes one (its messages come first), and goes on in a task of its own,
/// so that a client that goes away does not cancel it; with JSON otherwise,
/// its messages then going to the standalone stream.
async fn request(
    endpoint: &SessionEndpoint,
    session: Arc<HttpSession>,
    (request, parts): (SessionRequest, Parts),
    accept: Acceptable,
    slot: OwnedSlot,
) -> http::Response<McpBody> {
    let server = endpoint.server.clone();
    if let Some(refusal) = refusal_for(&server, &request, &parts) {
        let response = error_response(StatusCode::FORBIDDEN, Some(&request.id), &refusal.error());
        return insufficient_scope(response, &refusal, endpoint.settings.resource_metadata.as_deref(), Some(&parts));
    }
    let timeout = endpoint.settings.request_timeout;
    let id = request.id.clone();
    let cancel = session.session.begin(id.clone());
    let json_suffices = endpoint.settings.buffered_responses || answers_at_once(&request.method);
    let grace = endpoint.settings.json_grace;
    let streams = accept.event_stream && !(accept.json && json_suffices);
    let parts = Arc::new(parts);
    if !streams {
        let via = Delivery { outlet: session.standalone_outlet(), close: None, timeout, http: Some(parts) };
        return json_answer(FinishesDetached::new(serving(server, &session, (request, cancel), via, slot)).await);
    }
    let stream = Arc::new(RequestStream::default());
    let close = session.streams.resumable().then(|| Arc::clone(&stream) as CloseConnection);
    let via = Delivery { outlet: Destination::Direct(Arc::clone(&stream) as _), close, timeout, http: Some(parts) };
    let abandoned = cancel.clone();
    let mut serving = serving(server, &session, (request, cancel), via, slot);
    // A client that takes only a stream gets one, however soon the answer comes.
    let first = if accept.json { poll_once(&mut serving).await } else { Poll::Pending };
    let progress = match first {
        Poll::Ready(answer) if stream.untouched() => return json_answer(answer),
        Poll::Ready(answer) => Progress::Ended(answer),
        Poll::Pending if accept.json && stream.untouched() && !grace.is_zero() => {
            match within_grace(serving, &stream, grace).await {
                Ok(answer) => return json_answer(Some(answer)),
                Err(progress) => progress,
            }
        }
        Poll::Pending => Progress::Going(serving),
    };
    let events_stream = session.streams.open();
    let events = events_stream.connect();
    // A stream that cannot be resumed and whose client falls too far behind
    // ends with this; the request is cancelled, as its answer cannot reach
    // the client any more.
    let abandoned = (!events_stream.resumable()).then_some(abandoned);
    if abandoned.is_some() {
        let message = "The client did not read this request's event stream: too much waited unread, so the \
                       request was cancelled";
        events_stream.set_last_words(&bridge::failure(Some(&id), &ErrorObject::internal(message)));
    }
    stream.open(&events_stream, abandoned);
    match progress {
        Progress::Ended(answer) => stream.end(answer),
        Progress::Going(serving) => {
            tokio::spawn(async move {
                let answer = serving.await;
                stream.end(answer);
            });
        }
    }
    live_response(endpoint, &session, events)
}

/// The request served through the bridge, its slot held until it ends.
fn serving(
    server: Server,
    session: &Arc<HttpSession>,
    (request, cancel): (SessionRequest, CancellationToken),
    via: Delivery,
    slot: OwnedSlot,
) -> Serving {
    let session = Arc::clone(session);
    Box::pin(async move {
        let answer = bridge::serve(&server, &session.session, request, cancel, &via).await;
        drop(slot);
        answer
    })
}

/// The answer as JSON; none (the client cancelled the request) as 202.
fn json_answer(answer: Option<String>) -> http::Response<McpBody> {
    match answer {
        Some(answer) => with_body(StatusCode::OK, "application/json", McpBody::full(answer)),
        // Cancelled by the client, which expects no answer.
        None => empty(StatusCode::ACCEPTED),
    }
}

/// A 2025-03-26 batch: every request answered, the answers in one array.
async fn batch(
    endpoint: &SessionEndpoint,
    session: Arc<HttpSession>,
    parts: Parts,
    items: Vec<Box<RawValue>>,
    slot: OwnedSlot,
) -> http::Response<McpBody> {
    if !session.session.protocol_version().has_batches() {
        let error = ErrorObject::invalid_request("Batches are not supported after protocol version 2025-03-26");
        return error_response(StatusCode::BAD_REQUEST, None, &error);
    }
    let server = endpoint.server.clone();
    let via = Delivery {
        outlet: session.standalone_outlet(),
        close: None,
        timeout: endpoint.settings.request_timeout,
        http: Some(Arc::new(parts)),
    };
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let _ = tx.send(crate::session::batch::serve(&server, &session.session, items, &via).await);
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
    request: &SessionRequest,
    parts: &http::request::Parts,
) -> Option<scopes::ScopeRefusal> {
    let authenticated = server.is_authenticated();
    if !authenticated {
        return None;
    }
    let target = match &request.params {
        SessionParams::Call(call) => Some(std::borrow::Cow::Borrowed(call.name.as_str())),
        SessionParams::Raw(raw) => {
            let target: Named<'_> = serde_json::from_str(raw.as_deref()?.get()).ok()?;
            if request.method == Method::ResourcesRead.name() { target.uri } else { target.name }
        }
    };
    let access = scopes::Access::of(authenticated, parts.extensions.get::<Principal>());
    scopes::check(server.snapshot().catalog(), &access, &request.method, &target?)
}

/// The members of params that name a request's target.
#[derive(serde::Deserialize)]
struct Named<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<std::borrow::Cow<'a, str>>,
}
