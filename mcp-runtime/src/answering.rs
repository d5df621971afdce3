//! Answering a server's requests for input the way an SDK client does: a
//! callback per kind of request (elicitation, sampling, roots), for the
//! test client and the real one alike.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::handler::functions::BoxFuture;
use crate::input::Root;
use crate::protocol::{ClientCapabilities, CreateMessageResult, ElicitRequest, ElicitResult};

pub(crate) type ElicitFn = Arc<dyn Fn(ElicitRequest) -> BoxFuture<ElicitResult> + Send + Sync>;
pub(crate) type SampleFn = Arc<dyn Fn(Value) -> BoxFuture<CreateMessageResult> + Send + Sync>;
pub(crate) type RootsFn = Arc<dyn Fn() -> BoxFuture<Vec<Root>> + Send + Sync>;

/// Why an input request got no answer.
#[derive(Debug)]
pub(crate) enum Unanswered {
    /// No callback for its kind: `callback` names the method that adds one.
    NoCallback { key: String, method: String, callback: &'static str },
    /// A method no callback kind answers (none this revision knows).
    UnknownMethod { key: String, method: String },
    /// A request that cannot be read, or an answer that cannot be written.
    Malformed(String),
}

impl Unanswered {
    /// What went wrong, for a request that cannot be answered as it is.
    pub(crate) fn unreadable(self) -> String {
        match self {
            Unanswered::NoCallback { key, method, callback } => {
                format!("the input request `{key}` (`{method}`) has no `{callback}` callback")
            }
            Unanswered::UnknownMethod { key, method } => {
                format!("the input request `{key}` has an unknown method `{method}`")
            }
            Unanswered::Malformed(why) => why,
        }
    }
}

/// The callbacks that answer each kind of input request.
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    pub(crate) elicitation: Option<ElicitFn>,
    pub(crate) sampling: Option<SampleFn>,
    pub(crate) roots: Option<RootsFn>,
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
    pub(crate) fn declare(&self, mut declared: ClientCapabilities) -> ClientCapabilities {
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
    pub(crate) async fn answer(&self, key: &str, request: &Value) -> Result<Value, Unanswered> {
        let method = request.get("method").and_then(Value::as_str).ok_or_else(|| {
            Unanswered::Malformed(format!("the input request `{key}` has no string `method`: {request}"))
        })?;
        let params = request.get("params").cloned().unwrap_or_else(|| Value::Object(Map::new()));
        let missing = |callback| Unanswered::NoCallback { key: key.to_owned(), method: method.to_owned(), callback };
        let answer = match method {
            "elicitation/create" => {
                let callback = self.elicitation.as_ref().ok_or_else(|| missing("on_elicitation"))?;
                let request = serde_json::from_value(params).map_err(|e| {
                    Unanswered::Malformed(format!("the elicitation `{key}` has unreadable params: {e}"))
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
            other => return Err(Unanswered::UnknownMethod { key: key.to_owned(), method: other.to_owned() }),
        };
        answer.map_err(|e| Unanswered::Malformed(format!("the answer to `{key}` does not serialize: {e}")))
    }
}

impl Callbacks {
    /// The answers to every request an `input_required` result embeds, by
    /// their keys.
    pub(crate) async fn answer_all(&self, result: &Value) -> Result<Map<String, Value>, Unanswered> {
        let mut answers = Map::new();
        if let Some(requests) = result.get("inputRequests") {
            let requests = requests
                .as_object()
                .ok_or_else(|| Unanswered::Malformed(format!("`inputRequests` is not an object: {requests}")))?;
            for (key, request) in requests {
                answers.insert(key.clone(), self.answer(key, request).await?);
            }
        }
        Ok(answers)
    }
}

/// Whether `result` asks for input rather than completing.
pub(crate) fn is_input_required(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// Turns `params` into those of the request's next round: this round's
/// `answers` and the state the server sealed in `result`. Each retry
/// carries its own round's answers only: earlier ones travel in that state.
pub(crate) fn next_round(
    params: &mut Map<String, Value>,
    result: &Value,
    answers: Map<String, Value>,
) -> Result<(), String> {
    params.remove("inputResponses");
    params.remove("requestState");
    if !answers.is_empty() {
        params.insert("inputResponses".into(), Value::Object(answers));
    }
    match result.get("requestState") {
        Some(Value::String(state)) => {
            params.insert("requestState".into(), Value::String(state.clone()));
        }
        Some(other) => return Err(format!("`requestState` is not a string: {other}")),
        None => {}
    }
    Ok(())
}
