//! One request of a 2025-era session, served by the stateless dispatcher.
//!
//! The dispatcher already knows everything a handler may need of a client:
//! the request carries it in `_meta`, and a handler that needs input
//! (elicitation, sampling, roots) gets an `input_required` result the
//! client answers by calling again. A session knows the same things from
//! `initialize`, so a 2025-era request is served by writing that `_meta`
//! into it, and an `input_required` result by asking the client each
//! embedded request for real (a server→client request on the session) and
//! calling again with the answers. Handlers see no difference, and the
//! dispatcher knows nothing of sessions: it writes the results in the shape
//! the bridge gives it for the session's version (`results.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use super::destination::Destination;
use super::live::Session;
use super::message::{SessionParams, SessionRequest};
use super::shape;
use super::store::SessionChange;
// Re-exported so that the transports' paths through the bridge hold.
pub(crate) use super::delivery::{CloseConnection, Delivery};
use crate::answering::MAX_ROUNDS;
use crate::dispatch::{Request, RequestOptions};
use crate::handler::context::NotificationSink;
#[cfg(feature = "http")]
use crate::handler::http_request::HttpRequest;
use crate::protocol::{ErrorObject, LoggingLevel, Method, Notification, RequestId};
use crate::response::Response;
use crate::server::Server;
use crate::telemetry::{Ending, Origin};

/// Forwards the notifications of one request (progress, log messages) to
/// its stream, until it is answered.
struct StreamSink {
    outlet: Destination,
    close: Option<CloseConnection>,
    open: AtomicBool,
}

impl NotificationSink for StreamSink {
    fn send(&self, notification: Notification) {
        if self.open.load(Ordering::Acquire)
            && let Ok(text) = serde_json::to_string(&notification)
        {
            let _ = self.outlet.send(text);
        }
    }

    fn close_connection(&self) -> bool {
        self.open.load(Ordering::Acquire) && self.close.as_ref().is_some_and(|close| close.close_connection())
    }
}

/// A JSON-RPC success, serialized.
pub(crate) fn success(id: &RequestId, result: &Value) -> String {
    success_text(id, &result.to_string())
}

/// A JSON-RPC success, its result serialized already.
fn success_text(id: &RequestId, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, id.as_json())
}

/// A JSON-RPC error, serialized; `id` is `None` when it could not be read.
pub(crate) fn failure(id: Option<&RequestId>, error: &ErrorObject) -> String {
    let error =
        serde_json::to_string(error).unwrap_or_else(|_| String::from(r#"{"code":-32603,"message":"Internal error"}"#));
    // The 2025-11-25 schema has no `null` id: an unreadable one is left out.
    match id {
        Some(id) => format!(r#"{{"jsonrpc":"2.0","id":{},"error":{error}}}"#, id.as_json()),
        None => format!(r#"{{"jsonrpc":"2.0","error":{error}}}"#),
    }
}

/// What a session's request is answered with.
enum Reply {
    /// The dispatcher's response, written already as the session reads it.
    Dispatched(Response),
    /// A result made here.
    Made(Value),
}

/// Serves one request of `session`: its answer, or `None` when the client
/// cancelled it (a cancelled request gets no response). Notifications and
/// requests to the client made for it go to `via`'s outlet.
///
/// `cancel` is what [`Session::begin`] gave when the request arrived: taken
/// then, before the request waits for a task to serve it, so that a
/// `notifications/cancelled` sent right after it finds it.
pub(crate) async fn serve(
    server: &Server,
    session: &Session,
    request: SessionRequest,
    cancel: CancellationToken,
    via: &Delivery,
) -> Option<String> {
    // Dropped unfinished (the client cancelled), it records that.
    let mut observation = super::observe::request(server, session, &request, via);
    let id = request.id.clone();
    let method = Method::parse(&request.method);
    let limit = async {
        match via.timeout {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    // Cancelled or out of time, the handler's future is dropped (at the end
    // of this block), which gives it the server's cancellation grace to end.
    let answer = {
        // Pinned where they are made: the select holds references, and the
        // large future of the answer is not moved again.
        let answering = std::pin::pin!(answer(server, session, request, via, &cancel).instrument(observation.span()));
        let cancelled = std::pin::pin!(cancel.cancelled());
        let limit = std::pin::pin!(limit);
        tokio::select! {
            answer = answering => Some(answer),
            () = cancelled => None,
            () = limit => Some(Err(ErrorObject::internal(format!(
                "The request did not finish within {} s",
                via.timeout.unwrap_or_default().as_secs_f64()
            )))),
        }
    };
    session.finish(&id);
    // A handler that heard of the cancellation may have answered at once:
    // that answer is not sent either.
    if cancel.is_cancelled() {
        return None;
    }
    Some(match answer? {
        Ok(Reply::Dispatched(response)) => {
            observation.finish(Ending::Session(Ok(response.as_result().unwrap_or("{}"))));
            // The dispatcher answered this very id.
            response.into_json()
        }
        Ok(Reply::Made(result)) => {
            let result = result.to_string();
            observation.finish(Ending::Session(Ok(&result)));
            success_text(&id, &result)
        }
        Err(mut error) => {
            shape::error(method, &mut error);
            observation.finish(Ending::Session(Err(&error)));
            failure(Some(&id), &error)
        }
    })
}

async fn answer(
    server: &Server,
    session: &Session,
    request: SessionRequest,
    via: &Delivery,
    cancel: &CancellationToken,
) -> Result<Reply, ErrorObject> {
    if !request.params.is_object() {
        return Err(ErrorObject::invalid_params("`params` must be an object"));
    }
    let method = &*request.method;
    let made = |result: Result<Value, ErrorObject>| result.map(Reply::Made);
    // Every method decided here: one a revision adds is a compile error
    // until this says what a session does with it.
    match Method::parse(method) {
        Some(Method::Ping) => Ok(Reply::Made(json!({}))),
        Some(Method::Initialize) => Err(ErrorObject::invalid_request("The session is already initialized")),
        Some(Method::LoggingSetLevel) => made(set_level(server, session, &object(&request)).await),
        Some(subscribe @ (Method::ResourcesSubscribe | Method::ResourcesUnsubscribe)) => {
            made(subscription(server, session, subscribe, &object(&request)).await)
        }
        // The stateless revision's own methods do not exist on a session,
        // nor do tasks, which this server serves in that revision alone.
        Some(
            Method::Discover
            | Method::SubscriptionsListen
            | Method::TasksGet
            | Method::TasksUpdate
            | Method::TasksCancel
            | Method::TasksResult
            | Method::TasksList,
        ) => Err(ErrorObject::method_not_found(method)),
        // What both eras share is served by the dispatcher, as is a name
        // no revision defines (which it answers `-32601`).
        Some(
            Method::ToolsCall
            | Method::ToolsList
            | Method::PromptsList
            | Method::PromptsGet
            | Method::ResourcesList
            | Method::ResourcesRead
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::SkillsList
            | Method::SkillsGet
            | Method::ResourcesDirectoryRead,
        )
        | None => forward(server, session, request, via, cancel).await,
    }
}

/// The request's params as a map (for the methods served here, which are
/// rare enough to read them so).
fn object(request: &SessionRequest) -> Map<String, Value> {
    match request.params.to_value() {
        Some(Value::Object(params)) => params,
        _ => Map::new(),
    }
}

async fn set_level(server: &Server, session: &Session, params: &Map<String, Value>) -> Result<Value, ErrorObject> {
    if server.capabilities().logging.is_none() {
        return Err(ErrorObject::method_not_found(Method::LoggingSetLevel.name()));
    }
    let level =
        params.get("level").and_then(|l| serde_json::from_value::<LoggingLevel>(l.clone()).ok()).ok_or_else(|| {
            ErrorObject::invalid_params(
                "`level` must be one of debug, info, notice, warning, error, critical, alert, emergency",
            )
        })?;
    session.change(SessionChange::LogLevel { level }).await?;
    Ok(json!({}))
}

async fn subscription(
    server: &Server,
    session: &Session,
    method: Method,
    params: &Map<String, Value>,
) -> Result<Value, ErrorObject> {
    let offered = server.capabilities().resources.is_some_and(|r| r.subscribe == Some(true));
    if !offered {
        return Err(ErrorObject::method_not_found(method.name()));
    }
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(ErrorObject::invalid_params("`uri` must be a string"));
    };
    // A subscribed URI is repeated in `notifications/resources/updated`.
    crate::protocol::uri::check("uri", uri)?;
    let uri = uri.to_owned();
    let change = if method == Method::ResourcesSubscribe {
        SessionChange::Subscribe { uri }
    } else {
        SessionChange::Unsubscribe { uri }
    };
    session.change(change).await?;
    Ok(json!({}))
}

/// Serves the request through the dispatcher, with what the session knows
/// of the client as its `_meta`, and its results written as the session's
/// version reads them. An `input_required` result is answered by asking
/// the client each embedded request for real and calling again.
async fn forward(
    server: &Server,
    session: &Session,
    request: SessionRequest,
    via: &Delivery,
    cancel: &CancellationToken,
) -> Result<Reply, ErrorObject> {
    let SessionRequest { id, method, params, meta } = request;
    let meta = super::meta::for_request(session, meta.as_deref())?;
    let mut params = match params {
        SessionParams::Raw(raw) => SessionParams::Raw(Some(raw.unwrap_or_else(empty_object))),
        call @ SessionParams::Call(_) => call,
    };
    for _ in 0..MAX_ROUNDS {
        let sink =
            Arc::new(StreamSink { outlet: via.outlet.clone(), close: via.close.clone(), open: AtomicBool::new(true) });
        let options = RequestOptions { sink: sink.clone(), cancellation: Some(cancel.clone()) };
        // Kept for another round, should the handler ask for input.
        let request = match &params {
            SessionParams::Call(call) => Request::in_session_call(id.clone(), Arc::clone(&meta), call.clone()),
            SessionParams::Raw(raw) => {
                let raw = raw.clone().unwrap_or_else(empty_object);
                Request::in_session(id.clone(), &method, Arc::clone(&meta), raw)
            }
        };
        #[cfg(feature = "http")]
        let origin = Origin::nested_over(via.http.as_deref());
        #[cfg(not(feature = "http"))]
        let origin = Origin::nested();
        let response = match server.prepare_from(request, None, origin) {
            #[cfg_attr(not(feature = "http"), allow(unused_mut))]
            Ok(mut prepared) => {
                prepared.answer_in(super::results::results_for(session.protocol_version()));
                #[cfg(feature = "http")]
                if let Some(parts) = &via.http {
                    prepared.attach_http_request(HttpRequest::shared(Arc::clone(parts)));
                }
                prepared.run(options).await
            }
            Err(response) => *response,
        };
        sink.open.store(false, Ordering::Release);
        if let Some(error) = response.as_error() {
            return shape::missing_capability(Method::parse(&method), error.clone()).map(Reply::Made);
        }
        if !response.needs_input() {
            return Ok(Reply::Dispatched(response));
        }
        // Rare: the result is read, and the params written again with the answers.
        let text = response.as_result().unwrap_or("{}");
        let Ok(Value::Object(mut result)) = serde_json::from_str::<Value>(text) else {
            return Err(ErrorObject::internal("The handler's result could not be read back"));
        };
        let answers = ask_client(session, &result, &via.outlet, cancel).await?;
        params = next_round(params, answers, result.remove("requestState"))?;
    }
    Err(ErrorObject::internal(format!("The request asked the client for input more than {MAX_ROUNDS} times")))
}

/// `{}`: the params of a request sent without any.
fn empty_object() -> Box<RawValue> {
    RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| unreachable!("`{{}}` is JSON"))
}

/// The params of a request's next round: as sent, with the client's
/// answers and the state the last round sealed.
fn next_round(
    params: SessionParams,
    answers: Map<String, Value>,
    state: Option<Value>,
) -> Result<SessionParams, ErrorObject> {
    match params {
        SessionParams::Call(mut call) => {
            call.input_responses = Some(Value::Object(answers));
            call.request_state = state.and_then(|state| state.as_str().map(str::to_owned));
            Ok(SessionParams::Call(call))
        }
        SessionParams::Raw(raw) => {
            let Some(Value::Object(mut next)) = super::message::value_of(raw.as_deref()) else {
                return Err(ErrorObject::invalid_params("`params` must be an object"));
            };
            next.insert("inputResponses".to_owned(), Value::Object(answers));
            match state {
                Some(state) => next.insert("requestState".to_owned(), state),
                None => next.remove("requestState"),
            };
            let raw = serde_json::value::to_raw_value(&next)
                .map_err(|e| ErrorObject::internal(format!("The request could not be rewritten: {e}")))?;
            Ok(SessionParams::Raw(Some(raw)))
        }
    }
}

/// Asks the client, one by one, what an `input_required` result embeds.
async fn ask_client(
    session: &Session,
    result: &Map<String, Value>,
    outlet: &Destination,
    cancel: &CancellationToken,
) -> Result<Map<String, Value>, ErrorObject> {
    let mut answers = Map::new();
    let Some(Value::Object(requests)) = result.get("inputRequests") else { return Ok(answers) };
    for (key, request) in requests {
        let Some(method) = request.get("method").and_then(Value::as_str) else { continue };
        let mut params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        shape::client_request(session.protocol_version(), method, &mut params);
        if method == "elicitation/create" && params.get("mode").and_then(Value::as_str) == Some("url") {
            // A 2025-era URL elicitation is named, so that its completion can be announced.
            let name = super::live::new_session_id().unwrap_or_else(|| key.clone());
            params["elicitationId"] = Value::from(name);
        }
        let answer = session.ask(method, params, outlet, cancel).await.map_err(|e| {
            ErrorObject::internal(format!("The client did not answer `{method}`: {} ({})", e.message, e.code))
        })?;
        answers.insert(key.clone(), answer);
    }
    Ok(answers)
}
