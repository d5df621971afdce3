//! What a request forwarded to a mounted remote has of the request this
//! server serves ([`ServedRequest`]), and how the remote's questions and failures
//! come back to it: shared by the forwarding of calls
//! ([`mount_remote`](super::remote)) and the following of the
//! remote's tasks ([`task`](super::task)).

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::client::{Client, Error};
use crate::handler::call::Call;
use crate::handler::notify::{Logger, Progress};
use crate::handler::outcome::RpcError;
use crate::input::{Digest, Input};
use crate::protocol::{ClientCapabilities, ErrorObject, InputRequest};

/// What a forwarded request has of the request this server serves: what
/// its client declared, its progress and log, and, made only when needed
/// (most forwarded calls need neither), its cancellation and what asks its
/// client for input.
pub(super) struct ServedRequest<'a> {
    call: &'a dyn Call,
    pub(super) progress: Progress,
    pub(super) logger: Logger,
    input: OnceLock<Input>,
    /// The namespace of the mount, for errors.
    pub(super) served: &'a str,
}

impl<'a> ServedRequest<'a> {
    pub(super) fn of<C: Call>(call: &'a C, served: &'a str) -> Self {
        let context = call.context();
        ServedRequest {
            call,
            progress: Progress::of(context.clone()),
            logger: Logger::of(context.clone()),
            input: OnceLock::new(),
            served,
        }
    }

    /// What ends the event stream this request's answer travels on, for its
    /// client to resume
    /// ([`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream)):
    /// a remote that ends its stream to this server has this one ended in
    /// turn.
    pub(super) fn stream_closer(&self) -> Arc<dyn Fn() + Send + Sync> {
        let context = self.call.context().clone();
        Arc::new(move || {
            context.close_sse_stream();
        })
    }

    /// What the request's client declared.
    pub(super) fn capabilities(&self) -> &ClientCapabilities {
        &self.call.context().meta().client_capabilities
    }

    /// Cancelled when the request is given up.
    pub(super) fn cancellation(&self) -> &CancellationToken {
        self.call.context().cancellation()
    }

    /// What asks the request's client for input (as a handler's `Input`).
    pub(super) fn input(&self) -> Result<&Input, RpcError> {
        if let Some(input) = self.input.get() {
            return Ok(input);
        }
        let call = self.call;
        let Some(state) = call.context().input_state(|| Digest::Deferred(call.arguments_digest())) else {
            return Err(ErrorObject::internal("input can only be requested by tools, prompts and resources").into());
        };
        Ok(self.input.get_or_init(|| Input::new(state)))
    }
}

/// Asks this server's client, all at once, what the remote's
/// `input_required` result asks; completes with the answers once it has
/// them all (until then the request waits, or ends `input_required` here).
/// A round asking more than `client`'s
/// [`max_questions_at_once`](crate::client::Client::max_questions_at_once)
/// is refused.
pub(super) async fn relay(
    input: &Input,
    result: &Value,
    served: &str,
    client: &Client,
) -> Result<Map<String, Value>, RpcError> {
    let Some(Value::Object(requests)) = result.get("inputRequests") else { return Ok(Map::new()) };
    let most = client.limits().questions_at_once();
    if requests.len() > most {
        tracing::warn!(mount = served, asked = requests.len(), most, "a mounted server asked too much at once");
        return Err(ErrorObject::internal(format!(
            "The server mounted at `{served}` asked more than {most} questions at once"
        ))
        .into());
    }
    let mut asked = Vec::with_capacity(requests.len());
    for (key, request) in requests {
        let request: InputRequest = serde_json::from_value(request.clone())
            .map_err(|e| unreadable(served, "asks for input this server cannot relay", &e))?;
        asked.push(async move { (key.clone(), input.relay(key, request).await) });
    }
    Ok(futures_util::future::join_all(asked).await.into_iter().collect())
}

/// What a forwarded request's failure is answered with. The remote's
/// JSON-RPC error is passed on as it gave it (its code and `data` are the
/// protocol's: `-32021`'s `requiredCapabilities`, `-32022`'s `supported`).
/// A failure to reach it or to read it is logged with the details (a URL,
/// an HTTP body, which may name hosts of the network behind the gateway),
/// and the caller is told only what kind of failure it was, naming the
/// mount.
pub(super) fn relayed(served: &str, error: Error) -> RpcError {
    let what = match error {
        Error::Rpc(error) => return error.into(),
        Error::InputRequired(_) => "asks for input that is not relayed",
        Error::Timeout(_) => "did not answer in time",
        Error::Http { .. } | Error::Transport(_) => "could not be reached",
        _ => "gave an answer that does not read",
    };
    tracing::warn!(mount = served, %error, "a request forwarded to a mounted server failed");
    ErrorObject::internal(format!("The server mounted at `{served}` {what}")).into()
}

/// A forwarded request's failure, for the log only.
pub(super) fn unreadable(served: &str, what: &str, detail: &dyn std::fmt::Display) -> RpcError {
    tracing::warn!(mount = served, %detail, "{what}");
    ErrorObject::internal(format!("The server mounted at `{served}` {what}")).into()
}
