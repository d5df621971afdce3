//! Running a request through its layers: the server's, then its tool's,
//! then the handler.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;

use super::{BoxFuture, Layer, McpRequest};
use crate::dispatch::decorate::failed;
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
    let view = Arc::clone(&request.0);
    let next = Next { outer, own, index: 0, handler };
    match AssertUnwindSafe(next.run(request)).catch_unwind().await {
        Ok(response) => response,
        Err(_) => {
            tracing::error!("a middleware layer panicked");
            failed(&*view, ErrorObject::internal("The request failed unexpectedly"))
        }
    }
}

/// A task's work run through the layers: they see the call once, and the
/// tool's final outcome on its way out.
#[cfg(feature = "tasks")]
pub(crate) fn layered_task(
    outer: Layers,
    own: Option<Layers>,
    request: McpRequest,
    work: crate::handler::functions::BoxFuture<crate::handler::outcome::ToolOutcome>,
) -> crate::handler::functions::BoxFuture<crate::handler::outcome::ToolOutcome> {
    use crate::dispatch::decorate::finish;
    use crate::handler::outcome::Outcome;
    use crate::protocol::ResultType;

    let view = Arc::clone(&request.0);
    Box::pin(async move {
        let answering = Arc::clone(&view);
        let handler = Box::new(move || -> BoxFuture<'static, Response> {
            Box::pin(async move {
                match work.await {
                    Ok(Outcome::Complete(mut result)) => {
                        let own = result.meta.take();
                        finish(&*answering, ResultType::Complete, &result, own, None)
                    }
                    Ok(Outcome::InputRequired(mut body)) => {
                        let own = body.meta.take();
                        finish(&*answering, ResultType::InputRequired, &body, own, None)
                    }
                    Err(e) => failed(&*answering, e),
                }
            })
        });
        let response = run_layered(outer, own, request, handler).await;
        if let Some(error) = response.as_error() {
            return Err(error.clone());
        }
        let Some(text) = response.as_result() else {
            return Err(ErrorObject::internal("A layer's answer has neither a result nor an error"));
        };
        let unreadable =
            |e: serde_json::Error| ErrorObject::internal(format!("A layer's result is not a tool result: {e}"));
        if response.needs_input() {
            return serde_json::from_str(text).map(Outcome::InputRequired).map_err(unreadable);
        }
        serde_json::from_str(text).map(Outcome::Complete).map_err(unreadable)
    })
}
