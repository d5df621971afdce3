//! Handlers as plain async closures or functions of extractors, in the style
//! of axum: `|Args(a): Args<AddArgs>, State(db): State<Db>| async move { .. }`.
//!
//! The `M` type parameter of [`ToolHandler`], [`PromptHandler`] and
//! [`ResourceHandler`] is a coherence device only: it records the extractor
//! tuple so that one trait can be implemented for closures of every arity.
//! Users never name it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::handler::call::{CompleteCall, PromptCall, ResourceCall, ToolCall};
use crate::handler::extract::{FromCall, Rejection};
use crate::handler::outcome::{
    IntoPromptResult, IntoResourceContents, IntoToolResult, PromptOutcome, ResourceOutcome, ToolOutcome,
};
use crate::handler::passed::PassedResult;
use crate::handler::state::StateRequirement;
use crate::protocol::{CallToolResult, Completion, ErrorObject};

/// A boxed, sendable future, as every erased handler returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A type-erased tool handler.
pub(crate) type ToolFn = Arc<dyn Fn(ToolCall) -> BoxFuture<'static, ToolOutcome> + Send + Sync>;
/// A tool whose calls are relayed to another server, each complete result
/// passed on as that server wrote it (a mounted remote's tool).
pub(crate) type RelayFn = Arc<
    dyn Fn(ToolCall) -> BoxFuture<'static, Result<crate::handler::outcome::Outcome<PassedResult>, ErrorObject>>
        + Send
        + Sync,
>;
/// A type-erased prompt handler.
pub(crate) type PromptFn = Arc<dyn Fn(PromptCall) -> BoxFuture<'static, PromptOutcome> + Send + Sync>;
/// A type-erased resource handler; it also receives the declared MIME type.
pub(crate) type ResourceFn =
    Arc<dyn Fn(ResourceCall, Option<Arc<str>>) -> BoxFuture<'static, ResourceOutcome> + Send + Sync>;
/// A type-erased completion handler.
pub(crate) type CompleteFn =
    Arc<dyn Fn(CompleteCall) -> BoxFuture<'static, Result<Completion, ErrorObject>> + Send + Sync>;

/// An async function of extractors usable as a tool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool handler",
    note = "a tool handler is an async function or closure whose parameters are extractors (`Args<T>`, `State<T>`, `RequestContext`, ...) and whose output implements `IntoToolResult`"
)]
pub trait ToolHandler<M>: Clone + Send + Sync + 'static {
    /// Runs the handler.
    fn call(&self, call: ToolCall) -> BoxFuture<'static, ToolOutcome>;
    /// Shared state the extractors need.
    fn requirements() -> Vec<StateRequirement>;
    /// The `inputSchema` derived from the extractors (`Args<T>`), if any.
    fn input_schema() -> Option<Map<String, Value>>;
    /// The `outputSchema` derived from the return type, if structured.
    fn output_schema() -> Option<Map<String, Value>>;
}

/// An async function of extractors usable as a prompt.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt handler",
    note = "a prompt handler is an async function or closure whose parameters are extractors and whose output implements `IntoPromptResult`"
)]
pub trait PromptHandler<M>: Clone + Send + Sync + 'static {
    /// Runs the handler.
    fn call(&self, call: PromptCall) -> BoxFuture<'static, PromptOutcome>;
    /// Shared state the extractors need.
    fn requirements() -> Vec<StateRequirement>;
}

/// An async function of extractors usable as a resource or resource template.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource handler",
    note = "a resource handler is an async function or closure whose parameters are extractors and whose output implements `IntoResourceContents`"
)]
pub trait ResourceHandler<M>: Clone + Send + Sync + 'static {
    /// Runs the handler.
    fn call(&self, call: ResourceCall, mime_type: Option<Arc<str>>) -> BoxFuture<'static, ResourceOutcome>;
    /// Shared state the extractors need.
    fn requirements() -> Vec<StateRequirement>;
}

fn tool_rejection(rejection: Rejection) -> ToolOutcome {
    match rejection {
        Rejection::InvalidArguments(message) => {
            Ok(crate::handler::outcome::Outcome::Complete(CallToolResult::error(message)))
        }
        Rejection::Rpc(e) => Err(e),
    }
}

fn rpc_rejection<T>(rejection: Rejection) -> Result<T, ErrorObject> {
    match rejection {
        Rejection::InvalidArguments(message) => Err(ErrorObject::invalid_params(message)),
        Rejection::Rpc(e) => Err(e),
    }
}

macro_rules! impl_handlers {
    ($($ty:ident),*) => {
        #[allow(non_snake_case, unused_variables, unused_mut)]
        impl<F, Fut, R, $($ty,)*> ToolHandler<($($ty,)*)> for F
        where
            F: Fn($($ty),*) -> Fut + Clone + Send + Sync + 'static,
            Fut: Future<Output = R> + Send + 'static,
            R: IntoToolResult,
            $($ty: FromCall<ToolCall> + Send + 'static,)*
        {
            fn call(&self, call: ToolCall) -> BoxFuture<'static, ToolOutcome> {
                $(
                    let $ty = match $ty::from_call(&call) {
                        Ok(v) => v,
                        Err(r) => return Box::pin(std::future::ready(tool_rejection(r))),
                    };
                )*
                let fut = (self)($($ty),*);
                Box::pin(async move { fut.await.into_tool_result() })
            }

            fn requirements() -> Vec<StateRequirement> {
                let mut v = Vec::new();
                $( v.extend(<$ty as FromCall<ToolCall>>::requirement()); )*
                v
            }

            fn input_schema() -> Option<Map<String, Value>> {
                let mut schema = None;
                $( schema = schema.or_else(<$ty as FromCall<ToolCall>>::input_schema); )*
                schema
            }

            fn output_schema() -> Option<Map<String, Value>> {
                R::output_schema()
            }
        }

        #[allow(non_snake_case, unused_variables, unused_mut)]
        impl<F, Fut, R, $($ty,)*> PromptHandler<($($ty,)*)> for F
        where
            F: Fn($($ty),*) -> Fut + Clone + Send + Sync + 'static,
            Fut: Future<Output = R> + Send + 'static,
            R: IntoPromptResult,
            $($ty: FromCall<PromptCall> + Send + 'static,)*
        {
            fn call(&self, call: PromptCall) -> BoxFuture<'static, PromptOutcome> {
                $(
                    let $ty = match $ty::from_call(&call) {
                        Ok(v) => v,
                        Err(r) => return Box::pin(std::future::ready(rpc_rejection(r))),
                    };
                )*
                let fut = (self)($($ty),*);
                Box::pin(async move { fut.await.into_prompt_result() })
            }

            fn requirements() -> Vec<StateRequirement> {
                let mut v = Vec::new();
                $( v.extend(<$ty as FromCall<PromptCall>>::requirement()); )*
                v
            }
        }

        #[allow(non_snake_case, unused_variables, unused_mut)]
        impl<F, Fut, R, $($ty,)*> ResourceHandler<($($ty,)*)> for F
        where
            F: Fn($($ty),*) -> Fut + Clone + Send + Sync + 'static,
            Fut: Future<Output = R> + Send + 'static,
            R: IntoResourceContents,
            $($ty: FromCall<ResourceCall> + Send + 'static,)*
        {
            fn call(&self, call: ResourceCall, mime_type: Option<Arc<str>>) -> BoxFuture<'static, ResourceOutcome> {
                $(
                    let $ty = match $ty::from_call(&call) {
                        Ok(v) => v,
                        Err(r) => return Box::pin(std::future::ready(rpc_rejection(r))),
                    };
                )*
                let fut = (self)($($ty),*);
                let uri = call.uri;
                Box::pin(async move { fut.await.into_resource_result(&uri, mime_type.as_deref()) })
            }

            fn requirements() -> Vec<StateRequirement> {
                let mut v = Vec::new();
                $( v.extend(<$ty as FromCall<ResourceCall>>::requirement()); )*
                v
            }
        }
    };
}

impl_handlers!();
impl_handlers!(T1);
impl_handlers!(T1, T2);
impl_handlers!(T1, T2, T3);
impl_handlers!(T1, T2, T3, T4);
impl_handlers!(T1, T2, T3, T4, T5);
impl_handlers!(T1, T2, T3, T4, T5, T6);
impl_handlers!(T1, T2, T3, T4, T5, T6, T7);
impl_handlers!(T1, T2, T3, T4, T5, T6, T7, T8);
