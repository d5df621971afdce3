//! What a handler's return type becomes, decided by the type itself.
//!
//! For tools there are three tiers, tried in order on the concrete return
//! type (autoref specialization, which works because the macro calls it in a
//! non-generic function):
//!
//! 1. `T: IntoToolResult`: text, numbers, content blocks, `CallToolResult`,
//!    `Json<T>`, `Result` of these;
//! 2. `Result<T, E>` with `T: Serialize + JsonSchema`: structured output,
//!    and `E` (`Display`, or `RpcError`) the failure;
//! 3. `T: Serialize + JsonSchema`: structured output.
//!
//! The choice yields both the conversion and the `outputSchema`, so they
//! never disagree, and it depends only on the type: an alias of
//! `Result<Vec<Hit>, E>` behaves exactly like the spelled-out type. Tiers 2
//! and 3 state their bounds on the method, so a type that fits no tier is
//! reported once, at the return type, with [`StructuredOutput`]'s message.

use std::fmt::Display;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::handler::outcome::{
    IntoPromptResult, IntoResourceContents, IntoToolResult, Outcome, PromptOutcome, ResourceOutcome, RpcError,
    ToolOutcome,
};
use crate::protocol::{CallToolResult, ErrorObject};

/// The return type `T` of a handler, as a value to dispatch on.
pub struct Ret<T>(PhantomData<fn() -> T>);

impl<T> Ret<T> {
    /// The marker.
    pub const NEW: Self = Ret(PhantomData);
}

/// How a tool's return value becomes its outcome, and its output schema.
pub struct ToolReturn<T> {
    convert: fn(T) -> ToolOutcome,
    output_schema: fn() -> Option<Map<String, Value>>,
}

impl<T> Clone for ToolReturn<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ToolReturn<T> {}

impl<T> ToolReturn<T> {
    /// Converts a returned value.
    pub fn convert(self, value: T) -> ToolOutcome {
        (self.convert)(value)
    }

    /// The `outputSchema`, if the type is structured.
    pub fn output_schema(self) -> Option<Map<String, Value>> {
        (self.output_schema)()
    }
}

/// Tier 1, see the module docs.
pub trait ViaIntoToolResult<T> {
    /// The conversion.
    fn tool_return(&self) -> ToolReturn<T>;
}

impl<T: IntoToolResult> ViaIntoToolResult<T> for &&Ret<T> {
    fn tool_return(&self) -> ToolReturn<T> {
        ToolReturn { convert: T::into_tool_result, output_schema: T::output_schema }
    }
}

/// The value of a structured tool result.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this type cannot become a tool result",
    note = "return text (`String`, `&'static str`, numbers), content blocks (`ContentBlock`, `Vec<ContentBlock>`), a `CallToolResult`, a value implementing `Serialize + JsonSchema` (structured output, e.g. with `#[mcp_runtime::derives(Serialize, JsonSchema)]`), or `Result` of these",
    note = "`JsonSchema` must be schemars 1.x (`mcp_runtime::schemars::JsonSchema`): a `JsonSchema` derived with another major version of schemars (such as 0.8) is a different trait and does not count"
)]
pub trait StructuredOutput: Serialize + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + JsonSchema> StructuredOutput for T {}

/// The error type of a tool returning `Result`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error of a tool",
    label = "must implement `Display`",
    note = "a tool's `Err` becomes a result with `isError: true` and the error's `Display` text, so the model can react; return `Err(RpcError(...))` for a JSON-RPC error instead"
)]
pub trait ToolError {
    /// The outcome of a failed call.
    fn into_outcome(self) -> ToolOutcome;
}

#[diagnostic::do_not_recommend]
impl<E: Display> ToolError for E {
    fn into_outcome(self) -> ToolOutcome {
        Ok(Outcome::Complete(CallToolResult::error(self.to_string())))
    }
}

impl ToolError for RpcError {
    fn into_outcome(self) -> ToolOutcome {
        Err(self.0)
    }
}

fn structured<T: StructuredOutput>(value: T) -> ToolOutcome {
    match serde_json::to_value(&value) {
        Ok(json) => Ok(Outcome::Complete(CallToolResult::structured(crate::schema::structured_value::<T>(json)))),
        Err(e) => Err(ErrorObject::internal(format!("the tool's result could not be serialized: {e}"))),
    }
}

/// Tier 2, see the module docs.
pub trait ViaResult {
    /// The `Ok` type.
    type Ok;
    /// The `Err` type.
    type Err;
    /// The conversion.
    fn tool_return(&self) -> ToolReturn<Result<Self::Ok, Self::Err>>
    where
        Self::Ok: StructuredOutput,
        Self::Err: ToolError;
}

impl<T, E> ViaResult for &Ret<Result<T, E>> {
    type Ok = T;
    type Err = E;

    fn tool_return(&self) -> ToolReturn<Result<T, E>>
    where
        T: StructuredOutput,
        E: ToolError,
    {
        ToolReturn {
            convert: |value| match value {
                Ok(v) => structured(v),
                Err(e) => e.into_outcome(),
            },
            output_schema: || Some(crate::schema::output_schema_for::<T>()),
        }
    }
}

/// Tier 3, see the module docs.
pub trait ViaStructured {
    /// The returned type.
    type Value;
    /// The conversion.
    fn tool_return(&self) -> ToolReturn<Self::Value>
    where
        Self::Value: StructuredOutput;
}

impl<T> ViaStructured for Ret<T> {
    type Value = T;

    fn tool_return(&self) -> ToolReturn<T>
    where
        T: StructuredOutput,
    {
        ToolReturn { convert: structured::<T>, output_schema: || Some(crate::schema::output_schema_for::<T>()) }
    }
}

/// How a prompt's return value becomes its outcome.
pub struct PromptReturn<T>(fn(T) -> PromptOutcome);

impl<T> Clone for PromptReturn<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for PromptReturn<T> {}

impl<T> PromptReturn<T> {
    /// Converts a returned value.
    pub fn convert(self, value: T) -> PromptOutcome {
        (self.0)(value)
    }
}

/// The return slot of a prompt returning `T`.
pub fn prompt_return<T: IntoPromptResult>() -> PromptReturn<T> {
    PromptReturn(T::into_prompt_result)
}

/// How a resource's return value becomes its outcome.
pub struct ResourceReturn<T>(fn(T, &str, Option<&str>) -> ResourceOutcome);

impl<T> Clone for ResourceReturn<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ResourceReturn<T> {}

impl<T> ResourceReturn<T> {
    /// Converts a returned value for the resource at `uri`.
    pub fn convert(self, value: T, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        (self.0)(value, uri, mime_type)
    }
}

/// The return slot of a resource returning `T`.
pub fn resource_return<T: IntoResourceContents>() -> ResourceReturn<T> {
    ResourceReturn(T::into_resource_result)
}
