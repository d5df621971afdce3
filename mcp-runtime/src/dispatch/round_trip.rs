//! Input round trips: a handler may stop to ask the client for input
//! (elicitation, sampling, roots); its answer is `input_required` with the
//! questions and a sealed `requestState`, and the client's retry carries
//! the answers and the state back, bound to the same method, target and
//! arguments.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Prepared;
use super::decorate::{failed, finish};
use super::grace::Handled;
use super::opened::Opened;
use crate::handler::context::{InputSlot, RequestContext};
use crate::handler::http_request::HttpRequest;
use crate::handler::outcome::Outcome;
use crate::handler::panic_guard::guarded;
use crate::input::request_state::{OpenedState, SealedState};
use crate::input::{self, Digest, InputState, Interrupted};
use crate::protocol::{CacheHints, ErrorObject, InputRequest, InputRequiredResult, ResultType};
use crate::response::Response;

/// Opens `request_state`, sealed for `target` with arguments of digest
/// `digest`, for the caller of `http`.
pub(crate) fn open(
    p: &Prepared,
    target: &str,
    digest: Option<String>,
    request_state: &str,
    http: &HttpRequest,
) -> Opened {
    let caller = http.caller_identity();
    let key = &p.server.settings().request_state_key;
    let state = key.open(p.method.name(), target, digest.as_deref(), caller.as_ref(), request_state);
    Opened { digest, state }
}

/// The answers of earlier rounds (from a verified `requestState`, which
/// must have been issued for the same arguments, of digest `digest`, and
/// to the same caller, the one of `http`) merged with this round's
/// `inputResponses`; without either, the state is only made if the
/// handler asks for input. `opened` is the state opened before the
/// layers ran, when they did.
pub(super) fn input_slot(
    p: &Prepared,
    target: &str,
    digest: impl FnOnce() -> Option<String>,
    (responses, request_state): (Option<Value>, Option<&str>),
    http: &HttpRequest,
    opened: Option<Box<Opened>>,
) -> Result<InputSlot, ErrorObject> {
    if request_state.is_none() && matches!(responses, None | Some(Value::Null)) {
        return Ok(InputSlot::Available(OnceLock::new()));
    }
    let opened = match (opened, request_state) {
        (Some(opened), _) => *opened,
        (None, Some(state)) => open(p, target, digest(), state, http),
        (None, None) => Opened { digest: digest(), state: Ok(OpenedState::default()) },
    };
    let (digest, sealed) = (opened.digest, opened.state?.state);
    let mut answers = sealed.answers;
    match responses {
        None | Some(Value::Null) => {}
        Some(Value::Object(new)) => answers.extend(new),
        Some(_) => return Err(ErrorObject::invalid_params("`inputResponses` must be an object")),
    }
    let state = Arc::new(InputState::new(answers, sealed.app, Arc::clone(&p.meta), Digest::Taken(digest)));
    Ok(InputSlot::Available(OnceLock::from(state)))
}

/// Runs a handler that may stop to ask for input, sealing what it needs to
/// resume into `requestState`.
pub(super) async fn interruptible<T, F>(
    p: &Prepared,
    target: &str,
    context: RequestContext,
    start: impl FnOnce() -> F + Send,
) -> Result<Outcome<T>, ErrorObject>
where
    F: Future<Output = Result<Outcome<T>, ErrorObject>> + Send + Unpin,
{
    // The handler hears through its token of the request being given up on.
    let watched = context.clone();
    let run = guarded(async move {
        let caller = context.caller_identity();
        match Interruptible::new(start(), context).await {
            Ok(outcome) => checked(p, outcome),
            Err(interrupted) => interruption(p, target, caller, interrupted),
        }
    });
    Handled::new(run, watched).await
}

/// A handler's outcome as it may be answered: a result the handler built
/// itself asks only what this client can answer, as the `Input` API checks
/// while it asks.
pub(super) fn checked<T>(p: &Prepared, outcome: Result<Outcome<T>, ErrorObject>) -> Result<Outcome<T>, ErrorObject> {
    if let Ok(Outcome::InputRequired(body)) = &outcome {
        check_input_requests(p, body.input_requests.as_ref())?;
    }
    outcome
}

/// What a handler stopped for, as the request's answer: `input_required`
/// with the requests and the state sealed for `caller`, or `-32021`.
pub(super) fn interruption<T>(
    p: &Prepared,
    target: &str,
    caller: Option<[u8; 16]>,
    interrupted: Interrupted,
) -> Result<Outcome<T>, ErrorObject> {
    match interrupted {
        Interrupted::MissingCapabilities(needed) => Err(ErrorObject::missing_client_capability(
            "This request needs client capabilities it did not declare",
            Value::Object(needed),
        )),
        Interrupted::NeedsInput { requests, answers, app_state, digest } => {
            let key = &p.server.settings().request_state_key;
            let state = key.seal(
                p.method.name(),
                target,
                digest.as_deref(),
                caller.as_ref(),
                &SealedState { answers, app: app_state },
            );
            if state.len() > crate::input::request_state::MAX_STATE_LEN {
                return Err(ErrorObject::internal(format!(
                    "The request's state between rounds takes {} bytes sealed, more than the {} a requestState may",
                    state.len(),
                    crate::input::request_state::MAX_STATE_LEN
                )));
            }
            let mut result = InputRequiredResult::default().with_request_state(state);
            result.input_requests = (!requests.is_empty()).then_some(requests);
            Ok(Outcome::InputRequired(result))
        }
    }
}

/// Runs a handler future until it completes or is stuck waiting for input.
struct Interruptible<F> {
    /// Handler futures come boxed already: no need to pin them again.
    future: F,
    context: RequestContext,
}

impl<F: Future + Unpin> Interruptible<F> {
    fn new(future: F, context: RequestContext) -> Self {
        Interruptible { future, context }
    }
}

impl<F: Future + Unpin> Future for Interruptible<F> {
    type Output = Result<F::Output, Interrupted>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match Pin::new(&mut self.future).poll(cx) {
            Poll::Ready(output) => Poll::Ready(Ok(output)),
            // Answers are awaited through futures that never wake; once the
            // handler is parked on one, everything it awaits concurrently in
            // this poll has registered too, so the round is complete.
            Poll::Pending => match self.context.started_input() {
                Some(state) if state.is_waiting() => Poll::Ready(Err(state.interruption())),
                _ => Poll::Pending,
            },
        }
    }
}

/// The outcome of a handler as a response: complete results get `cache`.
pub(super) fn outcome_response<T: Serialize>(
    p: &Prepared,
    outcome: Result<Outcome<T>, ErrorObject>,
    take_meta: impl FnOnce(&mut T) -> Option<Map<String, Value>>,
    cache: Option<CacheHints>,
) -> Response {
    match outcome {
        Ok(Outcome::Complete(mut body)) => {
            let own = take_meta(&mut body);
            finish(p, ResultType::Complete, &body, own, cache)
        }
        Ok(Outcome::InputRequired(mut body)) => {
            if body.input_requests.is_none() && body.request_state.is_none() {
                return failed(
                    p,
                    ErrorObject::internal("An input_required result needs inputRequests or requestState"),
                );
            }
            let own = body.meta.take();
            finish(p, ResultType::InputRequired, &body, own, None)
        }
        Err(e) => failed(p, e),
    }
}

/// The capabilities `requests` need that this client did not declare, as
/// `-32021`.
fn check_input_requests(p: &Prepared, requests: Option<&Map<String, Value>>) -> Result<(), ErrorObject> {
    let mut missing = Map::new();
    for (key, request) in requests.into_iter().flatten() {
        let request = InputRequest::deserialize(request).map_err(|e| {
            ErrorObject::internal(format!(
                "`inputRequests.{key}` is not an elicitation, sampling or roots request: {e}"
            ))
        })?;
        input::merge(&mut missing, input::missing_capabilities(&request, &p.meta.client_capabilities));
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(ErrorObject::missing_client_capability(
        "This request needs client capabilities it did not declare",
        Value::Object(missing),
    ))
}
