//! Request bodies in (bounded in size and time) and response bodies out.

use std::convert::Infallible;
use std::future::poll_fn;
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};

use super::deadline::Deadline;
use super::sse::EventStream;

/// An event stream whose events come from elsewhere as they are made: the
/// streams of a 2025-era session, which outlive the request that opened
/// them. Polled for its next event, already framed; `None` ends it.
pub(crate) trait EventSource: Send {
    /// The next event, once there is one.
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>>;
}

/// The body of every response of the HTTP transport: empty, one JSON
/// document, or an event stream (that of a stateless request ends after
/// its response; that of a 2025-era session when the stream or its
/// connection ends).
pub struct McpBody {
    kind: Kind,
}

enum Kind {
    Empty,
    Full(Option<Bytes>),
    Stream(Box<EventStream>),
    Live(Box<dyn EventSource>),
}

impl McpBody {
    pub(crate) fn empty() -> Self {
        McpBody { kind: Kind::Empty }
    }

    pub(crate) fn full(bytes: impl Into<Bytes>) -> Self {
        McpBody { kind: Kind::Full(Some(bytes.into())) }
    }

    pub(crate) fn stream(stream: EventStream) -> Self {
        McpBody { kind: Kind::Stream(Box::new(stream)) }
    }

    #[cfg_attr(not(feature = "session"), expect(dead_code, reason = "only 2025-era sessions stream live"))]
    pub(crate) fn live(stream: impl EventSource + 'static) -> Self {
        McpBody { kind: Kind::Live(Box::new(stream)) }
    }
}

impl std::fmt::Debug for McpBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.kind {
            Kind::Empty => "empty",
            Kind::Full(_) => "full",
            Kind::Stream(_) | Kind::Live(_) => "event stream",
        };
        f.debug_struct("McpBody").field("kind", &kind).finish()
    }
}

impl Body for McpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            Kind::Empty => Poll::Ready(None),
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream(stream) => stream.poll_event(cx).map(|event| event.map(|b| Ok(Frame::data(b)))),
            Kind::Live(stream) => stream.poll_event(cx).map(|event| event.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Empty | Kind::Full(None) => true,
            Kind::Full(Some(_)) | Kind::Stream(_) | Kind::Live(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Empty | Kind::Full(None) => SizeHint::with_exact(0),
            Kind::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            Kind::Stream(_) | Kind::Live(_) => SizeHint::default(),
        }
    }
}

/// The error type tower bodies use.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why a request body could not be read.
#[derive(Debug)]
pub(crate) enum BodyError {
    TooLarge,
    TimedOut,
    Read(String),
}

/// Reads a whole body, failing as soon as it exceeds `limit` bytes or takes
/// longer than `timeout`.
pub(crate) async fn read_body<B>(body: B, limit: usize, timeout: Option<Duration>) -> Result<Vec<u8>, BodyError>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    if body.size_hint().lower() > limit as u64 {
        return Err(BodyError::TooLarge);
    }
    let read = collect(body, limit);
    match timeout {
        None => read.await,
        Some(t) => Deadline::new(read, t).await.unwrap_or(Err(BodyError::TimedOut)),
    }
}

/// Reads and drops what is left of a body that a refusal does not use, so
/// that its HTTP/1.1 connection can carry the next request (a connection
/// is kept only once a request's body is all read): at most `limit` bytes,
/// within `timeout`. False when the body is longer, slower or broken: the
/// connection must close then, and its response say so.
pub(crate) async fn discard<B>(body: B, limit: usize, timeout: Duration) -> bool
where
    B: Body,
    B::Error: Into<BoxError>,
{
    if body.is_end_stream() {
        return true;
    }
    if body.size_hint().lower() > limit as u64 {
        return false;
    }
    let drain = async {
        let mut body = pin!(body);
        let mut seen = 0usize;
        while let Some(frame) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
            let Ok(frame) = frame else { return false };
            if let Ok(data) = frame.into_data() {
                seen += data.remaining();
                if seen > limit {
                    return false;
                }
            }
        }
        true
    };
    Deadline::new(drain, timeout).await.unwrap_or(false)
}

async fn collect<B>(body: B, limit: usize) -> Result<Vec<u8>, BodyError>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    let capacity = usize::try_from(body.size_hint().lower()).unwrap_or(0).min(limit);
    let mut body = pin!(body);
    let mut buf = Vec::with_capacity(capacity);
    while let Some(frame) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(|e| BodyError::Read(e.into().to_string()))?;
        let Ok(mut data) = frame.into_data() else { continue };
        if buf.len() + data.remaining() > limit {
            return Err(BodyError::TooLarge);
        }
        while data.has_remaining() {
            let chunk = data.chunk();
            buf.extend_from_slice(chunk);
            let n = chunk.len();
            data.advance(n);
        }
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    /// A body that arrives in the given pieces.
    struct Pieces(VecDeque<Bytes>);

    impl Body for Pieces {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Ready(self.0.pop_front().map(|piece| Ok(Frame::data(piece))))
        }
    }

    fn pieces(texts: &[&'static str]) -> Pieces {
        Pieces(texts.iter().map(|t| Bytes::from_static(t.as_bytes())).collect())
    }

    #[tokio::test]
    async fn a_body_is_read_whole_from_its_pieces() {
        let read = read_body(pieces(&["", "{\"json", "", "rpc\":", "\"2.0\"}"]), 100, None).await.expect("read");
        assert_eq!(read, b"{\"jsonrpc\":\"2.0\"}");
        assert_eq!(read_body(pieces(&[]), 100, None).await.expect("read"), b"");
    }

    #[tokio::test]
    async fn a_body_past_the_limit_is_refused_in_one_piece_or_several() {
        assert!(matches!(read_body(pieces(&["12345"]), 4, None).await, Err(BodyError::TooLarge)));
        assert!(matches!(read_body(pieces(&["12", "34", "5"]), 4, None).await, Err(BodyError::TooLarge)));
        assert_eq!(read_body(pieces(&["12", "34"]), 4, None).await.expect("at the limit"), b"1234");
    }
}
