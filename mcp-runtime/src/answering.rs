//! Answering a server's requests for input the way an SDK client does: a
//! callback per kind of request (elicitation, sampling, roots), for the
//! test client and the real one alike.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::handler::functions::BoxFuture;
use crate::input::Root;
use crate::protocol::{ClientCapabilities, CreateMessageResult, ElicitAction, ElicitRequest, ElicitResult};

pub(crate) type ElicitFn = Arc<dyn Fn(ElicitRequest) -> BoxFuture<'static, ElicitResult> + Send + Sync>;
pub(crate) type SampleFn = Arc<dyn Fn(Value) -> BoxFuture<'static, CreateMessageResult> + Send + Sync>;
pub(crate) type RootsFn = Arc<dyn Fn() -> BoxFuture<'static, Vec<Root>> + Send + Sync>;
/// How many rounds of answers one request goes through at most, on either
/// side: a client (the real one, the test one) gives up on a server that
/// keeps asking after as many unless told otherwise
/// ([`Client::max_rounds`](crate::client::Client::max_rounds)), and a
/// 2025-era session's request that asks its client more often is refused
/// as a loop.
pub(crate) const MAX_ROUNDS: usize = 16;

/// What hears a request the client refuses: its method and params.
pub(crate) type RefusedFn = Arc<dyn Fn(&str, &Value) + Send + Sync>;

/// Why an input request got no answer.
#[derive(Debug)]
pub(crate) enum Unanswered {
    /// No callback for its kind: `callback` names the method that adds one.
    NoCallback { key: String, method: String, callback: &'static str },
    /// A method no callback kind answers (none this revision knows).
    UnknownMethod { key: String, method: String },
    /// A kind the client has a callback for, in a mode it did not declare
    /// (a URL-mode elicitation to a client that declared forms only).
    Undeclared { key: String, method: String, why: &'static str },
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
            Unanswered::Undeclared { key, method, why } => {
                format!("the input request `{key}` (`{method}`) is refused: {why}")
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
    /// Refuse URL-mode elicitations: the client declared form mode only,
    /// so a server that asks for a URL anyway asks what it was told the
    /// client does not do.
    pub(crate) forms_only: bool,
    /// Told of every request refused for want of a callback or of a
    /// declared mode, before the refusal goes out.
    pub(crate) refused: Option<RefusedFn>,
}

impl std::fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callbacks")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .field("forms_only", &self.forms_only)
            .field("refused", &self.refused.is_some())
            .finish()
    }
}

impl Callbacks {
    /// Whether a server's question (an elicitation, a sampling or a roots
    /// request) has a callback to answer it.
    #[cfg(feature = "client")]
    pub(crate) fn answers_questions(&self) -> bool {
        self.elicitation.is_some() || self.sampling.is_some() || self.roots.is_some()
    }

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

    /// The answer to one embedded request `{method, params}`; a refusal
    /// (no callback, a mode not declared) is told to
    /// [`refused`](Self::refused) first.
    #[cfg(feature = "client")]
    pub(crate) async fn answer(&self, key: &str, request: &Value) -> Result<Value, Unanswered> {
        if let Some(refusal) = self.refusal(key, request) {
            return Err(self.heard(refusal, request));
        }
        self.answer_unheard(key, request).await
    }

    /// The refusal `request` gets without anyone being asked: a kind this
    /// client has no callback for, or a mode it did not declare.
    fn refusal(&self, key: &str, request: &Value) -> Option<Unanswered> {
        let method = request.get("method").and_then(Value::as_str)?;
        let missing = |callback| Unanswered::NoCallback { key: key.to_owned(), method: method.to_owned(), callback };
        let url = request.get("params").and_then(|p| p.get("mode")).and_then(Value::as_str) == Some("url");
        match method {
            "elicitation/create" if self.elicitation.is_none() => Some(missing("on_elicitation")),
            "elicitation/create" if self.forms_only && url => Some(Unanswered::Undeclared {
                key: key.to_owned(),
                method: method.to_owned(),
                why: "this client declared form elicitation only, not URL mode",
            }),
            "sampling/createMessage" if self.sampling.is_none() => Some(missing("on_sampling")),
            "roots/list" if self.roots.is_none() => Some(missing("on_roots")),
            _ => None,
        }
    }

    /// `refusal` of `request`, once [`refused`](Self::refused) heard it.
    fn heard(&self, refusal: Unanswered, request: &Value) -> Unanswered {
        if let (Unanswered::NoCallback { method, .. } | Unanswered::Undeclared { method, .. }, Some(refused)) =
            (&refusal, &self.refused)
        {
            refused(method, request.get("params").unwrap_or(&Value::Null));
        }
        refusal
    }

    async fn answer_unheard(&self, key: &str, request: &Value) -> Result<Value, Unanswered> {
        let method = request.get("method").and_then(Value::as_str).ok_or_else(|| {
            Unanswered::Malformed(format!("the input request `{key}` has no string `method`: {request}"))
        })?;
        let params = request.get("params").cloned().unwrap_or_else(|| Value::Object(Map::new()));
        let missing = |callback| Unanswered::NoCallback { key: key.to_owned(), method: method.to_owned(), callback };
        let answer = match method {
            "elicitation/create" => {
                let callback = self.elicitation.as_ref().ok_or_else(|| missing("on_elicitation"))?;
                let mut params = params;
                // Form is what an elicitation without a mode asks for.
                if let Value::Object(params) = &mut params {
                    params.entry("mode").or_insert_with(|| Value::from("form"));
                }
                let request: ElicitRequest = serde_json::from_value(params).map_err(|e| {
                    Unanswered::Malformed(format!("the elicitation `{key}` has unreadable params: {e}"))
                })?;
                let defaults = form_defaults(&request);
                let mut answer = callback(request).await;
                if answer.action == ElicitAction::Accept && !defaults.is_empty() {
                    let content = answer.content.get_or_insert_with(Map::new);
                    for (field, default) in defaults {
                        content.entry(field).or_insert(default);
                    }
                }
                serde_json::to_value(answer)
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
    /// their keys. When one is refused, none is answered (no user is asked
    /// a question whose answer would not be sent), and every refusal is
    /// heard, not only the first.
    pub(crate) async fn answer_all(&self, result: &Value) -> Result<Map<String, Value>, Unanswered> {
        let mut answers = Map::new();
        if let Some(requests) = result.get("inputRequests") {
            let requests = requests
                .as_object()
                .ok_or_else(|| Unanswered::Malformed(format!("`inputRequests` is not an object: {requests}")))?;
            // Every refusal is heard before the first is returned.
            let refusals: Vec<Unanswered> = requests
                .iter()
                .filter_map(|(key, request)| Some(self.heard(self.refusal(key, request)?, request)))
                .collect();
            if let Some(first) = refusals.into_iter().next() {
                return Err(first);
            }
            for (key, request) in requests {
                answers.insert(key.clone(), self.answer_unheard(key, request).await?);
            }
        }
        Ok(answers)
    }
}

/// The fields of a form `request` whose schema gives them a `default`,
/// with it: what an accepted form has for a field its answer leaves out,
/// as a form shown to a person would have had them filled in.
fn form_defaults(request: &ElicitRequest) -> Map<String, Value> {
    let ElicitRequest::Form { requested_schema, .. } = request else { return Map::new() };
    let Some(properties) = requested_schema.get("properties").and_then(Value::as_object) else { return Map::new() };
    properties.iter().filter_map(|(field, schema)| Some((field.clone(), schema.get("default")?.clone()))).collect()
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answering(answer: ElicitResult) -> Callbacks {
        let elicitation: ElicitFn = Arc::new(move |_| {
            let answer = answer.clone();
            Box::pin(async move { answer })
        });
        Callbacks { elicitation: Some(elicitation), ..Callbacks::default() }
    }

    #[tokio::test]
    async fn an_accepted_form_gets_the_defaults_of_the_fields_it_leaves_out_and_a_mode_is_form_unless_said() {
        // No `mode`: a form.
        let ask = json!({"method": "elicitation/create", "params": {"message": "Who?", "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "note": {"type": "string"}
            }
        }}});
        let answered = answering(ElicitResult::accept(json!({"name": "Ada"}))).answer_unheard("q", &ask).await;
        assert_eq!(
            answered.expect("answered"),
            json!({"action": "accept", "content": {"name": "Ada", "age": 30, "status": "active", "verified": true}})
        );
        let declined = answering(ElicitResult::decline()).answer_unheard("q", &ask).await;
        assert_eq!(declined.expect("answered"), json!({"action": "decline"}), "nothing is added to a refusal");
    }
}
