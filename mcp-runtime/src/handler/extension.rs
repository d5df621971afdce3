//! [`Extension`]: what the host application put in the HTTP request that
//! carried a call.
//!
//! An application that mounts the [`McpService`](crate::transport::http::McpService)
//! behind its own middleware (authentication, tracing) hands what that
//! middleware learned to the tools the way axum handlers receive it: as a
//! request extension.

use std::any::type_name;

use crate::handler::call::{Call, CompleteCall, PromptCall, ResourceCall, ToolCall};
use crate::handler::extract::{FromCall, Rejection};
use crate::protocol::ErrorObject;

/// A value the host application put in the HTTP request's extensions,
/// such as the caller's identity an authentication middleware found:
/// the counterpart of axum's `Extension` extractor for handlers.
///
/// ```
/// use mcp_runtime::{tool, extract::Extension};
///
/// /// Inserted by the application's auth layer:
/// /// `request.extensions_mut().insert(User("ada".into()))`.
/// #[derive(Clone)]
/// struct User(String);
///
/// /// Says who is calling.
/// #[tool]
/// async fn whoami(Extension(user): Extension<User>) -> String {
///     user.0
/// }
///
/// /// Greets the caller, or whoever calls without an HTTP request.
/// #[tool]
/// async fn greet(user: Option<Extension<User>>) -> String {
///     match user {
///         Some(Extension(user)) => format!("Hello, {}!", user.0),
///         None => "Hello, stranger!".to_owned(),
///     }
/// }
/// ```
///
/// The value is cloned out of the extensions, so `T` is typically an
/// `Arc` or a small value. When the request has no such extension
/// (served over stdio or dispatched in process, or the layer that
/// inserts it is not in front of the MCP service), `Extension<T>`
/// refuses the call: a tool answers with a result with `isError: true`
/// that says so, which the model can read; a prompt, a resource or a
/// completer answers a `-32603` error. Take `Option<Extension<T>>` to
/// handle the absence yourself.
///
/// In `#[tool]`, `#[prompt]` and `#[resource]` functions, a parameter of
/// type `Extension<T>` or `Option<Extension<T>>` is a context parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extension<T>(pub T);

fn find<C: Call, T: Clone + Send + Sync + 'static>(call: &C) -> Result<T, String> {
    let Some(parts) = call.context().http_request() else {
        return Err(format!(
            "`{}` comes from the HTTP request, and this request did not come over HTTP",
            type_name::<T>()
        ));
    };
    parts.extensions.get::<T>().cloned().ok_or_else(|| {
        format!(
            "The HTTP request carries no `{}`: the layer that inserts it does not run in front of the MCP service",
            type_name::<T>()
        )
    })
}

// A tool tells the model (a result with `isError: true`); the other
// handlers have no such channel and answer an internal error.
impl<T: Clone + Send + Sync + 'static> FromCall<ToolCall> for Extension<T> {
    fn from_call(call: &ToolCall) -> Result<Self, Rejection> {
        find(call).map(Extension).map_err(Rejection::InvalidArguments)
    }
}

macro_rules! rpc_rejection {
    ($($call:ty),*) => {$(
        impl<T: Clone + Send + Sync + 'static> FromCall<$call> for Extension<T> {
            fn from_call(call: &$call) -> Result<Self, Rejection> {
                find(call).map(Extension).map_err(|m| Rejection::Rpc(ErrorObject::internal(m)))
            }
        }
    )*};
}
rpc_rejection!(PromptCall, ResourceCall, CompleteCall);

impl<C: Call, T: Clone + Send + Sync + 'static> FromCall<C> for Option<Extension<T>> {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(call.context().http_request().and_then(|parts| parts.extensions.get::<T>()).cloned().map(Extension))
    }
}
