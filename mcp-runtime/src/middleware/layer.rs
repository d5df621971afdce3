//! The [`Layer`] trait, the closures that are layers ([`from_fn`]), and
//! the chain a request runs through: the server's layers, then its tool's,
//! then the handler ([`Next`]). One file: a layer is called with the rest
//! of the chain, which holds layers.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::FutureExt as _;

use super::McpRequest;
use crate::protocol::ErrorObject;
use crate::response::Response;

/// Layers in the order they run, the outermost first.
pub(crate) type Layers = Arc<[Arc<dyn Layer>]>;

/// The server's layers, in its settings.
#[derive(Clone)]
pub(crate) struct ServerLayers(pub(crate) Layers);

impl std::fmt::Debug for ServerLayers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} layers", self.0.len())
    }
}

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

/// What is left of the chain for a layer: the layers inside it, then the
/// handler. [`run`](Self::run) goes on; a layer that never calls it answers
/// the request itself.
pub struct Next {
    outer: Layers,
    own: Option<Layers>,
    index: usize,
    handler: Box<dyn FnOnce() -> BoxFuture<'static, Response> + Send>,
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let left = self.outer.len() + self.own.as_ref().map_or(0, |own| own.len()) - self.index;
        f.debug_struct("Next").field("layers_left", &left).finish_non_exhaustive()
    }
}

impl Next {
    /// Passes the request to the next layer, or to its handler after the
    /// last one, and returns the response on its way back.
    ///
    /// The request the handler runs is the one the server received: a
    /// layer that would change it answers instead.
    pub async fn run(mut self, request: McpRequest) -> Response {
        let layer = match self.outer.get(self.index) {
            Some(layer) => Some(Arc::clone(layer)),
            None => self.own.as_ref().and_then(|own| own.get(self.index - self.outer.len()).cloned()),
        };
        match layer {
            Some(layer) => {
                self.index += 1;
                layer.call(request, self).await
            }
            None => (self.handler)().await,
        }
    }
}

/// Runs `request` through `outer`, then `own`, then `handler`. A layer
/// that panics fails this request with `-32603`, as a handler would.
pub(crate) async fn run_layered(
    outer: Layers,
    own: Option<Layers>,
    request: McpRequest,
    handler: Box<dyn FnOnce() -> BoxFuture<'static, Response> + Send>,
) -> Response {
    let view = request.clone();
    let next = Next { outer, own, index: 0, handler };
    match AssertUnwindSafe(next.run(request)).catch_unwind().await {
        Ok(response) => response,
        Err(_) => {
            tracing::error!("a middleware layer panicked");
            view.error(ErrorObject::internal("The request failed unexpectedly"))
        }
    }
}
