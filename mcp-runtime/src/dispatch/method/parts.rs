//! What every method's route and run share: the validated request by
//! method ([`Route`]), and the reading of its params.

use serde::Deserialize;
use serde_json::value::RawValue;
#[cfg(feature = "tasks")]
use serde_json::{Map, Value};

use super::name::Method;
use crate::handler::functions::PromptFn;
use crate::protocol::{
    CallToolParams, CompleteParams, ErrorObject, GetPromptParams, ReadResourceParams, SubscriptionFilter,
};
use crate::response::Stage;

/// A validated request, by method.
pub(crate) enum Route {
    Discover,
    List(ListKind, usize),
    /// The params, and where the tool is in the request's snapshot.
    CallTool(CallToolParams, usize),
    GetPrompt(GetPromptParams, PromptFn),
    ReadResource(ReadResourceParams),
    Complete(CompleteParams),
    Listen(SubscriptionFilter),
    #[cfg(feature = "tasks")]
    Task(TaskRequest),
    #[cfg(feature = "skills")]
    Skills(SkillsRequest),
    /// `search_tools`, with its arguments.
    #[cfg(feature = "tool-search")]
    SearchTools(Option<Box<RawValue>>),
}

/// Reads a method's params (an absent `params` reads as `{}`); what does
/// not fit is `-32602`.
pub(super) fn params_of<'de, T: Deserialize<'de>>(
    method: Method,
    params: Option<&'de RawValue>,
) -> Result<T, (ErrorObject, Stage)> {
    let text = params.map(RawValue::get).unwrap_or("{}");
    serde_json::from_str(text).map_err(|e| {
        (ErrorObject::invalid_params(format!("Invalid params for `{}`: {e}", method.name())), Stage::Params)
    })
}

#[derive(Clone, Copy)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
    Templates,
}

/// A validated request of the skills extension.
#[cfg(feature = "skills")]
pub(crate) enum SkillsRequest {
    /// `skills/list` from this position.
    List(usize),
    Get(String),
    /// `resources/directory/read` of this directory, after this child.
    Directory(String, Option<(String, String)>),
}

#[cfg(feature = "skills")]
impl SkillsRequest {
    /// The URI it names, if any.
    pub(crate) fn target(&self) -> Option<&str> {
        match self {
            SkillsRequest::List(_) => None,
            SkillsRequest::Get(uri) | SkillsRequest::Directory(uri, _) => Some(uri),
        }
    }
}

/// A validated request of the task methods.
#[cfg(feature = "tasks")]
pub(crate) enum TaskRequest {
    Get { task_id: String },
    Update { task_id: String, input_responses: Map<String, Value> },
    Cancel { task_id: String },
}

#[cfg(feature = "tasks")]
impl TaskRequest {
    /// The task the request is about.
    pub(crate) fn task_id(&self) -> &str {
        match self {
            TaskRequest::Get { task_id } | TaskRequest::Update { task_id, .. } | TaskRequest::Cancel { task_id } => {
                task_id
            }
        }
    }
}
