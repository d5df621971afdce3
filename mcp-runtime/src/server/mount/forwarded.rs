//! What a request forwarded to a mounted remote has of the request this
//! server serves ([`ServedRequest`]), and how the remote's questions and failures
//! come back to it: shared by the forwarding of calls
//! ([`mount_remote`](super::remote)) and the following of the
//! remote's tasks ([`task`](super::task)).

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::client::{Client, Error};
use crate::handler::notify::{Logger, Progress};
use crate::handler::outcome::RpcError;
use crate::input::Input;
use crate::protocol::{ErrorObject, InputRequest};

/// What a forwarded request has of the request this server serves.
#[derive(Clone, Copy)]
pub(super) struct ServedRequest<'a> {
    pub(super) input: &'a Input,
    pub(super) progress: &'a Progress,
    pub(super) logger: &'a Logger,
    pub(super) cancel: &'a CancellationToken,
    /// The namespace of the mount, for errors.
    pub(super) served: &'a str,
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
