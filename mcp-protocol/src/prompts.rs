//! Prompts: definitions, `prompts/get` params and results.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::{ContentBlock, Role};
use super::icon::Icon;

/// A prompt as `prompts/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Prompt {
    /// Unique programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl Prompt {
    /// A prompt with just a name.
    ///
    /// ```
    /// use mcp_runtime_protocol::Prompt;
    /// let p = Prompt::new("summarize");
    /// assert_eq!(serde_json::to_value(&p).unwrap(), serde_json::json!({"name": "summarize"}));
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: Vec::new(),
            meta: None,
        }
    }
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// An argument with a name, required or not.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        PromptArgument { name: name.into(), title: None, description: None, required: Some(required) }
    }
}

/// Params of `prompts/get` (without `_meta`).
#[derive(Debug, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct GetPromptParams {
    /// The prompt to get.
    pub name: String,
    /// Its arguments, all strings.
    #[serde(default)]
    pub arguments: Option<Map<String, Value>>,
    /// Answers to an earlier `input_required` result.
    #[serde(default)]
    pub input_responses: Option<Value>,
    /// State echoed from an earlier `input_required` result.
    #[serde(default)]
    pub request_state: Option<String>,
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A message from `role` with any content block.
    ///
    /// ```
    /// use mcp_runtime_protocol::{ContentBlock, PromptMessage, Role};
    /// let message = PromptMessage::new(Role::User, ContentBlock::image(b"\x89PNG", "image/png"));
    /// assert_eq!(message.role, Role::User);
    /// ```
    pub fn new(role: Role, content: ContentBlock) -> Self {
        PromptMessage { role, content }
    }

    /// A user message with one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, ContentBlock::text(text))
    }

    /// An assistant message with one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, ContentBlock::text(text))
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetPromptResult {
    /// Description of this rendering of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl GetPromptResult {
    /// A rendering of the prompt made of `messages`.
    ///
    /// ```
    /// use mcp_runtime_protocol::{GetPromptResult, PromptMessage};
    /// let result = GetPromptResult::new(vec![PromptMessage::user("Hi")]).with_description("A greeting");
    /// assert_eq!(result.description.as_deref(), Some("A greeting"));
    /// ```
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult { messages, ..Default::default() }
    }

    /// Sets the description of this rendering.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the result's `_meta`.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }
}
