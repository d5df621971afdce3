//! What handlers return, and how plain Rust values become protocol results:
//! [`IntoToolResult`], [`IntoPromptResult`] and [`IntoResourceContents`].

use std::borrow::Cow;
use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::protocol::{
    CallToolResult, ContentBlock, ErrorObject, GetPromptResult, InputRequiredResult, PromptMessage, ReadResourceResult,
    ResourceContents,
};

/// A handler's answer: final, or an interim request for client input (MRTR).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome<T> {
    /// The final result.
    Complete(T),
    /// Ask the client for input and retry.
    InputRequired(InputRequiredResult),
}

/// What a tool handler produces: an outcome, or a JSON-RPC error.
pub type ToolOutcome = Result<Outcome<CallToolResult>, ErrorObject>;
/// What a prompt handler produces.
pub type PromptOutcome = Result<Outcome<GetPromptResult>, ErrorObject>;
/// What a resource handler produces.
pub type ResourceOutcome = Result<Outcome<ReadResourceResult>, ErrorObject>;

/// A protocol-level failure a handler can return instead of a result, such as
/// `-32021` for a missing client capability.
///
/// Unlike an ordinary error type (which becomes a tool result with
/// `isError: true`, so the model can react), this becomes a JSON-RPC error.
///
/// It deliberately does not implement `Display`, so `Result<T, RpcError>` is
/// told apart from `Result<T, E: Display>`.
///
/// ```
/// use mcp_runtime::{RpcError, protocol::ErrorObject};
/// fn needs_sampling() -> Result<String, RpcError> {
///     Err(RpcError(ErrorObject::missing_client_capability(
///         "this tool needs sampling", serde_json::json!({"sampling": {}}))))
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError(pub ErrorObject);

impl From<ErrorObject> for RpcError {
    fn from(e: ErrorObject) -> Self {
        RpcError(e)
    }
}

/// Structured output: the value goes to `structuredContent`, its JSON text to
/// a text block, and its schema to the tool's `outputSchema`.
///
/// A root that is not an object is wrapped as `{"result": ...}`, because
/// `structuredContent` and `outputSchema` describe objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// Turns a tool handler's return value into a `tools/call` result.
///
/// Implemented for text (`String`, `&str`), numbers and `bool` (as text),
/// content blocks, [`CallToolResult`], [`Json`] (structured output),
/// [`Outcome`], and `Result<T, E>`: an `Err` whose type implements `Display`
/// becomes `isError: true` with its message, an `Err(RpcError)` a JSON-RPC
/// error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this type cannot become a tool result",
    note = "return text (`String`), content blocks, `CallToolResult`, a `Serialize + JsonSchema` value, `Json<T>`, or `Result` of these"
)]
pub trait IntoToolResult {
    /// Converts the value.
    fn into_tool_result(self) -> ToolOutcome;

    /// The `outputSchema` this type always produces, if structured.
    fn output_schema() -> Option<Map<String, Value>> {
        None
    }
}

fn complete(result: CallToolResult) -> ToolOutcome {
    Ok(Outcome::Complete(result))
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> ToolOutcome {
        complete(self)
    }
}

impl IntoToolResult for Outcome<CallToolResult> {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(self)
    }
}

impl IntoToolResult for InputRequiredResult {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(Outcome::InputRequired(self))
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolOutcome {
        complete(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> ToolOutcome {
        complete(CallToolResult::text(self))
    }
}

impl IntoToolResult for Cow<'static, str> {
    fn into_tool_result(self) -> ToolOutcome {
        complete(CallToolResult::text(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> ToolOutcome {
        complete(CallToolResult::new(Vec::new()))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> ToolOutcome {
        complete(CallToolResult::new(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> ToolOutcome {
        complete(CallToolResult::new(self))
    }
}

macro_rules! text_like {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> ToolOutcome {
                complete(CallToolResult::text(self.to_string()))
            }
        }
    )*};
}
text_like!(bool, char, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolOutcome {
        match serde_json::to_value(&self.0) {
            Ok(value) => complete(CallToolResult::structured(crate::schema::structured_value::<T>(value))),
            Err(e) => Err(ErrorObject::internal(format!("the tool's result could not be serialized: {e}"))),
        }
    }

    fn output_schema() -> Option<Map<String, Value>> {
        Some(crate::schema::output_schema_for::<T>())
    }
}

impl<T: IntoToolResult, E: Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolOutcome {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => complete(CallToolResult::error(e.to_string())),
        }
    }

    fn output_schema() -> Option<Map<String, Value>> {
        T::output_schema()
    }
}

impl<T: IntoToolResult> IntoToolResult for Result<T, RpcError> {
    fn into_tool_result(self) -> ToolOutcome {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(RpcError(e)) => Err(e),
        }
    }

    fn output_schema() -> Option<Map<String, Value>> {
        T::output_schema()
    }
}

/// Turns a prompt handler's return value into a `prompts/get` result.
///
/// A `String` is one user message; messages, a full [`GetPromptResult`],
/// [`Outcome`] and `Result` of these work too (an `Err` is a `-32603`
/// JSON-RPC error with its message; `Err(RpcError)` is passed through).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "this type cannot become a prompt result",
    note = "return a `String` (one user message), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or `Result` of these"
)]
pub trait IntoPromptResult {
    /// Converts the value.
    fn into_prompt_result(self) -> PromptOutcome;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(Outcome::Complete(self))
    }
}

impl IntoPromptResult for Outcome<GetPromptResult> {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(self)
    }
}

impl IntoPromptResult for InputRequiredResult {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(Outcome::InputRequired(self))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> PromptOutcome {
        vec![PromptMessage::user(self)].into_prompt_result()
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> PromptOutcome {
        self.to_owned().into_prompt_result()
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> PromptOutcome {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(Outcome::Complete(GetPromptResult::new(self)))
    }
}

impl<T: IntoPromptResult, E: Display> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> PromptOutcome {
        match self {
            Ok(v) => v.into_prompt_result(),
            Err(e) => Err(ErrorObject::internal(e.to_string())),
        }
    }
}

impl<T: IntoPromptResult> IntoPromptResult for Result<T, RpcError> {
    fn into_prompt_result(self) -> PromptOutcome {
        match self {
            Ok(v) => v.into_prompt_result(),
            Err(RpcError(e)) => Err(e),
        }
    }
}

/// Turns a resource handler's return value into `resources/read` contents.
///
/// The URI being read is passed in, so a handler can return just text
/// (`String`) or bytes (`Vec<u8>`); it may also return [`ResourceContents`],
/// several of them, a full [`ReadResourceResult`], or `Result` of these.
/// An `Err` of a type implementing `Display` is `-32603`; return
/// [`NotFound`] (or `Err(RpcError)`) for a resource that does not exist.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "this type cannot become resource contents",
    note = "return a `String` (text), `Vec<u8>` (bytes), `ResourceContents`, `Vec<ResourceContents>`, `ReadResourceResult`, or `Result` of these"
)]
pub trait IntoResourceContents {
    /// Converts the value for the resource at `uri` with the declared MIME type.
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome;
}

/// A resource that does not exist: `-32602` with `data.uri`.
///
/// It deliberately does not implement `Display`, so `Result<T, NotFound>`
/// is told apart from `Result<T, E: Display>` (an internal error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NotFound;

fn contents(list: Vec<ResourceContents>) -> ResourceOutcome {
    Ok(Outcome::Complete(ReadResourceResult::new(list)))
}

fn with_mime(c: ResourceContents, mime_type: Option<&str>) -> ResourceContents {
    match mime_type {
        Some(m) => c.with_mime_type(m),
        None => c,
    }
}

impl IntoResourceContents for String {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        contents(vec![with_mime(ResourceContents::text(uri, self), mime_type)])
    }
}

impl IntoResourceContents for &'static str {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        self.to_owned().into_resource_result(uri, mime_type)
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        contents(vec![with_mime(ResourceContents::blob(uri, &self), mime_type)])
    }
}

impl IntoResourceContents for &'static [u8] {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        contents(vec![with_mime(ResourceContents::blob(uri, self), mime_type)])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_resource_result(self, _uri: &str, _mime_type: Option<&str>) -> ResourceOutcome {
        contents(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_resource_result(self, uri: &str, _mime_type: Option<&str>) -> ResourceOutcome {
        if self.is_empty() {
            // An empty `contents` array is forbidden: nothing there means not found.
            return Err(ErrorObject::resource_not_found(uri));
        }
        contents(self)
    }
}

impl IntoResourceContents for ReadResourceResult {
    fn into_resource_result(self, uri: &str, _mime_type: Option<&str>) -> ResourceOutcome {
        if self.contents.is_empty() {
            return Err(ErrorObject::resource_not_found(uri));
        }
        Ok(Outcome::Complete(self))
    }
}

impl IntoResourceContents for Outcome<ReadResourceResult> {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        match self {
            Outcome::Complete(r) => r.into_resource_result(uri, mime_type),
            other => Ok(other),
        }
    }
}

impl IntoResourceContents for InputRequiredResult {
    fn into_resource_result(self, _uri: &str, _mime_type: Option<&str>) -> ResourceOutcome {
        Ok(Outcome::InputRequired(self))
    }
}

impl<T: IntoResourceContents> IntoResourceContents for Option<T> {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        match self {
            Some(v) => v.into_resource_result(uri, mime_type),
            None => Err(ErrorObject::resource_not_found(uri)),
        }
    }
}

impl<T: IntoResourceContents, E: Display> IntoResourceContents for Result<T, E> {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        match self {
            Ok(v) => v.into_resource_result(uri, mime_type),
            Err(e) => Err(ErrorObject::internal(e.to_string())),
        }
    }
}

impl<T: IntoResourceContents> IntoResourceContents for Result<T, NotFound> {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        match self {
            Ok(v) => v.into_resource_result(uri, mime_type),
            Err(NotFound) => Err(ErrorObject::resource_not_found(uri)),
        }
    }
}

impl<T: IntoResourceContents> IntoResourceContents for Result<T, RpcError> {
    fn into_resource_result(self, uri: &str, mime_type: Option<&str>) -> ResourceOutcome {
        match self {
            Ok(v) => v.into_resource_result(uri, mime_type),
            Err(RpcError(e)) => Err(e),
        }
    }
}
