//! Context parameters: extractors the macro passes to the function instead
//! of JSON arguments.

use std::marker::PhantomData;

use crate::handler::call::{Call, ToolCall};
use crate::handler::extract::{FromCall, Rejection, State};
use crate::handler::outcome::{Outcome, ToolOutcome};
use crate::handler::state::StateRequirement;
use crate::protocol::{CallToolResult, ErrorObject};

/// What a context parameter must implement; the macro checks each one
/// against this trait, spanned on its type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a context parameter",
    label = "not a context parameter",
    note = "context parameters are `RequestContext`, `RequestMeta`, `Progress`, `Logger`, `CancellationToken`, `Input`, `Principal`, `Option<Principal>`, `State<T>` and `Extension<T>` (with `T: Clone + Send + Sync + 'static`), `Option<Extension<T>>`, or other types implementing `FromCall`",
    note = "a parameter is context when it is marked `#[ctx]` or its type is named like one of these; every other parameter is an argument"
)]
pub trait ContextParam<C: Call>: FromCall<C> {}

#[diagnostic::do_not_recommend]
impl<C: Call, T: FromCall<C>> ContextParam<C> for T {}

/// [`ContextParam`] for an unmarked parameter taken as context only because
/// its type's name is a context type's: most likely the user's own argument
/// type, so the message says how to keep it an argument.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is taken as a context parameter because of its name, but it is not one",
    label = "named like a context type",
    note = "an unmarked parameter whose type is named `RequestContext`, `RequestMeta`, `Progress`, `Logger`, `CancellationToken`, `Input`, `Principal`, `State` or `Extension`, or is `Option<Extension<..>>` or `Option<Principal>`, is a context parameter",
    note = "if it is an argument, mark it `#[arg]`"
)]
pub trait NamedContextParam<C: Call>: FromCall<C> {}

#[diagnostic::do_not_recommend]
impl<C: Call, T: FromCall<C>> NamedContextParam<C> for T {}

/// The runtime's [`State<T>`], for an unmarked parameter written
/// `State<T>`: the macro checks `T` on its own (see [`SharedState`]), so a
/// state type that cannot be shared is reported as that, at `T`, rather
/// than as a parameter that is not context.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is taken as a context parameter because of its name, but it is not one",
    label = "named like a context type",
    note = "an unmarked parameter whose type is named `State<T>` is the runtime's shared state, `mcp_runtime::State<T>`",
    note = "if it is an argument, mark it `#[arg]`"
)]
pub trait IsState<T>: Sized {
    /// `state` as the parameter's type.
    fn from_state(state: State<T>) -> Self;
}

#[diagnostic::do_not_recommend]
impl<T> IsState<T> for State<T> {
    fn from_state(state: State<T>) -> Self {
        state
    }
}

/// What `T` in `State<T>` must be: each call gets a clone of the value
/// registered with `ServerBuilder::state`, from any of the runtime's
/// threads.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shared state: `State<T>` needs `T: Clone + Send + Sync + 'static`",
    label = "not `Clone + Send + Sync + 'static`",
    note = "every call gets its own clone of the state: share a value that is not `Clone` (a `Mutex`, a connection, a client) through an `Arc`, taking `State<Arc<Mutex<T>>>` and registering `.state(Arc::new(Mutex::new(value)))`",
    note = "calls run on several threads: use `Arc` rather than `Rc`, and `Mutex` or `RwLock` rather than `RefCell` or `Cell`"
)]
pub trait SharedState: Clone + Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Clone + Send + Sync + 'static> SharedState for T {}

/// How to extract one context parameter from a call of kind `C`.
pub struct Context<C, T> {
    extract: fn(&C) -> Result<T, Rejection>,
    requirement: fn() -> Option<StateRequirement>,
    call: PhantomData<fn(&C)>,
}

impl<C, T> Clone for Context<C, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C, T> Copy for Context<C, T> {}

/// The slot of a context parameter of type `T` in a call of kind `C`.
pub fn context<C: Call, T: ContextParam<C>>() -> Context<C, T> {
    Context { extract: T::from_call, requirement: T::requirement, call: PhantomData }
}

/// [`context`] for a parameter that is context by its type's name alone.
pub fn named_context<C: Call, T: NamedContextParam<C>>() -> Context<C, T> {
    Context { extract: T::from_call, requirement: T::requirement, call: PhantomData }
}

/// [`named_context`] for a parameter written `State<T>`: `S` must be the
/// runtime's `State<T>`, and `T` is checked apart, at its own span.
pub fn named_state<C: Call, S: IsState<T>, T: SharedState>() -> Context<C, S> {
    Context {
        extract: |call| State::<T>::from_call(call).map(S::from_state),
        requirement: <State<T> as FromCall<C>>::requirement,
        call: PhantomData,
    }
}

impl<C, T> Context<C, T> {
    /// The state this parameter needs, if any.
    pub fn requirement(self) -> Option<StateRequirement> {
        (self.requirement)()
    }
}

impl<T> Context<ToolCall, T> {
    /// Extracts the value for a tool; a rejection is already the tool's outcome.
    pub fn extract_tool(self, call: &ToolCall) -> Result<T, ToolOutcome> {
        (self.extract)(call).map_err(|rejection| match rejection {
            Rejection::InvalidArguments(message) => Ok(Outcome::Complete(CallToolResult::error(message))),
            Rejection::Rpc(e) => Err(e),
        })
    }
}

impl<C: Call, T> Context<C, T> {
    /// Extracts the value for a prompt or a resource; a rejection is a
    /// JSON-RPC error.
    pub fn extract_rpc(self, call: &C) -> Result<T, ErrorObject> {
        (self.extract)(call).map_err(|rejection| match rejection {
            Rejection::InvalidArguments(message) => ErrorObject::invalid_params(message),
            Rejection::Rpc(e) => e,
        })
    }
}

/// Collects the state requirements of a handler's context parameters.
pub fn requirements(all: &[Option<StateRequirement>]) -> Vec<StateRequirement> {
    all.iter().flatten().copied().collect()
}

#[cfg(test)]
mod tests {
    use mcp_runtime_rules::context::{CONTEXT_TYPES, OPTIONAL_CONTEXT_TYPES};

    /// The type names quoted in the first `note = "..."` of `source` that
    /// starts with `start`, generics dropped (`Option<Extension<..>>` reads
    /// `Option<Extension>`).
    fn quoted_types(source: &str, start: &str) -> Vec<String> {
        let at = source.find(&format!("note = \"{start}")).unwrap_or_else(|| panic!("no note starts with {start:?}"));
        let note = &source[at + "note = \"".len()..];
        let note = &note[..note.find('"').expect("the note ends")];
        let mut names: Vec<String> = note
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|quoted| quoted.starts_with(|c: char| c.is_ascii_uppercase()) && !quoted.contains(' '))
            .map(|quoted| match quoted.strip_prefix("Option<") {
                Some(inner) => format!("Option<{}>", inner.split(['<', '>']).next().unwrap_or(inner)),
                None => quoted.split('<').next().unwrap_or(quoted).to_owned(),
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }

    fn rule(extra: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = CONTEXT_TYPES.iter().chain(extra).map(|t| (*t).to_owned()).collect();
        names.extend(OPTIONAL_CONTEXT_TYPES.iter().map(|t| format!("Option<{t}>")));
        names.sort();
        names
    }

    #[test]
    fn diagnostics_list_the_context_types_of_the_rule() {
        let context = include_str!("context.rs");
        assert_eq!(quoted_types(context, "context parameters are"), rule(&["FromCall"]));
        assert_eq!(quoted_types(context, "an unmarked parameter whose type is named `Request"), rule(&[]));
        let extract = include_str!("../handler/extract.rs");
        assert_eq!(quoted_types(extract, "handler parameters are extractors"), rule(&["Args"]));
    }
}
