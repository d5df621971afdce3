//! The three kinds of handler invocation: a tool call, a prompt rendering and
//! a resource read, each with its request context.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::handler::context::RequestContext;
use crate::input::DeferredDigest;

/// Something a handler is invoked with; extractors read from it.
pub trait Call: Send + Sync {
    /// The request being served.
    fn context(&self) -> &RequestContext;

    /// What takes the digest of the arguments a retry must repeat for a
    /// sealed `requestState` to be accepted (it gives `None` when the call
    /// has none beyond its target, a resource's URI). Deferred: it is
    /// needed only when a state is sealed, and a handler that can ask
    /// seldom does.
    #[doc(hidden)]
    fn arguments_digest(&self) -> DeferredDigest {
        Box::new(|| None)
    }
}

/// One `tools/call` invocation.
#[derive(Debug)]
pub struct ToolCall {
    pub(crate) name: String,
    pub(crate) arguments: Option<Box<RawValue>>,
    pub(crate) context: RequestContext,
}

impl ToolCall {
    /// A call of the tool `name` with raw JSON arguments (`None` for none).
    pub fn new(name: impl Into<String>, arguments: Option<Box<RawValue>>, context: RequestContext) -> Self {
        ToolCall { name: name.into(), arguments, context }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The raw JSON arguments, `None` when the client sent none.
    pub fn raw_arguments(&self) -> Option<&RawValue> {
        self.arguments.as_deref()
    }
}

impl Call for ToolCall {
    fn context(&self) -> &RequestContext {
        &self.context
    }

    fn arguments_digest(&self) -> DeferredDigest {
        let arguments = self.arguments.clone();
        Box::new(move || Some(crate::input::request_state::tool_arguments_digest(arguments.as_deref())))
    }
}

/// One `prompts/get` invocation.
#[derive(Debug)]
pub struct PromptCall {
    pub(crate) name: String,
    pub(crate) arguments: Map<String, Value>,
    pub(crate) context: RequestContext,
}

impl PromptCall {
    /// A rendering of the prompt `name` with string arguments.
    pub fn new(name: impl Into<String>, arguments: Map<String, Value>, context: RequestContext) -> Self {
        PromptCall { name: name.into(), arguments, context }
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments the client sent.
    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }
}

impl Call for PromptCall {
    fn context(&self) -> &RequestContext {
        &self.context
    }

    fn arguments_digest(&self) -> DeferredDigest {
        // A prompt's arguments are a map of strings: digested at once
        // rather than copied.
        let digest = Some(crate::input::request_state::arguments_digest(&self.arguments));
        Box::new(move || digest.clone())
    }
}

/// One `resources/read` invocation.
#[derive(Debug)]
pub struct ResourceCall {
    pub(crate) uri: String,
    pub(crate) variables: Map<String, Value>,
    pub(crate) context: RequestContext,
}

impl ResourceCall {
    /// A read of `uri`; `variables` are the URI template's matches (empty for
    /// a fixed resource).
    pub fn new(uri: impl Into<String>, variables: Map<String, Value>, context: RequestContext) -> Self {
        ResourceCall { uri: uri.into(), variables, context }
    }

    /// The URI being read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The template variables matched in the URI, as strings.
    pub fn variables(&self) -> &Map<String, Value> {
        &self.variables
    }
}

impl Call for ResourceCall {
    fn context(&self) -> &RequestContext {
        &self.context
    }
}

/// One `completion/complete` request for an argument of a prompt or a
/// resource template.
#[derive(Debug)]
pub struct CompleteCall {
    pub(crate) argument: String,
    pub(crate) value: String,
    pub(crate) other_arguments: Map<String, Value>,
    pub(crate) context: RequestContext,
}

impl CompleteCall {
    /// A completion request for `argument`, of which `value` was typed so far.
    pub fn new(
        argument: impl Into<String>,
        value: impl Into<String>,
        other_arguments: Map<String, Value>,
        context: RequestContext,
    ) -> Self {
        CompleteCall { argument: argument.into(), value: value.into(), other_arguments, context }
    }

    /// The argument (or template variable) being completed.
    pub fn argument(&self) -> &str {
        &self.argument
    }

    /// What the user typed so far.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Values of other arguments already chosen.
    pub fn other_arguments(&self) -> &Map<String, Value> {
        &self.other_arguments
    }
}

impl Call for CompleteCall {
    fn context(&self) -> &RequestContext {
        &self.context
    }
}
