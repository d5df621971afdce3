//! Server-sent events: the framing of a streamed response, and the stream
//! that drives a request's handler while forwarding its notifications.
//!
//! The handler runs inside the response body: when the client goes away,
//! the body is dropped, which drops the handler's future and fires its
//! cancellation token. Nothing is sent after the response: the channel is
//! closed the moment the handler returns.

use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{BufMut, Bytes, BytesMut};
use tokio::sync::mpsc;
use tokio_util::sync::DropGuard;

use crate::context::NotificationSink;
use crate::dispatch::Response;
use crate::protocol::Notification;

/// A request's handler, bounded by its timeout, as the stream polls it.
pub(crate) type RunFuture = Pin<Box<dyn Future<Output = Response> + Send>>;

/// One event: `data: <json>\n\n`, each line of the text on its own `data:`
/// line (compact JSON has none, but the framing must never depend on it).
pub(crate) fn event(json: &str) -> Bytes {
    let mut out = BytesMut::with_capacity(json.len() + 8);
    for line in json.split('\n') {
        out.put_slice(b"data: ");
        out.put_slice(line.strip_suffix('\r').unwrap_or(line).as_bytes());
        out.put_u8(b'\n');
    }
    out.put_u8(b'\n');
    out.freeze()
}

/// Sends a request's notifications, already framed, to its stream.
pub(crate) struct ChannelSink(mpsc::UnboundedSender<Bytes>);

impl ChannelSink {
    pub(crate) fn new(tx: mpsc::UnboundedSender<Bytes>) -> Self {
        ChannelSink(tx)
    }
}

impl NotificationSink for ChannelSink {
    fn send(&self, notification: Notification) {
        // Fails only once the response is out: then nothing may follow it.
        if let Ok(json) = serde_json::to_string(&notification) {
            let _ = self.0.send(event(&json));
        }
    }
}

/// What happened first: a notification (so the answer is a stream) or the
/// response itself.
pub(crate) enum Start {
    Notified,
    Finished(Response),
}

/// The events of one request: its notifications as they come, then its
/// response, then the end.
pub(crate) struct EventStream {
    run: Option<RunFuture>,
    notifications: mpsc::UnboundedReceiver<Bytes>,
    ready: VecDeque<Bytes>,
    /// Cancels the request if the stream is dropped before the response.
    guard: Option<DropGuard>,
}

impl EventStream {
    pub(crate) fn new(run: RunFuture, notifications: mpsc::UnboundedReceiver<Bytes>, guard: DropGuard) -> Self {
        EventStream { run: Some(run), notifications, ready: VecDeque::new(), guard: Some(guard) }
    }

    /// Runs the handler until it sends a notification or finishes. A
    /// response whose notifications are already queued counts as
    /// [`Start::Notified`] and is queued after them.
    pub(crate) async fn start(&mut self) -> Start {
        poll_fn(|cx| {
            if !self.ready.is_empty() {
                return Poll::Ready(Start::Notified);
            }
            if let Poll::Ready(Some(event)) = self.notifications.poll_recv(cx) {
                self.ready.push_back(event);
                return Poll::Ready(Start::Notified);
            }
            match self.poll_run(cx) {
                Poll::Ready(response) if self.ready.is_empty() => Poll::Ready(Start::Finished(response)),
                Poll::Ready(response) => {
                    self.ready.push_back(event(&response.to_json()));
                    Poll::Ready(Start::Notified)
                }
                Poll::Pending => Poll::Pending,
            }
        })
        .await
    }

    /// Queues the response after whatever is queued (the handler has finished).
    pub(crate) fn finish_with(&mut self, response: &Response) {
        self.ready.push_back(event(&response.to_json()));
    }

    /// The next event, running the handler as far as needed.
    pub(crate) fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Poll::Ready(Some(event));
            }
            if self.run.is_none() {
                return Poll::Ready(None);
            }
            if let Poll::Ready(Some(event)) = self.notifications.poll_recv(cx) {
                return Poll::Ready(Some(event));
            }
            match self.poll_run(cx) {
                Poll::Ready(response) => self.ready.push_back(event(&response.to_json())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Polls the handler; when it finishes, takes the notifications it sent
    /// before finishing and closes the channel to any later ones.
    fn poll_run(&mut self, cx: &mut Context<'_>) -> Poll<Response> {
        let Some(run) = self.run.as_mut() else { return Poll::Pending };
        let response = std::task::ready!(run.as_mut().poll(cx));
        self.run = None;
        if let Some(guard) = self.guard.take() {
            guard.disarm();
        }
        while let Ok(event) = self.notifications.try_recv() {
            self.ready.push_back(event);
        }
        self.notifications.close();
        Poll::Ready(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_events() {
        assert_eq!(event(r#"{"a":1}"#), Bytes::from_static(b"data: {\"a\":1}\n\n"));
        assert_eq!(event("one\r\ntwo"), Bytes::from_static(b"data: one\ndata: two\n\n"));
    }
}
