//! The hidden proxy types the macros declare next to each function, through
//! which `tools![...]`, `prompts![...]` and `resources![...]` reach its
//! descriptor, and the functions that make an entry of it.
//!
//! A braced struct named after the function lives in the type namespace, so
//! it never clashes with the function and can be named by any path that
//! names the function.

use crate::registry::entry::{
    PromptDescriptor, PromptEntry, ResourceDescriptor, ResourceEntry, ToolDescriptor, ToolEntry,
};

/// A function annotated with `#[tool]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[tool]` function",
    label = "not a tool",
    note = "`tools![...]` takes the names (or paths) of functions annotated with `#[tool]`"
)]
pub trait ToolItem {
    /// The function's descriptor.
    fn descriptor() -> &'static ToolDescriptor;
}

/// A function annotated with `#[prompt]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[prompt]` function",
    label = "not a prompt",
    note = "`prompts![...]` takes the names (or paths) of functions annotated with `#[prompt]`"
)]
pub trait PromptItem {
    /// The function's descriptor.
    fn descriptor() -> &'static PromptDescriptor;
}

/// A function annotated with `#[resource]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[resource]` function",
    label = "not a resource",
    note = "`resources![...]` takes the names (or paths) of functions annotated with `#[resource]`"
)]
pub trait ResourceItem {
    /// The function's descriptor.
    fn descriptor() -> &'static ResourceDescriptor;
}

/// The entry of a `#[tool]` function, for `tools![...]`.
pub fn tool_entry(descriptor: &'static ToolDescriptor) -> ToolEntry {
    ToolEntry::from_descriptor(descriptor)
}

/// The entry of a `#[prompt]` function, for `prompts![...]`.
pub fn prompt_entry(descriptor: &'static PromptDescriptor) -> PromptEntry {
    PromptEntry::from_descriptor(descriptor)
}

/// The entry of a `#[resource]` function, for `resources![...]`.
pub fn resource_entry(descriptor: &'static ResourceDescriptor) -> ResourceEntry {
    ResourceEntry::from_descriptor(descriptor)
}

/// Stand-in descriptors for functions whose macro reported an error, so that
/// `tools![f]` elsewhere does not add a second error. The build fails on the
/// first one, so these never serve a request.
pub mod fallback {
    use crate::handler::call::{PromptCall, ResourceCall, ToolCall};
    use crate::handler::functions::BoxFuture;
    use crate::handler::outcome::{PromptOutcome, ResourceOutcome, ToolOutcome};
    use crate::handler::state::StateRequirement;
    use crate::protocol::{ErrorObject, Prompt, Resource, Tool};
    use crate::registry::entry::{PromptDescriptor, ResourceDefinition, ResourceDescriptor, ToolDescriptor};
    use crate::registry::location::SourceLocation;

    const LOCATION: SourceLocation = SourceLocation { module_path: module_path!(), file: file!(), line: line!() };

    fn unavailable() -> ErrorObject {
        ErrorObject::internal("this handler did not compile")
    }

    fn no_requirements() -> Vec<StateRequirement> {
        Vec::new()
    }

    fn tool() -> Tool {
        super::super::tool::ToolDefinition::new("", serde_json::Map::new(), None).build()
    }

    fn tool_handler(_: ToolCall) -> BoxFuture<'static, ToolOutcome> {
        Box::pin(std::future::ready(Err(unavailable())))
    }

    /// The stand-in for a `#[tool]`.
    pub static TOOL: ToolDescriptor = ToolDescriptor {
        name: "",
        definition: tool,
        handler: tool_handler,
        requirements: no_requirements,
        location: LOCATION,
        task: None,
        scopes: &[],
        visible_to: None,
        view: None,
        visibility: None,
        layers: None,
        invalidates: &[],
    };

    fn prompt() -> Prompt {
        super::super::prompt::PromptDefinition::new("").build()
    }

    fn prompt_handler(_: PromptCall) -> BoxFuture<'static, PromptOutcome> {
        Box::pin(std::future::ready(Err(unavailable())))
    }

    /// The stand-in for a `#[prompt]`.
    pub static PROMPT: PromptDescriptor = PromptDescriptor {
        name: "",
        definition: prompt,
        handler: prompt_handler,
        completer: None,
        requirements: no_requirements,
        location: LOCATION,
        scopes: &[],
        visible_to: None,
    };

    fn resource() -> ResourceDefinition {
        ResourceDefinition::Fixed(Resource::new("", ""))
    }

    fn resource_handler(_: ResourceCall, _: Option<std::sync::Arc<str>>) -> BoxFuture<'static, ResourceOutcome> {
        Box::pin(std::future::ready(Err(unavailable())))
    }

    /// The stand-in for a `#[resource]`.
    pub static RESOURCE: ResourceDescriptor = ResourceDescriptor {
        uri: "",
        definition: resource,
        handler: resource_handler,
        completer: None,
        requirements: no_requirements,
        location: LOCATION,
        scopes: &[],
        visible_to: None,
        view: None,
    };
}
