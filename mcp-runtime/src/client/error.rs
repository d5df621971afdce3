//! What can go wrong for a [`Client`](super::Client), and the reading of a
//! response into its result.

use std::time::Duration;

use serde_json::Value;

use crate::protocol::{ErrorObject, RequestId};

/// Why a request brought no result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered with error {}: {}", .0.code, .0.message)]
    Rpc(ErrorObject),
    /// The server asks for input (elicitation, sampling, roots) that no
    /// callback of this client answers: the `input_required` result as it
    /// came.
    #[error("the server asks for input that no callback of this client answers")]
    InputRequired(Value),
    /// No answer could be had: no connection, a process that ended.
    #[error("{0}")]
    Transport(String),
    /// An HTTP status without a JSON-RPC answer, and the start of the body.
    #[error("HTTP status {status}: {body}")]
    Http {
        /// The status code.
        status: u16,
        /// The first 200 characters of the body.
        body: String,
    },
    /// An answer that is not one: not JSON, not a response to this
    /// request, or a result that does not read as the method's.
    #[error("{0}")]
    Invalid(String),
    /// No answer within the client's time limit.
    #[error("no answer within {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The server still asked for input after the client's round limit
    /// ([`Client::max_rounds`](super::Client::max_rounds)): it may not
    /// accept the answers given. The message does not carry the last
    /// question, which the server wrote (up to the message limit): it is
    /// in `last`.
    #[error("the server still asked for input after {rounds} rounds of answers; it may not accept them")]
    TooManyRounds {
        /// How many times the request was sent again with answers.
        rounds: usize,
        /// The last `input_required` result.
        last: Value,
    },
    /// The server needs a token, and none could be had
    /// (`Client::oauth`, with the `client-auth` feature): the step of the
    /// authorization that failed, the URL it was at, and why.
    #[error("{0}")]
    Authorization(String),
    /// A skill, a file of one, or a skills request that the client refused
    /// (the `skills` feature): what was read is not what the skill's entry
    /// lists, or was not asked for; nothing of it is returned.
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    #[error("{0}")]
    Skill(super::skills_declared::SkillRefusal),
}

impl Error {
    /// The JSON-RPC error, when the server answered with one.
    ///
    /// ```
    /// use mcp_runtime::{Server, client::Client};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let client = Client::in_process(Server::builder("s", "1.0.0").build().unwrap());
    /// // A server without tools does not offer `tools/call`.
    /// let error = client.call_tool("nope", serde_json::json!({})).await.unwrap_err();
    /// assert_eq!(error.rpc().map(|e| e.code), Some(-32601));
    /// # });
    /// ```
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            Error::Rpc(error) => Some(error),
            _ => None,
        }
    }
}

/// The result of `response`, the answer to request `id`.
pub(super) fn result_of(mut response: Value, id: &RequestId) -> Result<Value, Error> {
    // An error without an id (or with null) answers a request the server
    // could not read the id of, or refused before reading it (a 2025-era
    // session that is gone): it is this request's.
    let unnamed = response.get("error").is_some() && response.get("id").is_none_or(Value::is_null);
    if response.get("id") != Some(&id.to_value()) && !unnamed {
        return Err(Error::Invalid(format!("an answer to another request: {response}")));
    }
    if let Some(error) = response.get_mut("error").map(Value::take) {
        let error: ErrorObject =
            serde_json::from_value(error).map_err(|e| Error::Invalid(format!("an error that does not read: {e}")))?;
        return Err(Error::Rpc(error));
    }
    let Some(result) = response.get_mut("result").map(Value::take) else {
        return Err(Error::Invalid(format!("neither a result nor an error: {response}")));
    };
    Ok(result)
}

#[cfg(feature = "skills")]
impl From<super::skills_declared::SkillRefusal> for Error {
    fn from(refusal: super::skills_declared::SkillRefusal) -> Error {
        Error::Skill(refusal)
    }
}
