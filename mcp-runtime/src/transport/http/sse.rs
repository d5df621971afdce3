//! Server-sent events: the framing of a streamed response, and the stream
//! that drives a request's handler while forwarding its notifications.
//!
//! The handler runs inside the response body: when the client goes away,
//! the body is dropped, which fires the handler's cancellation token and
//! leaves it the cancellation grace to end before it is dropped. Nothing is sent after the response: the channel is
//! closed the moment the handler returns.

use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use tokio::sync::mpsc;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::DropGuard;

use crate::context::NotificationSink;
use crate::dispatch::Response;
use crate::protocol::Notification;

/// A request's handler, bounded by its timeout, as the stream polls it.
pub(crate) type RunFuture = Pin<Box<dyn Future<Output = Response> + Send>>;

/// A comment line, ignored by clients, that keeps a quiet stream from being
/// cut by proxies with idle timeouts.
pub(crate) const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

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
    /// When to send a keep-alive comment if nothing else was sent.
    keep_alive: Option<(Duration, Pin<Box<Sleep>>)>,
}

impl EventStream {
    pub(crate) fn new(
        run: RunFuture,
        notifications: mpsc::UnboundedReceiver<Bytes>,
        guard: DropGuard,
        keep_alive: Option<Duration>,
    ) -> Self {
        EventStream {
            run: Some(run),
            notifications,
            ready: VecDeque::new(),
            guard: Some(guard),
            keep_alive: keep_alive.map(|period| (period, Box::pin(tokio::time::sleep(period)))),
        }
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
        let next = self.poll_next(cx);
        if let (Poll::Ready(Some(_)), Some((period, sleep))) = (&next, &mut self.keep_alive) {
            sleep.as_mut().reset(Instant::now() + *period);
        }
        next
    }

    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
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
                Poll::Pending => {
                    let quiet_too_long =
                        self.keep_alive.as_mut().is_some_and(|(_, sleep)| sleep.as_mut().poll(cx).is_ready());
                    return if quiet_too_long {
                        Poll::Ready(Some(Bytes::from_static(KEEP_ALIVE)))
                    } else {
                        Poll::Pending
                    };
                }
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
    use std::sync::{Arc, Mutex};

    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::dispatch::Stage;
    use crate::protocol::{ErrorObject, RequestId};

    fn note(n: u32) -> Notification {
        Notification::new("notifications/progress", serde_json::json!({"progressToken": 1, "progress": n}))
    }

    async fn next(stream: &mut EventStream) -> Option<String> {
        poll_fn(|cx| stream.poll_event(cx)).await.map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    #[tokio::test]
    async fn notifications_come_first_and_nothing_follows_the_response() {
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = Arc::new(ChannelSink::new(tx));
        let kept: Arc<Mutex<Option<Arc<ChannelSink>>>> = Arc::default();
        let (handler_sink, keep) = (Arc::clone(&sink), Arc::clone(&kept));
        let run: RunFuture = Box::pin(async move {
            handler_sink.send(note(1));
            tokio::task::yield_now().await;
            handler_sink.send(note(2));
            // Something outlives the handler and tries to send later.
            *keep.lock().unwrap_or_else(|e| e.into_inner()) = Some(handler_sink);
            Response::error(Some(RequestId::from(9)), ErrorObject::internal("done"), Stage::Handler)
        });
        drop(sink);
        let token = CancellationToken::new();
        let mut stream = EventStream::new(run, rx, token.clone().drop_guard(), None);
        assert!(matches!(stream.start().await, Start::Notified));
        assert!(next(&mut stream).await.is_some_and(|e| e.contains("\"progress\":1")));
        assert!(next(&mut stream).await.is_some_and(|e| e.contains("\"progress\":2")));
        let last = next(&mut stream).await.expect("the response");
        assert!(last.starts_with("data: {") && last.contains("\"id\":9"), "{last}");
        if let Some(late) = kept.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            late.send(note(3));
        }
        assert_eq!(next(&mut stream).await, None);
        assert!(!token.is_cancelled(), "a finished request is not cancelled");
    }

    #[tokio::test(start_paused = true)]
    async fn a_quiet_stream_sends_keep_alive_comments() {
        let (tx, rx) = mpsc::unbounded_channel();
        let run: RunFuture = Box::pin(async {
            tokio::time::sleep(Duration::from_secs(25)).await;
            Response::error(Some(RequestId::from(1)), ErrorObject::internal("late"), Stage::Handler)
        });
        let mut stream =
            EventStream::new(run, rx, CancellationToken::new().drop_guard(), Some(Duration::from_secs(10)));
        ChannelSink::new(tx).send(note(1));
        assert!(next(&mut stream).await.is_some_and(|e| e.starts_with("data: ")));
        // 10 s of silence, then 10 more, then the response at 25 s.
        assert_eq!(next(&mut stream).await.as_deref(), Some(": keep-alive\n\n"));
        assert_eq!(next(&mut stream).await.as_deref(), Some(": keep-alive\n\n"));
        assert!(next(&mut stream).await.is_some_and(|e| e.contains("late")));
        assert_eq!(next(&mut stream).await, None);
    }

    #[tokio::test]
    async fn dropping_the_stream_cancels_the_request() {
        let (_tx, rx) = mpsc::unbounded_channel();
        let token = CancellationToken::new();
        let run: RunFuture = Box::pin(std::future::pending());
        let stream = EventStream::new(run, rx, token.clone().drop_guard(), None);
        drop(stream);
        assert!(token.is_cancelled());
    }

    #[test]
    fn frames_events() {
        assert_eq!(event(r#"{"a":1}"#), Bytes::from_static(b"data: {\"a\":1}\n\n"));
        assert_eq!(event("one\r\ntwo"), Bytes::from_static(b"data: one\ndata: two\n\n"));
    }
}
