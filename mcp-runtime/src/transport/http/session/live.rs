//! The queue between a 2025-era stream and the connection reading it,
//! bounded so that a client that stops reading cannot make it grow
//! without end.
//!
//! Messages are pushed to a stream by tasks of their own (a request's
//! handler, the server's changes), whatever the connection does with
//! them; what its client has not read waits here. Past the bound the
//! pusher is told, and ends the connection (see `Stream::push`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::sync::mpsc;

/// How much may wait unread on one connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bound {
    pub(crate) bytes: usize,
    /// At most this many events: for a stream that can be resumed, what
    /// waits must also be among the events it keeps, so that a client
    /// cut off for falling behind can be sent all it missed.
    pub(crate) events: usize,
}

#[derive(Debug)]
struct Waiting {
    bytes: AtomicUsize,
    events: AtomicUsize,
}

/// Why an event was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Nothing reads the queue any more.
    Closed,
    /// The reader is too far behind.
    Full,
}

/// The pushing end.
#[derive(Debug)]
pub(crate) struct LiveSender {
    tx: mpsc::UnboundedSender<Bytes>,
    waiting: Arc<Waiting>,
    bound: Bound,
}

/// The reading end, in the connection's body.
#[derive(Debug)]
pub(crate) struct LiveReceiver {
    rx: mpsc::UnboundedReceiver<Bytes>,
    waiting: Arc<Waiting>,
}

/// A queue holding at most `bound` unread (one event larger than the
/// byte bound passes alone).
pub(crate) fn channel(bound: Bound) -> (LiveSender, LiveReceiver) {
    let (tx, rx) = mpsc::unbounded_channel();
    let waiting = Arc::new(Waiting { bytes: AtomicUsize::new(0), events: AtomicUsize::new(0) });
    (LiveSender { tx, waiting: Arc::clone(&waiting), bound }, LiveReceiver { rx, waiting })
}

impl LiveSender {
    /// Queues `event`, unless the reader is gone or too far behind.
    pub(crate) fn send(&self, event: Bytes) -> Result<(), Refused> {
        let (bytes, events) = (self.waiting.bytes.load(Ordering::Acquire), self.waiting.events.load(Ordering::Acquire));
        if events > 0 && (bytes + event.len() > self.bound.bytes || events + 1 > self.bound.events) {
            return Err(Refused::Full);
        }
        self.send_anyway(event)
    }

    /// Queues `event` whatever waits already: the few last words before
    /// the connection ends (a `retry:`, an error).
    pub(crate) fn send_anyway(&self, event: Bytes) -> Result<(), Refused> {
        let len = event.len();
        self.waiting.bytes.fetch_add(len, Ordering::AcqRel);
        self.waiting.events.fetch_add(1, Ordering::AcqRel);
        if self.tx.send(event).is_err() {
            self.waiting.bytes.fetch_sub(len, Ordering::AcqRel);
            self.waiting.events.fetch_sub(1, Ordering::AcqRel);
            return Err(Refused::Closed);
        }
        Ok(())
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

impl LiveReceiver {
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let next = self.rx.poll_recv(cx);
        if let Poll::Ready(Some(event)) = &next {
            self.waiting.bytes.fetch_sub(event.len(), Ordering::AcqRel);
            self.waiting.events.fetch_sub(1, Ordering::AcqRel);
        }
        next
    }

    /// The next event, waiting for it; `None` once nothing can send.
    pub(crate) async fn recv(&mut self) -> Option<Bytes> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// The next event already queued, if any.
    #[cfg(test)]
    pub(crate) fn try_recv(&mut self) -> Option<Bytes> {
        let event = self.rx.try_recv().ok()?;
        self.waiting.bytes.fetch_sub(event.len(), Ordering::AcqRel);
        self.waiting.events.fetch_sub(1, Ordering::AcqRel);
        Some(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_too_far_behind_is_refused_and_reading_makes_room() {
        let (tx, mut rx) = channel(Bound { bytes: 10, events: 3 });
        assert_eq!(tx.send(Bytes::from_static(b"a very long event")), Ok(()), "alone, it passes");
        assert_eq!(tx.send(Bytes::from_static(b"x")), Err(Refused::Full));
        assert!(rx.try_recv().is_some());
        for _ in 0..3 {
            assert_eq!(tx.send(Bytes::from_static(b"x")), Ok(()));
        }
        assert_eq!(tx.send(Bytes::from_static(b"x")), Err(Refused::Full), "at most three events");
        assert_eq!(tx.send_anyway(Bytes::from_static(b"last")), Ok(()));
        drop(rx);
        assert_eq!(tx.send_anyway(Bytes::from_static(b"x")), Err(Refused::Closed));
    }
}
