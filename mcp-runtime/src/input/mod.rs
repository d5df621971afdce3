#![doc = include_str!("../../doc/input.md")]

// The `requestState` a round trip carries through the client, sealed.
pub(crate) mod request_state;

use std::sync::{Arc, Mutex, OnceLock};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::protocol::{ClientCapabilities, ElicitAction, ElicitRequest, ErrorObject, InputRequest, RequestMeta};

/// Where a handler running as a task sends its questions: they wait for the
/// client's `tasks/update` instead of ending the request. The tasks service
/// implements it; the handler core knows no more of tasks than this.
pub(crate) trait TaskChannel: Send + Sync + std::fmt::Debug {
    /// The answer to `request` under `key` that `fits`: at once if it was
    /// given before, otherwise once it comes; `None` if the task ended
    /// while the handler waited.
    fn ask<'a>(
        &'a self,
        key: &'a str,
        request: Value,
        fits: fn(&Value) -> bool,
    ) -> std::pin::Pin<Box<dyn Future<Output = Option<Value>> + Send + 'a>>;

    /// Ends the task as `failed` with `error`: the handler asked for what
    /// the client cannot give.
    fn fail(&self, error: ErrorObject);

    /// Makes `progress` (of `total`, with `message`) the task's status
    /// message.
    fn report(self: Arc<Self>, progress: f64, total: Option<f64>, message: Option<String>);
}

/// Whether `value` reads as a `T`: the answer a question of that kind awaits.
fn fits<T: DeserializeOwned>(value: &Value) -> bool {
    T::deserialize(value).is_ok()
}

/// The answers of earlier rounds, and what this round still needs.
#[derive(Debug)]
pub(crate) struct InputState {
    answers: Map<String, Value>,
    meta: Arc<RequestMeta>,
    /// The digest of the request's arguments, sealed with the state.
    digest: Digest,
    app_state: Option<Value>,
    round: Mutex<Round>,
    /// Set when the handler runs as a task (from the start, or from its
    /// first wait for something else than input): it then waits for
    /// answers instead of stopping.
    task: OnceLock<Arc<dyn TaskChannel>>,
    /// Set while a handler that may become a task
    /// ([`input_first`](crate::tasks::TaskSupport::input_first)) wants its
    /// waits to stay within the call: a forwarded call, until the server
    /// it was forwarded to has answered whether it runs as a task.
    #[cfg(any(feature = "client", feature = "tasks"))]
    inline: std::sync::atomic::AtomicBool,
}

/// What takes the digest of a call's arguments when it is needed.
pub(crate) type DeferredDigest = Box<dyn Fn() -> Option<String> + Send + Sync>;

/// The digest of a request's arguments (`None` for a request that has none
/// beyond its target), taken already or when first needed.
pub(crate) enum Digest {
    /// Taken already (to open the state a retry brought), or none to take
    /// (a task's state, which is never sealed).
    Taken(Option<String>),
    /// Taken if the handler asks (seldom): hashing the arguments would
    /// otherwise cost every call of a handler that merely can ask.
    Deferred(DeferredDigest),
}

impl Digest {
    fn get(&self) -> Option<String> {
        match self {
            Digest::Taken(digest) => digest.clone(),
            Digest::Deferred(take) => take(),
        }
    }
}

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Digest::Taken(digest) => f.debug_tuple("Taken").field(digest).finish(),
            Digest::Deferred(_) => f.write_str("Deferred"),
        }
    }
}

#[derive(Debug, Default)]
struct Round {
    requests: Map<String, Value>,
    missing: Map<String, Value>,
    app_state: Option<Value>,
}

/// Why a handler stopped before finishing.
#[derive(Debug)]
pub(crate) enum Interrupted {
    /// It awaits answers the client can give.
    NeedsInput {
        requests: Map<String, Value>,
        answers: Map<String, Value>,
        app_state: Option<Value>,
        digest: Option<String>,
    },
    /// It awaits a kind of input the client did not declare.
    MissingCapabilities(Map<String, Value>),
}

impl InputState {
    pub(crate) fn new(
        answers: Map<String, Value>,
        app_state: Option<Value>,
        meta: Arc<RequestMeta>,
        digest: Digest,
    ) -> Self {
        InputState {
            answers,
            meta,
            digest,
            app_state: app_state.clone(),
            round: Mutex::new(Round { app_state, ..Round::default() }),
            task: OnceLock::new(),
            #[cfg(any(feature = "client", feature = "tasks"))]
            inline: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether the handler's waits stay within the call for now
    /// ([`Input::hold_inline`]).
    #[cfg(feature = "tasks")]
    pub(crate) fn is_held_inline(&self) -> bool {
        self.inline.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The input state of a handler running as a task, whose answers come
    /// through `link`.
    #[cfg(feature = "tasks")]
    pub(crate) fn for_task(meta: Arc<RequestMeta>, link: Arc<dyn TaskChannel>) -> Self {
        let state = InputState::new(Map::new(), None, meta, Digest::Taken(None));
        state.run_as_task(link);
        state
    }

    /// From now on the handler runs as a task: it waits for answers
    /// through `link` instead of stopping.
    #[cfg(feature = "tasks")]
    pub(crate) fn run_as_task(&self, link: Arc<dyn TaskChannel>) {
        let _ = self.task.set(link);
    }

    /// The task the handler runs as, if it does.
    pub(crate) fn task_link(&self) -> Option<&Arc<dyn TaskChannel>> {
        self.task.get()
    }

    fn round(&self) -> std::sync::MutexGuard<'_, Round> {
        crate::sync::lock(&self.round)
    }

    /// Whether the handler asked for something this round.
    pub(crate) fn is_waiting(&self) -> bool {
        let round = self.round();
        !round.requests.is_empty() || !round.missing.is_empty()
    }

    /// What this round asked for, taken out of the state.
    pub(crate) fn interruption(&self) -> Interrupted {
        let mut round = self.round();
        if !round.missing.is_empty() {
            return Interrupted::MissingCapabilities(std::mem::take(&mut round.missing));
        }
        Interrupted::NeedsInput {
            requests: std::mem::take(&mut round.requests),
            answers: self.answers.clone(),
            app_state: round.app_state.take(),
            digest: self.digest.get(),
        }
    }
}

/// A handler parameter for asking the client for input: elicitation,
/// sampling and roots. See the [module documentation](self).
///
/// Outside a task, a handler that asks runs again from the start once the
/// answer comes, and on every round after: whatever it does before its last
/// question happens more than once. Ask first, then act, or make the effect
/// idempotent ([side effects](self#side-effects-ask-first-then-act)).
#[derive(Debug, Clone)]
pub struct Input {
    state: Arc<InputState>,
}

impl Input {
    /// The input of the request whose input state is `state`.
    pub(crate) fn new(state: Arc<InputState>) -> Self {
        Input { state }
    }

    pub(crate) fn capabilities(&self) -> &ClientCapabilities {
        &self.state.meta.client_capabilities
    }

    /// While `hold`, a handler of an
    /// [`input_first`](crate::tasks::TaskSupport::input_first) tool that
    /// waits on something else than input goes on within the call rather
    /// than becoming a task: what a forwarded call needs until the other
    /// server has said whether it made a task of it.
    #[cfg(feature = "client")]
    pub(crate) fn hold_inline(&self, hold: bool) {
        self.state.inline.store(hold, std::sync::atomic::Ordering::Release);
    }

    /// Whether this request's client accepts form elicitation.
    pub fn can_elicit(&self) -> bool {
        self.capabilities().elicitation.as_ref().is_some_and(|e| e.supports_form())
    }

    /// Whether this request's client accepts URL elicitation.
    pub fn can_elicit_url(&self) -> bool {
        self.capabilities().elicitation.as_ref().is_some_and(|e| e.supports_url())
    }

    /// Whether this request's client accepts sampling requests.
    pub fn can_sample(&self) -> bool {
        self.capabilities().sampling.is_some()
    }

    /// Whether this request's client accepts `tools` and `toolChoice` in
    /// sampling requests.
    pub fn can_sample_with_tools(&self) -> bool {
        self.capabilities().sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Whether this request's client honours an `includeContext` other than
    /// `"none"` in sampling requests.
    pub fn can_sample_with_context(&self) -> bool {
        self.capabilities().sampling.as_ref().is_some_and(|s| s.context.is_some())
    }

    /// Whether this request's client can list its roots.
    pub fn can_list_roots(&self) -> bool {
        self.capabilities().roots.is_some()
    }

    /// The raw answer under `key`, if the client sent one (this round or earlier).
    pub fn answer(&self, key: &str) -> Option<&Value> {
        self.state.answers.get(key)
    }

    /// State this handler saved with [`set_state`](Self::set_state) in an
    /// earlier round; it came back sealed, so it is what the handler wrote.
    pub fn state(&self) -> Option<&Value> {
        self.state.app_state.as_ref()
    }

    /// Saves state for the next round (sealed into `requestState`).
    pub fn set_state(&self, value: Value) {
        self.state.round().app_state = Some(value);
    }

    /// Asks the user through an elicitation; completes with the answer.
    ///
    /// If the client did not declare the needed elicitation mode, the request
    /// fails with `-32021` naming it.
    pub async fn elicit(&self, key: &str, request: Elicitation) -> ElicitAnswer {
        ElicitAnswer(self.wait(key, InputRequest::Elicit(request.0)).await)
    }

    /// Asks the client's model for a message (`sampling/createMessage`);
    /// completes with the client's `CreateMessageResult`.
    ///
    /// If the client did not declare `sampling`, or the request uses what
    /// the client did not declare under it (`tools`/`toolChoice` need
    /// `sampling.tools`, an `includeContext` other than `"none"` needs
    /// `sampling.context`), the request fails with `-32021` naming it.
    pub async fn sample(&self, key: &str, request: Sampling) -> SamplingAnswer {
        SamplingAnswer(self.wait(key, InputRequest::CreateMessage(request.0)).await)
    }

    /// Asks the client for its roots; completes with them.
    pub async fn roots(&self, key: &str) -> Vec<Root> {
        let answer: RootsAnswer = self.wait(key, InputRequest::ListRoots(Map::new())).await;
        answer.roots
    }

    /// Asks the client what another server asked through a request this
    /// one forwarded (a mounted remote's `inputRequests`), under the same
    /// key; completes with the client's answer as it came.
    #[cfg(feature = "client")]
    pub(crate) async fn relay(&self, key: &str, request: InputRequest) -> Value {
        self.wait(key, request).await
    }

    async fn wait<T: DeserializeOwned>(&self, key: &str, request: InputRequest) -> T {
        // An answer of the wrong shape is treated as missing: the client is
        // asked again rather than the request failing.
        if let Some(answer) = self.state.answers.get(key).and_then(|a| T::deserialize(a).ok()) {
            return answer;
        }
        if let Some(link) = self.state.task.get() {
            let needed = missing_capabilities(&request, self.capabilities());
            if !needed.is_empty() {
                link.fail(ErrorObject::missing_client_capability(
                    "This task needs client capabilities its request did not declare",
                    Value::Object(needed),
                ));
                return std::future::pending().await;
            }
            // The task ended while the handler waited: it waits on until
            // its future is dropped.
            let answer = link.ask(key, request.to_value(), fits::<T>).await;
            return match answer.and_then(|answer| T::deserialize(answer).ok()) {
                Some(answer) => answer,
                None => std::future::pending().await,
            };
        }
        {
            let needed = missing_capabilities(&request, self.capabilities());
            let mut round = self.state.round();
            if needed.is_empty() {
                round.requests.insert(key.to_owned(), request.to_value());
            } else {
                merge(&mut round.missing, needed);
            }
        }
        std::future::pending().await
    }
}

/// What `request` needs of the client that `caps` does not declare, shaped
/// as `requiredCapabilities`; empty when the client can take it. Sampling
/// with `tools`/`toolChoice` needs `sampling.tools`, and an `includeContext`
/// other than `"none"` needs `sampling.context`.
pub(crate) fn missing_capabilities(request: &InputRequest, caps: &ClientCapabilities) -> Map<String, Value> {
    let needed = match request {
        InputRequest::Elicit(ElicitRequest::Form { .. }) => {
            let supported = caps.elicitation.as_ref().is_some_and(|e| e.supports_form());
            (!supported).then(|| json!({"elicitation": {"form": {}}}))
        }
        InputRequest::Elicit(ElicitRequest::Url { .. }) => {
            let supported = caps.elicitation.as_ref().is_some_and(|e| e.supports_url());
            (!supported).then(|| json!({"elicitation": {"url": {}}}))
        }
        InputRequest::CreateMessage(params) => {
            let used = |key: &str| params.get(key).is_some_and(|v| !v.is_null());
            let uses_tools = used("tools") || used("toolChoice");
            let uses_context = used("includeContext") && params["includeContext"] != "none";
            let sampling = caps.sampling.as_ref();
            let mut missing = Map::new();
            if uses_tools && sampling.is_none_or(|s| s.tools.is_none()) {
                missing.insert("tools".into(), json!({}));
            }
            if uses_context && sampling.is_none_or(|s| s.context.is_none()) {
                missing.insert("context".into(), json!({}));
            }
            (sampling.is_none() || !missing.is_empty()).then(|| json!({"sampling": missing}))
        }
        InputRequest::ListRoots(_) => caps.roots.is_none().then(|| json!({"roots": {}})),
        // The handler's requests are made by `Input`, which makes none of
        // another kind; a kind added later declares its own needs here.
        _ => None,
    };
    match needed {
        Some(Value::Object(needed)) => needed,
        _ => Map::new(),
    }
}

/// Adds the capabilities of `from` to `into`, object by object.
pub(crate) fn merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// An elicitation to send: a form built from fields, or a URL to visit.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation(ElicitRequest);

impl Elicitation {
    /// A form with a message; add fields with [`text`](Self::text) and friends.
    pub fn form(message: impl Into<String>) -> Self {
        Elicitation(ElicitRequest::Form {
            message: message.into(),
            requested_schema: json!({"type": "object", "properties": {}}),
        })
    }

    /// A form whose fields come from the JSON Schema of `T` (a flat struct of
    /// strings, numbers, booleans and enums).
    pub fn form_for<T: schemars::JsonSchema>(message: impl Into<String>) -> Self {
        Elicitation(ElicitRequest::Form {
            message: message.into(),
            requested_schema: Value::Object(crate::schema::input_schema_for::<T>()),
        })
    }

    /// A URL the user should open (needs the client's `elicitation.url`).
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Elicitation(ElicitRequest::Url { message: message.into(), url: url.into() })
    }

    fn field(mut self, name: &str, schema: Value, required: bool) -> Self {
        if let ElicitRequest::Form { requested_schema, .. } = &mut self.0 {
            if let Some(props) = requested_schema.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert(name.to_owned(), schema);
            }
            if required {
                let list = requested_schema
                    .as_object_mut()
                    .map(|o| o.entry("required").or_insert_with(|| Value::Array(Vec::new())));
                if let Some(Value::Array(list)) = list {
                    list.push(Value::String(name.to_owned()));
                }
            }
        }
        self
    }

    /// Adds a text field.
    pub fn text(self, name: &str, required: bool) -> Self {
        self.field(name, json!({"type": "string"}), required)
    }

    /// Adds a yes/no field.
    pub fn boolean(self, name: &str, required: bool) -> Self {
        self.field(name, json!({"type": "boolean"}), required)
    }

    /// Adds a number field.
    pub fn number(self, name: &str, required: bool) -> Self {
        self.field(name, json!({"type": "number"}), required)
    }

    /// Adds a field described by its own JSON Schema, for what the other
    /// builders do not say: a default, a choice of values (titled or not),
    /// a multi-select.
    ///
    /// ```
    /// use mcp_runtime::input::Elicitation;
    /// use serde_json::json;
    ///
    /// let form = Elicitation::form("Deploy where?")
    ///     .property("region", json!({"type": "string", "enum": ["eu", "us"], "default": "eu"}), true);
    /// # let _ = form;
    /// ```
    pub fn property(self, name: &str, schema: Value, required: bool) -> Self {
        self.field(name, schema, required)
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ElicitAnswer(pub crate::protocol::ElicitResult);

impl ElicitAnswer {
    /// What the user did.
    pub fn action(&self) -> ElicitAction {
        self.0.action
    }

    /// Whether the user submitted the form.
    pub fn accepted(&self) -> bool {
        self.0.action == ElicitAction::Accept
    }

    /// A submitted field, as text, when accepted.
    pub fn field(&self, name: &str) -> Option<String> {
        let value = self.0.content.as_ref().filter(|_| self.accepted())?.get(name)?;
        Some(match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }

    /// The submitted content deserialized into `T`, when accepted.
    pub fn parse<T: DeserializeOwned>(&self) -> Option<T> {
        let content = self.0.content.clone().filter(|_| self.accepted())?;
        T::deserialize(Value::Object(content)).ok()
    }
}

/// A sampling request: messages for the client's model.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling(Value);

impl Sampling {
    /// A request with one user message, answered in at most `max_tokens`.
    pub fn prompt(text: impl Into<String>, max_tokens: u32) -> Self {
        Sampling(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": text.into()}}],
            "maxTokens": max_tokens,
        }))
    }

    /// Adds a system prompt.
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.0["systemPrompt"] = Value::String(text.into());
        self
    }

    /// A request with raw `sampling/createMessage` params.
    pub fn raw(params: Value) -> Self {
        Sampling(params)
    }
}

/// The client's `CreateMessageResult`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingAnswer(pub Map<String, Value>);

impl SamplingAnswer {
    /// The text of the answer, if its content is text.
    pub fn text(&self) -> Option<&str> {
        let content = self.0.get("content")?;
        let block = match content {
            Value::Array(blocks) => blocks.iter().find(|b| b["type"] == "text")?,
            other => other,
        };
        block.get("text")?.as_str()
    }

    /// The model that answered, when reported.
    pub fn model(&self) -> Option<&str> {
        self.0.get("model")?.as_str()
    }
}

/// One root the client exposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Deserialize)]
struct RootsAnswer {
    roots: Vec<Root>,
}
