//! A session's request run in the task of the connection that carried it,
//! as far as it goes without waiting, and in a task of its own only when
//! it must wait: most requests are answered at once, and a task, a channel
//! and an event stream per request cost more than the request itself.
//!
//! A 2025-era client cancels with `notifications/cancelled`, never by going
//! away, so a request whose connection ends before its answer finishes on
//! its own ([`RunsToTheEnd`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use super::stream::Stream;

/// A session's request being served: its answer, or `None` when the
/// client cancelled it.
pub(super) type Serving = Pin<Box<dyn Future<Output = Option<String>> + Send>>;

/// Polls `serving` once, in the calling task.
pub(super) async fn poll_once(serving: &mut Serving) -> Poll<Option<String>> {
    std::future::poll_fn(|cx| Poll::Ready(serving.as_mut().poll(cx))).await
}

/// A request served in the connection's task that, dropped before its end
/// (the connection went away), finishes in a task of its own.
pub(super) struct RunsToTheEnd(Option<Serving>);

impl RunsToTheEnd {
    pub(super) fn new(serving: Serving) -> Self {
        RunsToTheEnd(Some(serving))
    }
}

impl Future for RunsToTheEnd {
    type Output = Option<String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<String>> {
        let Some(serving) = self.0.as_mut() else { return Poll::Ready(None) };
        let answer = std::task::ready!(serving.as_mut().poll(cx));
        self.0 = None;
        Poll::Ready(answer)
    }
}

impl Drop for RunsToTheEnd {
    fn drop(&mut self) {
        if let Some(serving) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                // Nobody is left to read the answer.
                let _ = serving.await;
            });
        }
    }
}

/// The event stream of a request that may not be open yet: a handler that
/// ends its stream's connection before there is one (so that its client
/// comes back for the rest) has it ended as soon as it opens.
#[derive(Default)]
pub(super) struct LateStream {
    stream: OnceLock<Arc<Stream>>,
    close_asked: AtomicBool,
}

impl LateStream {
    /// Ends the connection the stream is read on, now or once it opens.
    pub(super) fn close_connection(&self) -> bool {
        match self.stream.get() {
            Some(stream) => stream.close_connection(),
            None => {
                self.close_asked.store(true, Ordering::Release);
                true
            }
        }
    }

    /// Whether a handler asked for the connection to end before it opened.
    pub(super) fn close_asked(&self) -> bool {
        self.close_asked.load(Ordering::Acquire)
    }

    /// The stream, now open (and connected): ended at once if that was asked.
    pub(super) fn opened(&self, stream: &Arc<Stream>) {
        let _ = self.stream.set(Arc::clone(stream));
        if self.close_asked() {
            stream.close_connection();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_request_whose_connection_went_away_still_ends() {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let serving: Serving = Box::pin(async move {
            tokio::task::yield_now().await;
            let _ = tx.send(());
            Some("answer".to_owned())
        });
        let mut running = RunsToTheEnd::new(serving);
        let pending = std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut running).poll(cx).is_pending())).await;
        assert!(pending, "it waits once");
        drop(running);
        tokio::time::timeout(Duration::from_secs(10), rx).await.expect("finished on its own").expect("sent");
    }
}
