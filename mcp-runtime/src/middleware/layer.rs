//! The [`Layer`] trait, the closures that are layers ([`from_fn`]), and
//! the chain a request runs through: the server's layers, then its tool's,
//! then the handler ([`Next`]). One file: a layer is called with the rest
//! of the chain, which holds layers.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;

use super::{McpRequest, Refusal, RefusalReason};
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

#[doc(inline)]
pub use crate::handler::BoxFuture;

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
pub trait Layer: std::any::Any + Send + Sync {
    /// Handles `request`: passes it on with `next.run(request)`, or answers
    /// it without doing so.
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response>;

    /// Decides whether `request` may go on at all, before anything of it
    /// happens: before any layer's [`call`](Self::call) and before a tool
    /// that runs as a task creates its task. `None` (the default) admits
    /// it; a response refuses it, and is its answer: no `call` and no
    /// handler run, and every layer's [`refused`](Self::refused) hears of
    /// it. The layers' `admit` run outermost first, until one refuses.
    ///
    /// For checks that must hold whatever the request turns into, such as
    /// a rate limit ([`RateLimit`](crate::middleware) counts calls here):
    /// a layer that refused in `call` would do so inside a task, once the
    /// task exists.
    ///
    /// ```
    /// use mcp_runtime::middleware::{BoxFuture, Layer, McpRequest, Next, Response};
    /// use mcp_runtime::protocol::ErrorObject;
    ///
    /// /// Refuses every call of the tool `reset` before anything of it runs.
    /// struct NoReset;
    ///
    /// impl Layer for NoReset {
    ///     fn admit(&self, request: &McpRequest) -> Option<Response> {
    ///         (request.target() == Some("reset")).then(|| request.error(ErrorObject::invalid_params("Refused")))
    ///     }
    ///
    ///     fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
    ///         Box::pin(next.run(request))
    ///     }
    /// }
    /// ```
    fn admit(&self, request: &McpRequest) -> Option<Response> {
        let _ = request;
        None
    }

    /// Hears of a request the server refused before any layer's `call` saw
    /// it (its `Origin`, its token, its scopes, an unknown tool, a full
    /// server, or another layer's [`admit`](Self::admit)), so that an
    /// audit trail holds what was refused too. The server's own layers
    /// hear of every refusal; a tool's own layers, of its calls refused by
    /// a layer's `admit`. It must not block: it runs on the path of the
    /// refusal. The default ignores it.
    fn refused(&self, refusal: &Refusal<'_>) {
        let _ = refusal;
    }
}

impl<L: Layer + ?Sized> Layer for Arc<L> {
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        (**self).call(request, next)
    }

    fn admit(&self, request: &McpRequest) -> Option<Response> {
        (**self).admit(request)
    }

    fn refused(&self, refusal: &Refusal<'_>) {
        (**self).refused(refusal)
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

/// The answer of the first of `outer`, then `own`, that refuses `request`
/// in its [`Layer::admit`], which every layer then hears of; `None` when
/// they all admit it. A layer that panics refuses with `-32603`.
pub(crate) fn admission(outer: &Layers, own: Option<&Layers>, request: &McpRequest) -> Option<Response> {
    let layers = || outer.iter().chain(own.into_iter().flat_map(|own| own.iter()));
    let refusal = layers().find_map(|layer| {
        std::panic::catch_unwind(AssertUnwindSafe(|| layer.admit(request))).unwrap_or_else(|_| {
            tracing::error!("a middleware layer panicked");
            Some(request.error(ErrorObject::internal("The request failed unexpectedly")))
        })
    })?;
    let message = refusal.as_error().map(|e| e.message.as_str()).unwrap_or("refused by a layer");
    let mut heard = Refusal::new(RefusalReason::Admission, message);
    heard.method = Some(request.method().name());
    heard.target = request.target();
    heard.principal = request.principal();
    heard.client_address = request.client_address();
    heard.error_code = refusal.as_error().map(|e| e.code);
    tell(layers(), &heard);
    Some(refusal)
}

/// Tells each of `layers` of `refusal`; one that panics is logged and
/// skipped.
pub(crate) fn tell<'a>(layers: impl Iterator<Item = &'a Arc<dyn Layer>>, refusal: &Refusal<'_>) {
    for layer in layers {
        if std::panic::catch_unwind(AssertUnwindSafe(|| layer.refused(refusal))).is_err() {
            tracing::error!("a middleware layer panicked while hearing of a refusal");
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
