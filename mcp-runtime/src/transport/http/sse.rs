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
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use tokio::sync::mpsc;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::in_flight::Held;
use crate::dispatch::{Response, Stage};
use crate::handler::context::NotificationSink;
use crate::protocol::{ErrorObject, Notification, RequestId};

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

/// Sends a request's notifications, already framed, to its stream, up to
/// a bound on what waits there unread.
pub(crate) struct ChannelSink {
    tx: mpsc::UnboundedSender<Bytes>,
    backlog: Arc<Backlog>,
}

/// What waits unread on one stream, shared by its sink and its reader.
struct Backlog {
    bytes: AtomicUsize,
    limit: usize,
    /// Set once a notification did not fit: nothing more is taken, and the
    /// stream ends once it has passed on what came before.
    overflowed: AtomicBool,
    /// The request's token, cancelled when it overflows.
    cancel: CancellationToken,
}

impl ChannelSink {
    /// A sink holding at most `limit` unread bytes (one notification larger
    /// than that passes alone), and the stream's end of it. Past the
    /// limit the sink takes nothing more and cancels `cancel`.
    pub(crate) fn bounded(limit: usize, cancel: CancellationToken) -> (Self, Notifications) {
        let (tx, rx) = mpsc::unbounded_channel();
        let backlog =
            Arc::new(Backlog { bytes: AtomicUsize::new(0), limit, overflowed: AtomicBool::new(false), cancel });
        (ChannelSink { tx, backlog: Arc::clone(&backlog) }, Notifications { rx, backlog })
    }
}

impl NotificationSink for ChannelSink {
    fn send(&self, notification: Notification) {
        let backlog = &*self.backlog;
        if backlog.overflowed.load(Ordering::Acquire) {
            return;
        }
        let Ok(json) = serde_json::to_string(&notification) else { return };
        let framed = event(&json);
        let len = framed.len();
        let before = backlog.bytes.fetch_add(len, Ordering::AcqRel);
        if before > 0 && before + len > backlog.limit {
            backlog.bytes.fetch_sub(len, Ordering::AcqRel);
            if !backlog.overflowed.swap(true, Ordering::AcqRel) {
                tracing::warn!(limit = backlog.limit, "a client does not read its event stream; ending it");
                backlog.cancel.cancel();
                // Wakes the reader, which may be waiting on nothing else.
                let _ = self.tx.send(Bytes::new());
            }
            return;
        }
        // Fails only once the response is out: then nothing may follow it.
        if self.tx.send(framed).is_err() {
            backlog.bytes.fetch_sub(len, Ordering::AcqRel);
        }
    }
}

/// The stream's end of a [`ChannelSink`].
pub(crate) struct Notifications {
    rx: mpsc::UnboundedReceiver<Bytes>,
    backlog: Arc<Backlog>,
}

impl Notifications {
    fn taken(&self, event: Bytes) -> Option<Bytes> {
        self.backlog.bytes.fetch_sub(event.len(), Ordering::AcqRel);
        // The empty wake-up of an overflow is no event.
        (!event.is_empty()).then_some(event)
    }

    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        loop {
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(event)) => {
                    if let Some(event) = self.taken(event) {
                        return Poll::Ready(Some(event));
                    }
                }
                other => return other,
            }
        }
    }

    fn try_recv(&mut self) -> Option<Bytes> {
        loop {
            let event = self.rx.try_recv().ok()?;
            if let Some(event) = self.taken(event) {
                return Some(event);
            }
        }
    }

    /// Whether a notification did not fit.
    fn overflowed(&self) -> bool {
        self.backlog.overflowed.load(Ordering::Acquire)
    }

    fn close(&mut self) {
        self.rx.close();
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
    notifications: Notifications,
    ready: VecDeque<Bytes>,
    /// Cancels the request if the stream is dropped before the response.
    guard: Option<DropGuard>,
    /// When to send a keep-alive comment if nothing else was sent.
    keep_alive: Option<(Duration, Pin<Box<Sleep>>)>,
    /// The request's place under the in-flight limit (a listen stream's,
    /// under the listen limits), until its handler ends.
    slot: Option<Held>,
    /// The request cut, and answered with an error, when its client falls
    /// too far behind; `None` for one that answers for itself once
    /// cancelled (a listen stream, with its closing result).
    cut_on_overflow: Option<RequestId>,
}

impl EventStream {
    pub(crate) fn new(
        run: RunFuture,
        notifications: Notifications,
        guard: DropGuard,
        keep_alive: Option<Duration>,
    ) -> Self {
        EventStream {
            run: Some(run),
            notifications,
            ready: VecDeque::new(),
            guard: Some(guard),
            keep_alive: keep_alive.map(|period| (period, Box::pin(tokio::time::sleep(period)))),
            slot: None,
            cut_on_overflow: None,
        }
    }

    /// Holds `slot` until the handler ends.
    pub(crate) fn holding(mut self, slot: Option<Held>) -> Self {
        self.slot = slot;
        self
    }

    /// Past the bound on unread notifications, cuts the request `id` and
    /// ends with an error for it; with `None`, lets the handler answer
    /// once its token is cancelled.
    pub(crate) fn on_overflow(mut self, id: Option<RequestId>) -> Self {
        self.cut_on_overflow = id;
        self
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
            if self.notifications.overflowed()
                && let Some(id) = self.cut_on_overflow.take()
            {
                self.cut(id);
                continue;
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
        self.slot = None;
        if let Some(guard) = self.guard.take() {
            guard.disarm();
        }
        while let Some(event) = self.notifications.try_recv() {
            self.ready.push_back(event);
        }
        self.notifications.close();
        Poll::Ready(response)
    }

    /// Gives up the request whose client fell too far behind: its handler
    /// is dropped (it already saw its token cancelled, and has the
    /// cancellation grace), and its error ends the stream after what came
    /// before.
    fn cut(&mut self, id: RequestId) {
        if self.run.take().is_none() {
            return;
        }
        self.slot = None;
        self.guard = None;
        self.notifications.close();
        let message = format!(
            "The client did not read this request's event stream: more than {} bytes waited unread, so the \
             request was cancelled",
            self.notifications.backlog.limit
        );
        let error = Response::error(Some(id), ErrorObject::internal(message), Stage::Handler);
        self.ready.push_back(event(&error.to_json()));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    fn note(n: u32) -> Notification {
        Notification::new("notifications/progress", serde_json::json!({"progressToken": 1, "progress": n}))
    }

    async fn next(stream: &mut EventStream) -> Option<String> {
        poll_fn(|cx| stream.poll_event(cx)).await.map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    #[tokio::test]
    async fn notifications_come_first_and_nothing_follows_the_response() {
        let token = CancellationToken::new();
        let (sink, rx) = ChannelSink::bounded(1 << 20, token.clone());
        let sink = Arc::new(sink);
        let kept: Arc<Mutex<Option<Arc<ChannelSink>>>> = Arc::default();
        let (handler_sink, keep) = (Arc::clone(&sink), Arc::clone(&kept));
        let run: RunFuture = Box::pin(async move {
            handler_sink.send(note(1));
            tokio::task::yield_now().await;
            handler_sink.send(note(2));
            // Something outlives the handler and tries to send later.
            *crate::sync::lock(&keep) = Some(handler_sink);
            Response::error(Some(RequestId::from(9)), ErrorObject::internal("done"), Stage::Handler)
        });
        drop(sink);
        let mut stream = EventStream::new(run, rx, token.clone().drop_guard(), None);
        assert!(matches!(stream.start().await, Start::Notified));
        assert!(next(&mut stream).await.is_some_and(|e| e.contains("\"progress\":1")));
        assert!(next(&mut stream).await.is_some_and(|e| e.contains("\"progress\":2")));
        let last = next(&mut stream).await.expect("the response");
        assert!(last.starts_with("data: {") && last.contains("\"id\":9"), "{last}");
        if let Some(late) = crate::sync::lock(&kept).as_ref() {
            late.send(note(3));
        }
        assert_eq!(next(&mut stream).await, None);
        assert!(!token.is_cancelled(), "a finished request is not cancelled");
    }

    #[tokio::test(start_paused = true)]
    async fn a_quiet_stream_sends_keep_alive_comments() {
        let (sink, rx) = ChannelSink::bounded(1 << 20, CancellationToken::new());
        let run: RunFuture = Box::pin(async {
            tokio::time::sleep(Duration::from_secs(25)).await;
            Response::error(Some(RequestId::from(1)), ErrorObject::internal("late"), Stage::Handler)
        });
        let mut stream =
            EventStream::new(run, rx, CancellationToken::new().drop_guard(), Some(Duration::from_secs(10)));
        sink.send(note(1));
        assert!(next(&mut stream).await.is_some_and(|e| e.starts_with("data: ")));
        // 10 s of silence, then 10 more, then the response at 25 s.
        assert_eq!(next(&mut stream).await.as_deref(), Some(": keep-alive\n\n"));
        assert_eq!(next(&mut stream).await.as_deref(), Some(": keep-alive\n\n"));
        assert!(next(&mut stream).await.is_some_and(|e| e.contains("late")));
        assert_eq!(next(&mut stream).await, None);
    }

    #[tokio::test]
    async fn dropping_the_stream_cancels_the_request() {
        let token = CancellationToken::new();
        let (_sink, rx) = ChannelSink::bounded(1 << 20, token.clone());
        let run: RunFuture = Box::pin(std::future::pending());
        let stream = EventStream::new(run, rx, token.clone().drop_guard(), None);
        drop(stream);
        assert!(token.is_cancelled());
    }

    /// A handler whose notifications are sent from elsewhere, as fast as
    /// it likes, while nobody reads.
    fn flooded(limit: usize, token: &CancellationToken) -> (Arc<ChannelSink>, EventStream) {
        let (sink, rx) = ChannelSink::bounded(limit, token.clone());
        let sink = Arc::new(sink);
        let run: RunFuture = Box::pin(std::future::pending());
        (sink, EventStream::new(run, rx, token.clone().drop_guard(), None))
    }

    #[tokio::test]
    async fn a_request_whose_client_falls_behind_is_cut_with_an_error_after_what_came_before() {
        let token = CancellationToken::new();
        let (sink, stream) = flooded(4096, &token);
        let mut stream = stream.on_overflow(Some(RequestId::from(5)));
        let one = event(&serde_json::to_string(&note(0)).unwrap_or_default()).len();
        for n in 0..10_000 {
            sink.send(note(n));
        }
        assert!(token.is_cancelled(), "the handler is told");
        let backlog = sink.backlog.bytes.load(Ordering::Acquire);
        assert!(backlog <= 4096, "at most the limit waits: {backlog}");
        let mut delivered = 0;
        let last = loop {
            let next = next(&mut stream).await.expect("an event");
            if next.contains("\"progress\"") {
                delivered += 1;
                continue;
            }
            break next;
        };
        assert_eq!(delivered, 4096 / one, "every notification that fit, in order, then the error");
        assert!(last.contains("\"id\":5") && last.contains("-32603") && last.contains("did not read"), "{last}");
        assert_eq!(next(&mut stream).await, None);
        sink.send(note(1));
        assert_eq!(sink.backlog.bytes.load(Ordering::Acquire), 0, "nothing is taken after the end");
    }

    #[tokio::test]
    async fn a_listen_stream_that_falls_behind_answers_for_itself() {
        let token = CancellationToken::new();
        let (sink, rx) = ChannelSink::bounded(4096, token.clone());
        let watched = token.clone();
        let run: RunFuture = Box::pin(async move {
            watched.cancelled().await;
            Response::error(Some(RequestId::from(8)), ErrorObject::internal("closing"), Stage::Handler)
        });
        let mut stream = EventStream::new(run, rx, token.clone().drop_guard(), None);
        for n in 0..10_000 {
            sink.send(note(n));
        }
        let mut last = String::new();
        while let Some(event) = next(&mut stream).await {
            last = event;
        }
        assert!(last.contains("closing"), "the handler's own ending: {last}");
    }

    #[test]
    fn frames_events() {
        assert_eq!(event(r#"{"a":1}"#), Bytes::from_static(b"data: {\"a\":1}\n\n"));
        assert_eq!(event("one\r\ntwo"), Bytes::from_static(b"data: one\ndata: two\n\n"));
    }
}
