//! Answering a server's requests for input (multi round-trip requests) the
//! way an SDK client does: a callback per kind of request, and retries with
//! the answers until the result is complete.

use serde_json::Value;

use crate::answering::Unanswered;
use crate::protocol::ErrorObject;

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

impl From<Unanswered> for ClientError {
    fn from(unanswered: Unanswered) -> Self {
        match unanswered {
            Unanswered::NoCallback { key, method, callback } => ClientError::NoCallback { key, method, callback },
            other => ClientError::Malformed(other.unreadable()),
        }
    }
}
