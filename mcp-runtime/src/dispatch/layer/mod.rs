//! The middleware chain's parts: the [`Layer`] trait, the request view
//! layers read ([`McpRequest`]) and the step they pass it to ([`Next`]).
//! Re-exported, with the built-in layers, as [`crate::middleware`].

mod chain;
mod request;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use chain::Next;
#[cfg(feature = "tasks")]
pub(crate) use chain::layered_task;
pub(crate) use chain::{Layers, ServerLayers, run_layered};
#[cfg(feature = "http")]
pub(crate) use request::ClientAddress;
pub use request::McpRequest;
pub(crate) use request::View;

use crate::response::Response;

/// A boxed future, as a [`Layer`] returns it.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A step around the requests a server runs. See the
/// [`middleware`](crate::middleware) module for where layers run and what
/// they see.
///
/// Implement it for a layer with settings or state of its own; for a
/// closure, [`from_fn`] does it.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use mcp_runtime::middleware::{BoxFuture, Layer, McpRequest, Next, Response};
///
/// /// Counts the requests that fail.
/// #[derive(Default)]
/// struct Failures(AtomicU64);
///
/// impl Layer for Failures {
///     fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
///         Box::pin(async move {
///             let response = next.run(request).await;
///             if response.as_error().is_some() {
///                 self.0.fetch_add(1, Ordering::Relaxed);
///             }
///             response
///         })
///     }
/// }
///
/// let server = mcp_runtime::Server::builder("demo", "1.0.0").layer(Failures::default()).build().unwrap();
/// # let _ = server;
/// ```
pub trait Layer: Send + Sync + 'static {
    /// Handles `request`: passes it on with `next.run(request)`, or answers
    /// it without doing so.
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response>;
}

impl<L: Layer + ?Sized> Layer for Arc<L> {
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        (**self).call(request, next)
    }
}

/// A [`Layer`] made of an async closure taking the request and the next
/// step (see the [`middleware`](crate::middleware) module's example).
pub fn from_fn<F, Fut>(f: F) -> FromFn<F>
where
    F: Fn(McpRequest, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response> + Send + 'static,
{
    FromFn(f)
}

/// The [`Layer`] [`from_fn`] makes.
#[derive(Clone, Copy)]
pub struct FromFn<F>(F);

impl<F> std::fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FromFn")
    }
}

impl<F, Fut> Layer for FromFn<F>
where
    F: Fn(McpRequest, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response> + Send + 'static,
{
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        Box::pin((self.0)(request, next))
    }
}
