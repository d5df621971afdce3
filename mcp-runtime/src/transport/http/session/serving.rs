//! A session's request run in the task of the connection that carried it,
//! as far as it goes without waiting, and in a task of its own only when
//! it must wait: most requests are answered at once, and a task, a channel
//! and an event stream per request cost more than the request itself.
//!
//! A request that waits keeps its connection's task for a moment, the
//! grace ([`HttpConfig::session_json_grace`]): an event stream, and the
//! task it needs, cost more than a short wait, and a client that sees no
//! head meanwhile sees no difference. One that ends within it having sent
//! nothing first (a tool reading a database, calling an API) is answered as
//! JSON too; one that sends something, or is still going, gets its event
//! stream then.
//!
//! [`HttpConfig::session_json_grace`]: crate::transport::http::HttpConfig::session_json_grace
//!
//! A 2025-era client cancels with `notifications/cancelled`, never by going
//! away, so a request whose connection ends before its answer finishes on
//! its own ([`FinishesDetached`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::stream::{Pushed, Stream};
use crate::session::delivery::Resumable;
use crate::session::destination::{Closed, Deliver};
use crate::sync::lock;

/// A session's request being served: its answer, or `None` when the
/// client cancelled it.
pub(super) type Serving = Pin<Box<dyn Future<Output = Option<String>> + Send>>;

/// Polls `serving` once, in the calling task.
pub(super) async fn poll_once(serving: &mut Serving) -> Poll<Option<String>> {
    std::future::poll_fn(|cx| Poll::Ready(serving.as_mut().poll(cx))).await
}

/// Where a request answered on its event stream stands when the stream
/// opens.
pub(super) enum Progress {
    /// Ended, but sent something first or was cancelled: what it has goes
    /// on its stream (a request is answered with JSON or a stream, never
    /// with an empty 202).
    Ended(Option<String>),
    /// Sent something, or still going after the grace.
    Going(Serving),
}

/// Serves `serving` in the calling task until it ends, sends something
/// through `stream` or `grace` passes: its answer, when it ended having
/// sent nothing (to be answered as JSON), else where it stands. Dropped
/// meanwhile (the connection went away), it finishes on its own.
pub(super) async fn within_grace(
    serving: Serving,
    stream: &RequestStream,
    grace: Duration,
) -> Result<String, Progress> {
    let mut held = FinishesDetached::new(serving);
    let answer = tokio::select! {
        biased;
        answer = &mut held => Some(answer),
        () = stream.touched.notified() => None,
        () = tokio::time::sleep(grace) => None,
    };
    match (answer, held.into_inner()) {
        (Some(Some(answer)), _) if stream.untouched() => Ok(answer),
        (Some(answer), _) => Err(Progress::Ended(answer)),
        (None, Some(serving)) => Err(Progress::Going(serving)),
        // Not reached: a request not ended is still held.
        (None, None) => Err(Progress::Ended(None)),
    }
}

/// A request served in the connection's task that, dropped before its end
/// (the connection went away), finishes in a task of its own.
pub(super) struct FinishesDetached(Option<Serving>);

impl FinishesDetached {
    pub(super) fn new(serving: Serving) -> Self {
        FinishesDetached(Some(serving))
    }

    /// The request, not ended yet, to go on elsewhere; `None` once ended.
    fn into_inner(mut self) -> Option<Serving> {
        self.0.take()
    }
}

impl Future for FinishesDetached {
    type Output = Option<String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<String>> {
        let Some(serving) = self.0.as_mut() else { return Poll::Ready(None) };
        let answer = std::task::ready!(serving.as_mut().poll(cx));
        self.0 = None;
        Poll::Ready(answer)
    }
}

impl Drop for FinishesDetached {
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

/// The event stream of one request, which may not be open yet: what the
/// request sends before it opens is held and goes first once it does; a
/// handler that ends its stream's connection before there is one (so that
/// its client comes back for the rest) has it ended as soon as it opens.
/// Messages are written onto the stream by whoever sends them: no channel,
/// and no task to read one, for the many requests answered at once.
#[derive(Default)]
pub(super) struct RequestStream {
    state: Mutex<State>,
    /// Told when the request first sends something or asks for its
    /// connection's end, while its answer's head is held back.
    touched: Notify,
}

#[derive(Default)]
enum State {
    /// Not open yet.
    #[default]
    Waiting,
    /// Not open yet, with messages held or a connection's end asked for.
    Held { messages: Vec<String>, close_asked: bool },
    /// Open: messages go straight onto it. A client too far behind on a
    /// stream that cannot be resumed has the request cancelled, as its
    /// answer could not reach it any more.
    Open { stream: Arc<Stream>, abandoned: Option<CancellationToken> },
    /// Answered: nothing more goes out.
    Ended,
}

impl RequestStream {
    /// Whether nothing was sent and no end of connection asked for yet: a
    /// request answered now can be answered with plain JSON.
    pub(super) fn untouched(&self) -> bool {
        matches!(*lock(&self.state), State::Waiting)
    }

    /// Opens it onto `stream`, what was held first (and the connection
    /// ended at once if that was asked); `abandoned` is cancelled should
    /// the client fall too far behind.
    pub(super) fn open(&self, stream: &Arc<Stream>, abandoned: Option<CancellationToken>) {
        let mut state = lock(&self.state);
        if let State::Held { messages, close_asked } = std::mem::take(&mut *state) {
            for message in messages {
                push(stream, &message, abandoned.as_ref());
            }
            if close_asked {
                stream.close_connection();
            }
        }
        *state = State::Open { stream: Arc::clone(stream), abandoned };
    }

    /// Sends the answer (none: the client cancelled the request) and ends
    /// the stream; what the request sends afterwards is refused.
    pub(super) fn end(&self, answer: Option<String>) {
        if let State::Open { stream, .. } = std::mem::replace(&mut *lock(&self.state), State::Ended) {
            if let Some(answer) = answer {
                stream.push(&answer);
            }
            stream.finish();
        }
    }
}

/// Pushes one message, cancelling `abandoned` when the client is cut off.
fn push(stream: &Stream, message: &str, abandoned: Option<&CancellationToken>) {
    if stream.push(message) == Pushed::Cut
        && let Some(cancel) = abandoned
    {
        cancel.cancel();
    }
}

impl Deliver for RequestStream {
    fn deliver(&self, message: String) -> Result<(), Closed> {
        let mut state = lock(&self.state);
        match &mut *state {
            State::Waiting => {
                *state = State::Held { messages: vec![message], close_asked: false };
                self.touched.notify_one();
            }
            State::Held { messages, .. } => messages.push(message),
            State::Open { stream, abandoned } => push(stream, &message, abandoned.as_ref()),
            State::Ended => return Err(Closed),
        }
        Ok(())
    }
}

impl Resumable for RequestStream {
    fn close_connection(&self) -> bool {
        let mut state = lock(&self.state);
        match &mut *state {
            State::Waiting => {
                *state = State::Held { messages: Vec::new(), close_asked: true };
                self.touched.notify_one();
            }
            State::Held { close_asked, .. } => *close_asked = true,
            State::Open { stream, .. } => return stream.close_connection(),
            State::Ended => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    use crate::transport::http::session::stream::Streams;

    fn drain(rx: &mut crate::transport::http::session::live::LiveReceiver) -> Vec<String> {
        std::iter::from_fn(|| rx.try_recv()).map(|event| String::from_utf8_lossy(&event).into_owned()).collect()
    }

    #[test]
    fn what_a_request_sends_before_its_stream_opens_goes_first_and_nothing_after_its_answer() {
        let request = RequestStream::default();
        assert!(request.untouched());
        request.deliver("1".to_owned()).expect("held");
        request.deliver("2".to_owned()).expect("held");
        assert!(!request.untouched(), "a request that sent something is answered on a stream");
        let streams = Streams::new(false, None, usize::MAX);
        let stream = streams.open();
        let mut rx = stream.connect();
        request.open(&stream, None);
        request.deliver("3".to_owned()).expect("sent");
        request.end(Some("answer".to_owned()));
        assert!(request.deliver("late".to_owned()).is_err(), "refused after the answer");
        assert_eq!(drain(&mut rx), ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n", "data: answer\n\n"]);
        assert!(rx.try_recv().is_none(), "the stream ended with the answer");
    }

    #[test]
    fn a_connection_asked_to_end_before_the_stream_opens_ends_when_it_does() {
        let request = RequestStream::default();
        assert!(request.close_connection(), "asked for, to be done on opening");
        assert!(!request.untouched());
        let streams = Streams::new(true, None, usize::MAX);
        let stream = streams.open();
        let mut rx = stream.connect();
        request.open(&stream, None);
        request.deliver("{}".to_owned()).expect("kept for the client's return");
        let seen = drain(&mut rx);
        assert!(seen.last().is_some_and(|event| event.starts_with("retry:")), "{seen:?}");
        assert!(!seen.iter().any(|event| event.contains("data: {}")), "nothing after the end: {seen:?}");
    }

    #[test]
    fn a_client_too_far_behind_on_a_stream_that_cannot_be_resumed_has_its_request_cancelled() {
        let request = RequestStream::default();
        let streams = Streams::new(false, None, 4096);
        let stream = streams.open();
        let _stalled = stream.connect();
        let abandoned = CancellationToken::new();
        request.open(&stream, Some(abandoned.clone()));
        for n in 0..1000 {
            request.deliver(format!(r#"{{"n":{n}}}"#)).expect("sent");
        }
        assert!(abandoned.is_cancelled());
    }

    #[tokio::test]
    async fn a_request_whose_connection_went_away_still_ends() {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let serving: Serving = Box::pin(async move {
            tokio::task::yield_now().await;
            let _ = tx.send(());
            Some("answer".to_owned())
        });
        let mut running = FinishesDetached::new(serving);
        let pending = std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut running).poll(cx).is_pending())).await;
        assert!(pending, "it waits once");
        drop(running);
        tokio::time::timeout(Duration::from_secs(10), rx).await.expect("finished on its own").expect("sent");
    }
}
