//! Completers named by `#[arg(complete = path)]`.

use std::fmt::Display;
use std::future::Future;

use crate::handler::call::CompleteCall;
use crate::handler::functions::BoxFuture;
use crate::protocol::{Completion, ErrorObject};

/// The erased completer of a prompt or a resource template.
pub type CompleteFn = fn(CompleteCall) -> BoxFuture<'static, Result<Completion, ErrorObject>>;

/// What a completer returns.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the result of a completer",
    label = "not a list of suggestions",
    note = "a completer returns `Vec<String>`, `Vec<&'static str>`, a `Completion`, or `Result` of these"
)]
pub trait IntoCompletion {
    /// The completion.
    fn into_completion(self) -> Result<Completion, ErrorObject>;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Completion, ErrorObject> {
        Ok(self)
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion, ErrorObject> {
        Ok(Completion::from_values(self))
    }
}

impl IntoCompletion for Vec<&'static str> {
    fn into_completion(self) -> Result<Completion, ErrorObject> {
        Ok(Completion::from_values(self.into_iter().map(str::to_owned)))
    }
}

impl<T: IntoCompletion, E: Display> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion, ErrorObject> {
        match self {
            Ok(v) => v.into_completion(),
            Err(e) => Err(ErrorObject::internal(e.to_string())),
        }
    }
}

/// A function that suggests values for one argument. `M` tells the two
/// accepted shapes apart and is never named:
///
/// - `fn(&str) -> R`: gets what was typed so far;
/// - `async fn(CompleteCall) -> R`: gets the whole request (other arguments,
///   context).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete an argument",
    label = "not a completer",
    note = "a completer is `fn(&str) -> Vec<String>` (given the value typed so far) or `async fn(CompleteCall) -> Vec<String>`; it may also return `Vec<&'static str>`, `Completion` or a `Result` of these"
)]
pub trait Completer<M>: Send + Sync + 'static {
    /// Runs the completer.
    fn complete(self, call: CompleteCall) -> BoxFuture<'static, Result<Completion, ErrorObject>>;
}

/// Marker of [`Completer`] for `fn(&str) -> R`.
#[derive(Debug)]
pub enum TypedSoFar {}

/// Marker of [`Completer`] for `async fn(CompleteCall) -> R`.
#[derive(Debug)]
pub enum WholeRequest {}

impl<F, R> Completer<(TypedSoFar, R)> for F
where
    F: Fn(&str) -> R + Send + Sync + 'static,
    R: IntoCompletion,
{
    /// On the blocking pool, like a sync handler: it may look the value up
    /// in a file or a database.
    fn complete(self, call: CompleteCall) -> BoxFuture<'static, Result<Completion, ErrorObject>> {
        super::blocking(move || self(call.value()).into_completion())
    }
}

impl<F, Fut> Completer<(WholeRequest, Fut)> for F
where
    F: Fn(CompleteCall) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    fn complete(self, call: CompleteCall) -> BoxFuture<'static, Result<Completion, ErrorObject>> {
        let future = self(call);
        Box::pin(async move { future.await.into_completion() })
    }
}

/// Runs `completer` for `call`.
pub fn complete_with<M, F: Completer<M>>(
    call: CompleteCall,
    completer: F,
) -> BoxFuture<'static, Result<Completion, ErrorObject>> {
    completer.complete(call)
}

/// The answer for an argument without a completer: no suggestions.
pub fn no_completion() -> BoxFuture<'static, Result<Completion, ErrorObject>> {
    Box::pin(std::future::ready(Ok(Completion::default())))
}
