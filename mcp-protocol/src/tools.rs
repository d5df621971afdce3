//! Tools: definitions, `tools/call` params and results.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::content::{ContentBlock, TextContent};
use super::icon::Icon;

/// A tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Unique programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// JSON Schema (2020-12) of the arguments; root `type` is `"object"`.
    pub input_schema: Map<String, Value>,
    /// JSON Schema of `structuredContent`, when the tool returns structured data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Map<String, Value>>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl Tool {
    /// A tool with a name and the JSON Schema of its arguments, and nothing
    /// else.
    ///
    /// ```
    /// use mcp_runtime_protocol::Tool;
    /// let schema = serde_json::json!({"type": "object"}).as_object().unwrap().clone();
    /// let t = Tool::new("ping", schema);
    /// assert_eq!(serde_json::to_value(&t).unwrap(), serde_json::json!({"name": "ping", "inputSchema": {"type": "object"}}));
    /// ```
    pub fn new(name: impl Into<String>, input_schema: Map<String, Value>) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            icons: Vec::new(),
            input_schema,
            output_schema: None,
            annotations: None,
            meta: None,
        }
    }
}

/// Hints about a tool's behaviour. Clients treat them as untrusted.
///
/// ```
/// use mcp_runtime_protocol::ToolAnnotations;
/// let hints = ToolAnnotations::default().with_read_only_hint(true).with_open_world_hint(false);
/// assert_eq!(serde_json::to_value(&hints).unwrap(), serde_json::json!({"readOnlyHint": true, "openWorldHint": false}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// Changes may destroy data (default true; meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches an open world such as the web (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// Sets the display name.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets whether the tool leaves its environment unchanged.
    pub fn with_read_only_hint(mut self, read_only: bool) -> Self {
        self.read_only_hint = Some(read_only);
        self
    }

    /// Sets whether the tool's changes may destroy data.
    pub fn with_destructive_hint(mut self, destructive: bool) -> Self {
        self.destructive_hint = Some(destructive);
        self
    }

    /// Sets whether repeating a call with the same arguments has no further effect.
    pub fn with_idempotent_hint(mut self, idempotent: bool) -> Self {
        self.idempotent_hint = Some(idempotent);
        self
    }

    /// Sets whether the tool reaches an open world such as the web.
    pub fn with_open_world_hint(mut self, open_world: bool) -> Self {
        self.open_world_hint = Some(open_world);
        self
    }
}

/// Params of `tools/call` (without `_meta`, which the dispatcher reads first).
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct CallToolParams {
    /// The tool to call.
    pub name: String,
    /// The arguments, as raw JSON (an object, or absent for none).
    #[serde(default)]
    pub arguments: Option<Box<RawValue>>,
    /// Answers to an earlier `input_required` result.
    #[serde(default)]
    pub input_responses: Option<Value>,
    /// State echoed from an earlier `input_required` result.
    #[serde(default)]
    pub request_state: Option<String>,
}

/// The result of a tool call.
///
/// ```
/// use mcp_runtime_protocol::CallToolResult;
/// let ok = CallToolResult::text("42");
/// let failed = CallToolResult::error("the city is unknown; try a country capital");
/// assert_eq!(failed.is_error, Some(true));
/// # let _ = ok;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured content (may be empty).
    pub content: Vec<ContentBlock>,
    /// Structured content, conforming to the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `true` when the tool failed; the content says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl CallToolResult {
    /// A successful result with the given content.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        CallToolResult { content, ..Default::default() }
    }

    /// The text, when the result is one text block without annotations and
    /// nothing else: what most tools answer, which a writer may write
    /// without the general serialization. Every field is named here, so a
    /// field added to the result (or to the block) is seen by this check.
    pub fn plain_text(&self) -> Option<&str> {
        let CallToolResult { content, structured_content: None, is_error: None, meta: None } = self else {
            return None;
        };
        match content.as_slice() {
            [ContentBlock::Text(TextContent { text, annotations: None, meta: None })] => Some(text),
            _ => None,
        }
    }

    /// The text of the first content block, when it is text: what a caller
    /// of a tool that answers in words reads, whatever else the result
    /// carries (`_meta`, structured content, more blocks).
    ///
    /// ```
    /// use mcp_runtime_protocol::CallToolResult;
    /// assert_eq!(CallToolResult::text("5").first_text(), Some("5"));
    /// assert_eq!(CallToolResult::new(vec![]).first_text(), None);
    /// ```
    pub fn first_text(&self) -> Option<&str> {
        match self.content.first() {
            Some(ContentBlock::Text(text)) => Some(&text.text),
            _ => None,
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// A successful result with structured content and its JSON text as a
    /// text block, for clients that only read `content`.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        CallToolResult {
            content: vec![ContentBlock::text(text)],
            structured_content: Some(value),
            ..Default::default()
        }
    }

    /// A tool execution error: `isError: true` with a message the model can act on.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult { is_error: Some(true), ..Self::text(message) }
    }

    /// Sets the result's `_meta`.
    ///
    /// ```
    /// use mcp_runtime_protocol::CallToolResult;
    /// let mut meta = serde_json::Map::new();
    /// meta.insert("com.example/trace".into(), "abc".into());
    /// let result = CallToolResult::text("done").with_meta(meta);
    /// assert_eq!(serde_json::to_value(&result).unwrap()["_meta"]["com.example/trace"], "abc");
    /// ```
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;
    use crate::content::{Annotations, TextContent};

    #[test]
    fn only_a_lone_plain_text_block_takes_the_direct_writing() {
        assert_eq!(CallToolResult::text("hi").plain_text(), Some("hi"));

        let mut with_error_flag = CallToolResult::text("hi");
        with_error_flag.is_error = Some(false);
        let mut with_meta = CallToolResult::text("hi");
        with_meta.meta = Some(Map::new());
        let mut structured = CallToolResult::text("hi");
        structured.structured_content = Some(json!({"a": 1}));
        let annotated = CallToolResult::new(vec![ContentBlock::Text(TextContent {
            text: "hi".into(),
            annotations: Some(Annotations::default()),
            meta: None,
        })]);
        let two = CallToolResult::new(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
        for other in [with_error_flag, with_meta, structured, annotated, two, CallToolResult::new(Vec::new())] {
            assert_eq!(other.plain_text(), None, "{other:?}");
        }
    }
}
