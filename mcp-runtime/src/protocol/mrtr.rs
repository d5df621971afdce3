//! Multi round-trip requests: the `input_required` interim result and the
//! requests a server may embed in it (elicitation, sampling, roots).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An interim result asking the client for input, then a retry.
///
/// At least one of `input_requests` and `request_state` must be present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

/// One request embedded in an [`InputRequiredResult`]: `{method, params}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
pub struct ElicitResult {
    /// `accept`, `decline` or `cancel`.
    pub action: ElicitAction,
    /// The submitted values when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted.
    Accept,
    /// Refused.
    Decline,
    /// Dismissed.
    Cancel,
}
