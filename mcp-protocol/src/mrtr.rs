//! Multi round-trip requests: the `input_required` interim result and the
//! requests a server may embed in it (elicitation, sampling, roots).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::Role;

/// An interim result asking the client for input, then a retry.
///
/// At least one of `input_requests` and `request_state` must be present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Requests for the client, keyed by names the server chooses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Map<String, Value>>,
    /// Opaque state the client echoes on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// Builder-style setters: every field is optional.
///
/// ```
/// use mcp_runtime_protocol::InputRequiredResult;
/// let result = InputRequiredResult::default().with_request_state("opaque");
/// assert_eq!(serde_json::to_value(&result).unwrap(), serde_json::json!({"requestState": "opaque"}));
/// ```
impl InputRequiredResult {
    /// Sets the requests for the client, keyed by names the server chooses.
    pub fn with_input_requests(mut self, requests: Map<String, Value>) -> Self {
        self.input_requests = Some(requests);
        self
    }

    /// Sets the opaque state the client echoes on the retry.
    pub fn with_request_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }

    /// Sets the result's `_meta`.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// One request embedded in an [`InputRequiredResult`]: `{method, params}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(tag = "method", content = "params")]
pub enum InputRequest {
    /// Ask the user for structured input or to visit a URL.
    #[serde(rename = "elicitation/create")]
    Elicit(ElicitRequest),
    /// Ask the client's model for a completion (deprecated feature).
    #[serde(rename = "sampling/createMessage")]
    CreateMessage(Value),
    /// Ask for the client's roots (deprecated feature).
    #[serde(rename = "roots/list")]
    ListRoots(Map<String, Value>),
}

impl InputRequest {
    /// The embedded request as a JSON value for `inputRequests`.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The params of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum ElicitRequest {
    /// A form the client renders from a flat JSON Schema.
    Form {
        /// What to ask.
        message: String,
        /// The requested fields.
        #[serde(rename = "requestedSchema")]
        requested_schema: Value,
    },
    /// A URL the user should visit.
    Url {
        /// Why.
        message: String,
        /// Where.
        url: String,
    },
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// `accept`, `decline` or `cancel`.
    pub action: ElicitAction,
    /// The submitted values when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// The user submitted `content`, the form's values by field name.
    ///
    /// A form's content is an object: a value that does not serialize to
    /// one (a string, a list) is not a form and is sent as an `accept`
    /// without content, which the server reads as no fields filled in.
    ///
    /// ```
    /// use mcp_runtime_protocol::{ElicitAction, ElicitResult};
    /// let answer = ElicitResult::accept(serde_json::json!({"name": "Ada"}));
    /// assert_eq!(answer.action, ElicitAction::Accept);
    /// assert_eq!(answer.content.unwrap()["name"], "Ada");
    /// ```
    pub fn accept(content: impl Serialize) -> Self {
        let content = match serde_json::to_value(content) {
            Ok(Value::Object(map)) => Some(map),
            _ => None,
        };
        ElicitResult { action: ElicitAction::Accept, content }
    }

    /// The user refused.
    ///
    /// ```
    /// # use mcp_runtime_protocol::ElicitResult;
    /// assert_eq!(serde_json::to_value(ElicitResult::decline()).unwrap(), serde_json::json!({"action": "decline"}));
    /// ```
    pub fn decline() -> Self {
        ElicitResult { action: ElicitAction::Decline, content: None }
    }

    /// The user dismissed the request without choosing.
    ///
    /// ```
    /// # use mcp_runtime_protocol::ElicitResult;
    /// assert_eq!(serde_json::to_value(ElicitResult::cancel()).unwrap(), serde_json::json!({"action": "cancel"}));
    /// ```
    pub fn cancel() -> Self {
        ElicitResult { action: ElicitAction::Cancel, content: None }
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted.
    Accept,
    /// Refused.
    Decline,
    /// Dismissed.
    Cancel,
}

/// A client's answer to `sampling/createMessage`: the message its model
/// produced.
///
/// ```
/// use mcp_runtime_protocol::CreateMessageResult;
/// let answer = CreateMessageResult::text("test-model", "4");
/// assert_eq!(
///     serde_json::to_value(&answer).unwrap(),
///     serde_json::json!({"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "test-model"}),
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who wrote the message: the model, as a rule.
    pub role: Role,
    /// A sampling content block (text, image, audio, tool use or tool
    /// result), or a list of them.
    pub content: Value,
    /// The model that answered.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`,
    /// `toolUse` or another provider's reason), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// The assistant's text `text`, from `model`.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        CreateMessageResult {
            role: Role::Assistant,
            content: serde_json::json!({"type": "text", "text": text.into()}),
            model: model.into(),
            stop_reason: None,
        }
    }
}
