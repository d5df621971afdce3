//! `completion/complete`: argument completion for prompts and resource templates.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What is being completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// An argument of a prompt.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt name.
        name: String,
        /// Display name, ignored by servers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// A variable of a resource template.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The URI or URI template.
        uri: String,
    },
}

/// The argument being completed and what was typed so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionArgument {
    /// Argument name.
    pub name: String,
    /// Partial value.
    pub value: String,
}

/// Values of other arguments already known.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionContext {
    /// Already resolved arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// Params of `completion/complete` (without `_meta`).
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct CompleteParams {
    /// What is completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument.
    pub argument: CompletionArgument,
    /// Other arguments.
    #[serde(default)]
    pub context: Option<CompletionContext>,
}

/// Completion values (at most 100 on the wire).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Suggested values.
    pub values: Vec<String>,
    /// Total number of matches, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// More matches exist than were returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// The most values one result may carry.
    pub const MAX_VALUES: usize = 100;

    /// A completion of exactly `values`, without `total` or `hasMore`. More
    /// than [`MAX_VALUES`](Self::MAX_VALUES) are cut to that many when the
    /// result is sent; [`from_values`](Self::from_values) cuts them here and
    /// says so.
    ///
    /// ```
    /// use mcp_runtime_protocol::Completion;
    /// let c = Completion::new(vec!["red".into(), "green".into()]).with_total(12).with_has_more(true);
    /// assert_eq!(serde_json::to_value(&c).unwrap(), serde_json::json!({"values": ["red", "green"], "total": 12, "hasMore": true}));
    /// ```
    pub fn new(values: Vec<String>) -> Self {
        Completion { values, total: None, has_more: None }
    }

    /// Sets the total number of matches.
    pub fn with_total(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    /// Sets whether more matches exist than were returned.
    pub fn with_has_more(mut self, has_more: bool) -> Self {
        self.has_more = Some(has_more);
        self
    }

    /// Builds a completion from any number of values, keeping the first 100
    /// and reporting the total and `hasMore` when some were cut.
    pub fn from_values(values: impl IntoIterator<Item = String>) -> Self {
        let mut all: Vec<String> = values.into_iter().collect();
        let total = all.len();
        if total > Self::MAX_VALUES {
            all.truncate(Self::MAX_VALUES);
            Completion { values: all, total: Some(total as u64), has_more: Some(true) }
        } else {
            Completion { values: all, total: None, has_more: None }
        }
    }
}

/// The result of `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteResult {
    /// The completion.
    pub completion: Completion,
}

impl CompleteResult {
    /// The result holding `completion`.
    pub fn new(completion: Completion) -> Self {
        CompleteResult { completion }
    }
}
