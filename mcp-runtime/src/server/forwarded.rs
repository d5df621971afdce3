//! What a request forwarded to a mounted remote has of the request this
//! server serves ([`Here`]), and how the remote's questions and failures
//! come back to it: shared by the forwarding of calls
//! ([`mount_remote`](super::mount_remote)) and the following of the
//! remote's tasks ([`mount_task`](super::mount_task)).

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::client::Error;
use crate::handler::notify::{Logger, Progress};
use crate::handler::outcome::RpcError;
use crate::input::Input;
use crate::protocol::{ErrorObject, InputRequest};

/// What a forwarded request has of the request this server serves.
#[derive(Clone, Copy)]
pub(super) struct Here<'a> {
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
pub(super) async fn relay(input: &Input, result: &Value, served: &str) -> Result<Map<String, Value>, RpcError> {
    let Some(Value::Object(requests)) = result.get("inputRequests") else { return Ok(Map::new()) };
    let mut asked = Vec::with_capacity(requests.len());
    for (key, request) in requests {
        let request: InputRequest = serde_json::from_value(request.clone()).map_err(|e| {
            RpcError::from(ErrorObject::internal(format!(
                "The server mounted at `{served}` asks for input this server cannot relay (`{key}`: {e})"
            )))
        })?;
        asked.push(async move { (key.clone(), input.relay(key, request).await) });
    }
    Ok(futures_util::future::join_all(asked).await.into_iter().collect())
}

/// What a forwarded request's failure is answered with.
pub(super) fn relayed(served: &str, error: Error) -> RpcError {
    match error {
        Error::Rpc(error) => error.into(),
        Error::InputRequired(_) => {
            ErrorObject::internal(format!("The server mounted at `{served}` asks for input that is not relayed")).into()
        }
        other => ErrorObject::internal(format!("The server mounted at `{served}`: {other}")).into(),
    }
}
