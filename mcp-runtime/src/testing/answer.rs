//! Answering a server's requests for input (multi round-trip requests) the
//! way an SDK client does: a callback per kind of request, and retries with
//! the answers until the result is complete.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::handler::functions::BoxFuture;
use crate::input::Root;
use crate::protocol::{ClientCapabilities, CreateMessageResult, ElicitRequest, ElicitResult, ErrorObject};

type ElicitFn = Arc<dyn Fn(ElicitRequest) -> BoxFuture<ElicitResult> + Send + Sync>;
type SampleFn = Arc<dyn Fn(Value) -> BoxFuture<CreateMessageResult> + Send + Sync>;
type RootsFn = Arc<dyn Fn() -> BoxFuture<Vec<Root>> + Send + Sync>;

/// Why [`TestClient::request`](super::TestClient::request) (and the calls built on it) gave no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered with error {}: {}", .0.code, .0.message)]
    Rpc(ErrorObject),
    /// The server asked for a kind of input this client has no callback for.
    #[error(
        "the server asked for `{method}` (input `{key}`) and this client has no `{callback}` callback; \
         add one, or use `exchange` to see the input_required result"
    )]
    NoCallback {
        /// The server's key for the request in `inputRequests`.
        key: String,
        /// The method of the embedded request.
        method: String,
        /// The [`TestClient`](super::TestClient) method that would answer it.
        callback: &'static str,
    },
    /// The server still asked for input after the client's round limit.
    #[error(
        "the server still asked for input after {rounds} rounds (last round: {last}); \
         it may not accept the answers given"
    )]
    TooManyRounds {
        /// How many times the request was retried.
        rounds: usize,
        /// The last `input_required` result.
        last: Value,
    },
    /// The server sent what a client cannot read or answer.
    #[error("the server's answer cannot be used: {0}")]
    Malformed(String),
}

impl ClientError {
    /// The JSON-RPC error, when the server answered with one.
    ///
    /// ```
    /// use mcp_runtime::{Server, testing::TestClient};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let client = TestClient::new(Server::builder("s", "1.0.0").build().unwrap());
    /// // A server without tools does not offer `tools/call`.
    /// let error = client.call_tool("nope", serde_json::json!({})).await.unwrap_err();
    /// assert_eq!(error.rpc().map(|e| e.code), Some(-32601));
    /// # });
    /// ```
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            ClientError::Rpc(error) => Some(error),
            _ => None,
        }
    }
}

/// The callbacks that answer each kind of input request.
#[derive(Clone, Default)]
pub(super) struct Callbacks {
    pub(super) elicitation: Option<ElicitFn>,
    pub(super) sampling: Option<SampleFn>,
    pub(super) roots: Option<RootsFn>,
}

impl std::fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callbacks")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl Callbacks {
    /// `declared`, plus everything a callback can answer that it leaves out.
    pub(super) fn declare(&self, mut declared: ClientCapabilities) -> ClientCapabilities {
        if self.elicitation.is_some() && declared.elicitation.is_none() {
            declared = declared.with_elicitation().with_url_elicitation();
        }
        if self.sampling.is_some() && declared.sampling.is_none() {
            declared = declared.with_sampling_tools().with_sampling_context();
        }
        if self.roots.is_some() && declared.roots.is_none() {
            declared = declared.with_roots();
        }
        declared
    }

    /// The answer to one embedded request `{method, params}`.
    pub(super) async fn answer(&self, key: &str, request: &Value) -> Result<Value, ClientError> {
        let method = request.get("method").and_then(Value::as_str).ok_or_else(|| {
            ClientError::Malformed(format!("the input request `{key}` has no string `method`: {request}"))
        })?;
        let params = request.get("params").cloned().unwrap_or_else(|| Value::Object(Map::new()));
        let missing = |callback| ClientError::NoCallback { key: key.to_owned(), method: method.to_owned(), callback };
        let answer = match method {
            "elicitation/create" => {
                let callback = self.elicitation.as_ref().ok_or_else(|| missing("on_elicitation"))?;
                let request = serde_json::from_value(params).map_err(|e| {
                    ClientError::Malformed(format!("the elicitation `{key}` has unreadable params: {e}"))
                })?;
                serde_json::to_value(callback(request).await)
            }
            "sampling/createMessage" => {
                let callback = self.sampling.as_ref().ok_or_else(|| missing("on_sampling"))?;
                serde_json::to_value(callback(params).await)
            }
            "roots/list" => {
                let callback = self.roots.as_ref().ok_or_else(|| missing("on_roots"))?;
                Ok(serde_json::json!({ "roots": callback().await }))
            }
            other => {
                return Err(ClientError::Malformed(format!(
                    "the input request `{key}` has an unknown method `{other}`"
                )));
            }
        };
        answer.map_err(|e| ClientError::Malformed(format!("the answer to `{key}` does not serialize: {e}")))
    }
}
