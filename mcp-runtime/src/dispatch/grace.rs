//! Cancellation with a grace period: a request given up on (client gone,
//! `notifications/cancelled`, timeout) has its token cancelled *before* its
//! handler is dropped, and the handler keeps running for the server's
//! [cancellation grace](crate::ServerBuilder::cancellation_grace), so that
//! the documented pattern works:
//!
//! ```text
//! select! { _ = token.cancelled() => cleanup().await, r = work() => r }
//! ```
//!
//! Dropping the handler at once would leave that branch no chance to run.
//!
//! Nothing of this is on the path of a request that finishes: the request's
//! future ([`Graceful`]) only acts when it is dropped unfinished. It then
//! moves the rest of the request into a task of its own, marked by
//! [`ABANDONED`]; the [`Handled`] wrapper around the handler reads the mark
//! on its next poll and cancels the token before the handler sees that poll.
//! The response, when the handler gets to one, goes nowhere.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tracing::Instrument as _;

use super::Response;
use crate::handler::context::RequestContext;
use crate::telemetry::{Ending, Observation};

tokio::task_local! {
    /// Set in the task that finishes an abandoned request; taken by the
    /// first [`Handled`] polled in it (the request's own, not one of a
    /// request its handler makes in turn).
    static ABANDONED: Cell<bool>;
}

/// The future of a request, which on being dropped unfinished lets its
/// handler finish within `grace` (on the current tokio runtime) rather than
/// dropping it.
pub(super) struct Graceful<F: Future<Output = Response> + Send + 'static> {
    /// `None` once finished.
    future: Option<Pin<Box<F>>>,
    /// Whether the handler may have started: a future never polled has done
    /// nothing worth finishing.
    started: bool,
    grace: Duration,
    /// The request's span and measurements: its span is entered while the
    /// handler runs, through its grace too; it ends with the response, or
    /// as given up on when this is dropped first. Kept here rather than in
    /// wrappers of the future, each of which would move it once more.
    observation: Observation,
}

impl<F: Future<Output = Response> + Send + 'static> Graceful<F> {
    pub(super) fn new(future: F, grace: Duration, observation: Observation) -> Self {
        Graceful { future: Some(Box::pin(future)), started: false, grace, observation }
    }
}

impl<F: Future<Output = Response> + Send + 'static> Future for Graceful<F> {
    type Output = Response;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let this = self.get_mut();
        let Some(future) = this.future.as_mut() else { panic!("a request's future was polled after it finished") };
        this.started = true;
        let entered = this.observation.enter();
        let output = ready!(future.as_mut().poll(cx));
        drop(entered);
        this.future = None;
        this.observation.finish(Ending::Answered(&output));
        Poll::Ready(output)
    }
}

impl<F: Future<Output = Response> + Send + 'static> Drop for Graceful<F> {
    fn drop(&mut self) {
        let Some(future) = self.future.take() else { return };
        if !self.started || self.grace.is_zero() {
            return;
        }
        // Outside a runtime (or while one shuts down) there is nowhere to
        // finish: the handler is dropped, which still cancels its token.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let grace = self.grace;
        let span = self.observation.span();
        let finish = async move {
            if tokio::time::timeout(grace, future).await.is_err() {
                tracing::debug!(grace_ms = grace.as_millis(), "a cancelled handler outlived its grace period");
            }
        };
        runtime.spawn(ABANDONED.scope(Cell::new(true), finish.instrument(span)));
    }
}

pin_project_lite::pin_project! {
    /// A handler's future that hears that its request was given up on: its
    /// context's token is cancelled when the request is
    /// [abandoned](ABANDONED), and when it is dropped unfinished. One that
    /// finished (even by panicking or by stopping to ask for input) was
    /// not given up on.
    pub(super) struct Handled<F> {
        #[pin]
        future: F,
        context: Option<RequestContext>,
    }

    impl<F> PinnedDrop for Handled<F> {
        fn drop(this: Pin<&mut Self>) {
            if let Some(context) = this.project().context.take() {
                context.cancel_abandoned();
            }
        }
    }
}

impl<F> Handled<F> {
    pub(super) fn new(future: F, context: RequestContext) -> Self {
        Handled { future, context: Some(context) }
    }
}

impl<F: Future> Future for Handled<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        if let Some(context) = this.context.as_ref()
            && ABANDONED.try_with(|mark| mark.replace(false)).unwrap_or(false)
        {
            context.cancel_abandoned();
        }
        let output = ready!(this.future.poll(cx));
        *this.context = None;
        Poll::Ready(output)
    }
}
