//! Extractors: the typed parameters a handler can take.
//!
//! Every handler parameter implements [`FromCall`]. Most read a part of the
//! request ([`RequestContext`], [`State`], [`CancellationToken`]); [`Args`]
//! deserializes the JSON arguments. An extractor may declare shared state it
//! needs, which the server checks when it is built, so a missing `.state(..)`
//! is a startup error naming the handler rather than a failure on first call.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::handler::call::{Call, PromptCall, ResourceCall, ToolCall};
use crate::handler::context::RequestContext;
use crate::handler::principal::Principal;
use crate::handler::state::StateRequirement;
use crate::input::{Digest, Input};
use crate::protocol::{ErrorObject, RequestMeta};

/// Why an extractor could not produce its value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Rejection {
    /// The arguments do not fit the handler: for a tool this becomes a result
    /// with `isError: true` so the model can correct itself; elsewhere `-32602`.
    InvalidArguments(String),
    /// A protocol error, returned as is.
    Rpc(ErrorObject),
}

/// A value a handler can take as a parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a handler parameter",
    label = "not an extractor",
    note = "handler parameters are extractors: `Args<T>` (the JSON arguments), `State<T>`, `RequestContext`, `RequestMeta`, `CancellationToken`, `Progress`, `Logger`, `Input`, `Principal`, `Option<Principal>`, `Extension<T>` or `Option<Extension<T>>`"
)]
pub trait FromCall<C: Call>: Sized {
    /// Extracts the value from the call.
    fn from_call(call: &C) -> Result<Self, Rejection>;

    /// Shared state this extractor needs, checked when the server is built.
    fn requirement() -> Option<StateRequirement> {
        None
    }

    /// The JSON Schema this extractor contributes to a tool's `inputSchema`.
    fn input_schema() -> Option<Map<String, Value>> {
        None
    }
}

impl<C: Call> FromCall<C> for RequestContext {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(call.context().clone())
    }
}

impl<C: Call> FromCall<C> for CancellationToken {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(call.context().cancellation().clone())
    }
}

impl<C: Call> FromCall<C> for RequestMeta {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(call.context().meta().clone())
    }
}

/// Shared application state set with [`ServerBuilder::state`](crate::ServerBuilder::state).
///
/// Each call gets a clone of the value given to the builder, so state that
/// handlers change together lives behind an `Arc` (an `Arc<Mutex<_>>`, a
/// connection pool). Take the value out with a pattern, `State(book):
/// State<Cookbook>`, or use the `State` itself: it dereferences to the
/// value, so `book.get(id)` calls `Cookbook::get`.
///
/// ```standalone_crate
/// use std::collections::HashMap;
/// use std::sync::Arc;
///
/// use mcp_runtime::{State, tool};
///
/// #[derive(Clone, Default)]
/// struct Cookbook(Arc<HashMap<u32, String>>);
///
/// impl Cookbook {
///     fn get(&self, id: u32) -> Option<&String> {
///         self.0.get(&id)
///     }
/// }
///
/// /// A recipe by its number.
/// #[tool]
/// fn recipe(book: State<Cookbook>, id: u32) -> String {
///     // `State<Cookbook>` dereferences to the `Cookbook`.
///     book.get(id).cloned().unwrap_or_default()
/// }
///
/// /// How many recipes there are.
/// #[tool]
/// fn count(State(book): State<Cookbook>) -> usize {
///     // The pattern binds the `Cookbook` itself.
///     book.0.len()
/// }
///
/// let recipes = HashMap::from([(1, "Pancakes".to_owned())]);
/// let server = mcp_runtime::server!().state(Cookbook(Arc::new(recipes))).build()?;
/// # assert_eq!(server.tools().count(), 2);
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
///
/// Without the macros, the same pattern fits a closure's parameter:
///
/// ```
/// use mcp_runtime::{Server, State, entry::ToolEntry};
/// #[derive(Clone)]
/// struct Db(&'static str);
///
/// let server = Server::builder("demo", "1.0.0")
///     .state(Db("memory"))
///     .tool(ToolEntry::new("which_db", |State(db): State<Db>| async move { db.0.to_string() }))
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct State<T>(pub T);

impl<T> std::ops::Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// Changes reach this call's clone only, as with a `mut` binding of the
/// pattern (`State(mut book)`); the server's value and other calls are
/// untouched.
impl<T> std::ops::DerefMut for State<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<C: Call, T: Clone + Send + Sync + 'static> FromCall<C> for State<T> {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        call.context().state::<T>().map(State).ok_or_else(|| {
            Rejection::Rpc(ErrorObject::internal(format!(
                "state of type `{}` was not provided to the server",
                std::any::type_name::<T>()
            )))
        })
    }

    fn requirement() -> Option<StateRequirement> {
        Some(StateRequirement::of::<T>())
    }
}

/// The JSON arguments, deserialized into `T`.
///
/// For a tool, `T`'s JSON Schema (schemars) becomes the `inputSchema`, and
/// arguments that fail to deserialize produce a result with `isError: true`
/// naming the problem, so the model can retry. For a prompt, `T` is built
/// from the string arguments; for a resource template, from the URI's
/// variables.
#[derive(Debug, Clone, Copy, Default)]
pub struct Args<T>(pub T);

impl<T: DeserializeOwned + JsonSchema> FromCall<ToolCall> for Args<T> {
    fn from_call(call: &ToolCall) -> Result<Self, Rejection> {
        let raw = call.raw_arguments().map(|r| r.get()).unwrap_or("{}");
        serde_json::from_str(raw)
            .map(Args)
            .map_err(|e| Rejection::InvalidArguments(format!("Invalid arguments for tool `{}`: {e}", call.name())))
    }

    fn input_schema() -> Option<Map<String, Value>> {
        Some(crate::schema::input_schema_for::<T>())
    }
}

impl<T: DeserializeOwned> FromCall<PromptCall> for Args<T> {
    fn from_call(call: &PromptCall) -> Result<Self, Rejection> {
        T::deserialize(&Value::Object(call.arguments().clone()))
            .map(Args)
            .map_err(|e| Rejection::InvalidArguments(format!("Invalid arguments for prompt `{}`: {e}", call.name())))
    }
}

impl<T: DeserializeOwned> FromCall<ResourceCall> for Args<T> {
    fn from_call(call: &ResourceCall) -> Result<Self, Rejection> {
        // Variables that do not fit the handler name no resource: not found.
        crate::uri_template::deserialize_variables(call.variables()).map(Args).map_err(|e| {
            let error = ErrorObject::invalid_params(format!("Invalid URI `{}`: {e}", call.uri()));
            Rejection::Rpc(error.with_data(serde_json::json!({ "uri": call.uri() })))
        })
    }
}

impl<C: Call> FromCall<C> for Input {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        match call.context().input_state(|| Digest::Deferred(call.arguments_digest())) {
            Some(state) => Ok(Input::new(state)),
            None => Err(Rejection::Rpc(ErrorObject::internal(
                "input can only be requested by tools, prompts and resources",
            ))),
        }
    }
}

/// The verified caller of `call`: the [`Principal`] in the extensions of
/// the HTTP request that carried it, on an authenticated server only (on
/// another, whatever a layer put there was never verified, and is ignored).
fn principal_of<C: Call>(call: &C) -> Option<Principal> {
    let cx = call.context();
    if !cx.is_authenticated() {
        return None;
    }
    #[cfg(feature = "http")]
    {
        cx.http_request().and_then(|parts| parts.extensions.get::<Principal>()).cloned()
    }
    #[cfg(not(feature = "http"))]
    {
        None
    }
}

/// The caller of an authenticated server. A server whose handler takes it
/// fails to build without authentication
/// ([`BuildError::Unauthenticated`](crate::BuildError::Unauthenticated)),
/// so that it is refused at startup, not on every call. A request without
/// a verified caller (over stdio, or dispatched in process) is refused with
/// `-32603`: the server is set up to be reached over authenticated HTTP
/// only, which is no mistake the model could correct.
impl<C: Call> FromCall<C> for Principal {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        principal_of(call).ok_or_else(|| {
            Rejection::Rpc(ErrorObject::internal(
                "This handler needs the authenticated caller, and this request has none: it did not come over authenticated HTTP",
            ))
        })
    }

    fn requirement() -> Option<StateRequirement> {
        Some(crate::handler::principal::authenticated_requirement())
    }
}

/// The caller, when the request has a verified one: `None` over stdio, in
/// process, and on a server without authentication.
impl<C: Call> FromCall<C> for Option<Principal> {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(principal_of(call))
    }
}
