//! Time limits that cost nothing until something has to wait.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Sleep;

pin_project_lite::pin_project! {
    /// `future`, limited to `limit` counted from the first time it waits.
    ///
    /// A request body already in the buffer, or a handler that answers on
    /// its first poll, never reads the clock or touches the timer; anything
    /// that waits gets the whole `limit` from then on.
    pub(crate) struct Deadline<F> {
        #[pin]
        future: F,
        limit: Duration,
        #[pin]
        sleep: Option<Sleep>,
    }
}

/// The limit passed before the future finished.
#[derive(Debug)]
pub(crate) struct Elapsed;

impl<F> Deadline<F> {
    pub(crate) fn new(future: F, limit: Duration) -> Self {
        Deadline { future, limit, sleep: None }
    }
}

impl<F: Future> Future for Deadline<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(Ok(output));
        }
        if this.sleep.is_none() {
            this.sleep.set(Some(tokio::time::sleep(*this.limit)));
        }
        match this.sleep.as_pin_mut().map(|sleep| sleep.poll(cx)) {
            Some(Poll::Ready(())) => Poll::Ready(Err(Elapsed)),
            _ => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_ready_future_passes_and_a_waiting_one_is_cut_after_the_limit() {
        assert_eq!(Deadline::new(async { 7 }, Duration::from_secs(1)).await.ok(), Some(7));
        let slow = tokio::time::sleep(Duration::from_secs(5));
        assert!(Deadline::new(slow, Duration::from_secs(1)).await.is_err());
        let quick = tokio::time::sleep(Duration::from_millis(500));
        assert!(Deadline::new(quick, Duration::from_secs(1)).await.is_ok());
    }
}
