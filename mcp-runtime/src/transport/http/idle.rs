//! Closing connections that wait too long for their next request.
//!
//! hyper's header-read timeout would do it, but it arms a fresh timer for
//! every request of a keep-alive connection (an allocation, a clock read,
//! a timer-wheel insertion and removal each time). Here a connection has
//! one timer, re-armed only when it fires: a request just notes when it
//! starts and when its response ends, and the timer, when it fires, checks
//! whether the connection has been waiting for the whole limit.
//!
//! "Waiting" runs from the accept, or from the end of the previous
//! response, to the moment a request head is complete, so it covers idle
//! keep-alive connections and heads that trickle in. A request in progress
//! (its body, handler and response, streamed or not) is never cut by it:
//! the body, request and write timeouts bound those.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

use super::service::ResponseFuture;
use crate::transport::http::body::McpBody;

/// What one connection's requests report to its timer.
///
/// Every access happens in the connection's own task (hyper calls the
/// service, polls the response and drops it there), so relaxed atomics
/// suffice; they are atomics only because the connection future must be
/// `Send`.
#[derive(Debug)]
pub(crate) struct Activity {
    accepted: Instant,
    in_progress: AtomicUsize,
    /// When the last response ended, in nanoseconds since `accepted`.
    idle_since: AtomicU64,
}

impl Activity {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Activity { accepted: Instant::now(), in_progress: AtomicUsize::new(0), idle_since: AtomicU64::new(0) })
    }

    /// Marks a request as started; it ends when the returned guard drops.
    pub(crate) fn begin(self: &Arc<Self>) -> InProgress {
        self.in_progress.fetch_add(1, Ordering::Relaxed);
        InProgress(Arc::clone(self))
    }

    /// When the connection started waiting, or `None` while a request is in
    /// progress.
    fn waiting_since(&self) -> Option<Instant> {
        if self.in_progress.load(Ordering::Relaxed) > 0 {
            return None;
        }
        Some(self.accepted + Duration::from_nanos(self.idle_since.load(Ordering::Relaxed)))
    }
}

/// A request in progress, from its complete head to the end of its response.
#[derive(Debug)]
pub(crate) struct InProgress(Arc<Activity>);

impl Drop for InProgress {
    fn drop(&mut self) {
        let activity = &self.0;
        let since = u64::try_from(activity.accepted.elapsed().as_nanos()).unwrap_or(u64::MAX);
        activity.idle_since.store(since, Ordering::Relaxed);
        activity.in_progress.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The service's response future, holding the request's [`InProgress`]
/// until it hands it to the body.
pub(crate) struct TrackedFuture {
    inner: ResponseFuture,
    in_progress: Option<InProgress>,
}

impl TrackedFuture {
    pub(crate) fn new(inner: ResponseFuture, in_progress: InProgress) -> Self {
        TrackedFuture { inner, in_progress: Some(in_progress) }
    }
}

impl Future for TrackedFuture {
    type Output = Result<http::Response<TrackedBody>, std::convert::Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        Pin::new(&mut this.inner).poll(cx).map(|result| {
            result.map(|response| response.map(|body| TrackedBody { body, _in_progress: this.in_progress.take() }))
        })
    }
}

/// A response body that ends its request when dropped: once written, or
/// when the connection goes away.
#[derive(Debug)]
pub(crate) struct TrackedBody {
    body: McpBody,
    _in_progress: Option<InProgress>,
}

impl Body for TrackedBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

pin_project_lite::pin_project! {
    /// A connection future that ends (`None`) once the connection has
    /// waited `limit` for a request.
    pub(crate) struct IdleLimited<C> {
        #[pin]
        connection: C,
        #[pin]
        timer: Sleep,
        activity: Arc<Activity>,
        limit: Duration,
        // The timer was polled since it was last set, so it will wake us.
        armed: bool,
    }
}

impl<C> IdleLimited<C> {
    pub(crate) fn new(connection: C, activity: Arc<Activity>, limit: Duration) -> Self {
        let timer = tokio::time::sleep_until(activity.accepted + limit);
        IdleLimited { connection, timer, activity, limit, armed: false }
    }
}

impl<C: Future> Future for IdleLimited<C> {
    type Output = Option<C::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        if let Poll::Ready(output) = this.connection.poll(cx) {
            return Poll::Ready(Some(output));
        }
        loop {
            // Reading the timer's state is cheaper than polling it, which
            // is only needed to register it and once it has fired.
            if *this.armed && !this.timer.is_elapsed() {
                return Poll::Pending;
            }
            if this.timer.as_mut().poll(cx).is_pending() {
                *this.armed = true;
                return Poll::Pending;
            }
            let now = Instant::now();
            let expires = match this.activity.waiting_since() {
                Some(since) => since + *this.limit,
                None => now + *this.limit,
            };
            if expires <= now {
                return Poll::Ready(None);
            }
            this.timer.as_mut().reset(expires);
            *this.armed = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(10);

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_never_sends_a_request_ends_after_the_limit() {
        let start = Instant::now();
        let ended = IdleLimited::new(std::future::pending::<()>(), Activity::new(), LIMIT).await;
        assert!(ended.is_none());
        assert_eq!(start.elapsed(), LIMIT);
    }

    #[tokio::test(start_paused = true)]
    async fn requests_in_progress_hold_the_connection_and_the_wait_counts_from_their_end() {
        let activity = Activity::new();
        let start = Instant::now();
        let request = activity.begin();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            // Three limits of work, then the response ends.
            tokio::time::sleep(LIMIT * 3).await;
            drop(request);
            let _ = tx.send(());
        });
        let connection = async move {
            let _ = rx.await;
            std::future::pending::<()>().await;
        };
        let ended = IdleLimited::new(connection, Arc::clone(&activity), LIMIT).await;
        assert!(ended.is_none());
        assert_eq!(start.elapsed(), LIMIT * 4, "closed one limit after the response ended");
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_finishes_first_gives_its_output() {
        let ended = IdleLimited::new(async { 7 }, Activity::new(), LIMIT).await;
        assert_eq!(ended, Some(7));
    }
}
