//! Newline-delimited JSON: one writer, one reader task that hands each
//! response to the request waiting for its id. Lines are bounded
//! ([`Client::max_message_bytes`](super::Client::max_message_bytes)), and
//! so are the server's requests answered at once.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use serde::Deserialize as _;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::oneshot;

use super::error::Error;
use super::limits::SharedLimits;
use super::notices::Notices;
use crate::protocol::RequestId;
use crate::sync::lock;

type Waiting = Arc<Mutex<Option<HashMap<RequestId, oneshot::Sender<Value>>>>>;
type Writer = Arc<tokio::sync::Mutex<Box<dyn tokio::io::AsyncWrite + Send + Unpin>>>;
/// What hears the notifications of each request that asked to.
type Watching = Arc<Mutex<HashMap<RequestId, Notices>>>;
/// The requests answered only when their stream ends (`subscriptions/listen`).
type Streaming = Arc<Mutex<HashSet<RequestId>>>;

/// Why the reader ended, when the other side did something other than
/// close: told to every request that waited, or comes later, so that a
/// user sees what the server wrote instead of only that it stopped.
type Ended = Arc<Mutex<Option<String>>>;

/// The most characters of an offending line quoted back to the user: enough
/// to recognise a log line, not a screenful.
const QUOTED_CHARS: usize = 200;

/// The write half and the requests waiting for an answer. `None` once the
/// reader ended (the other side closed, or wrote what is no JSON).
#[derive(Clone)]
pub(super) struct LinesTransport {
    writer: Writer,
    waiting: Waiting,
    ended: Ended,
    watching: Watching,
    streaming: Streaming,
    /// The child process, killed when the last clone goes.
    _child: Option<Arc<tokio::process::Child>>,
}

impl LinesTransport {
    pub(super) fn new<R, W>(
        reader: R,
        writer: W,
        child: Option<tokio::process::Child>,
        callbacks: super::callbacks::SharedCallbacks,
        limits: SharedLimits,
    ) -> Self
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let waiting: Waiting = Arc::new(Mutex::new(Some(HashMap::new())));
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(Box::new(writer)));
        let watching = Watching::default();
        let streaming = Streaming::default();
        let ended = Ended::default();
        let reading = Reading {
            ended: Arc::clone(&ended),
            waiting: Arc::clone(&waiting),
            watching: Arc::clone(&watching),
            streaming: Arc::clone(&streaming),
            writer: Arc::clone(&writer),
            callbacks,
            limits,
        };
        tokio::spawn(read(reader, reading));
        LinesTransport { writer, waiting, ended, watching, streaming, _child: child.map(Arc::new) }
    }

    /// The error of a request the reader can no longer answer: `what`
    /// ended, and why, when the server wrote something that ended it.
    fn ended(&self, what: &str) -> Error {
        match lock(&self.ended).as_deref() {
            Some(why) => Error::Transport(format!("{what}: {why}")),
            None => Error::Transport(what.to_owned()),
        }
    }

    /// Writes a notification.
    pub(super) async fn notify(&self, message: &Value) -> Result<(), Error> {
        write(&self.writer, message)
            .await
            .map_err(|e| Error::Transport(format!("the message could not be written: {e}")))
    }

    /// Writes request `id`, written as `text`, and waits for its answer.
    pub(super) async fn send(&self, text: Vec<u8>, id: &RequestId, notices: Option<&Notices>) -> Result<Value, Error> {
        let (answer, answered) = oneshot::channel();
        match lock(&self.waiting).as_mut() {
            Some(waiting) => waiting.insert(id.clone(), answer),
            None => return Err(self.ended("the server's output ended")),
        };
        // Heard until the answer, however the wait ends.
        let _watched = notices.map(|notices| Watched::new(&self.watching, id, notices));
        if let Err(e) = write_line(&self.writer, text).await {
            if let Some(waiting) = lock(&self.waiting).as_mut() {
                waiting.remove(id);
            }
            return Err(Error::Transport(format!("the request could not be written: {e}")));
        }
        answered.await.map_err(|_| self.ended("the server's output ended before its answer"))
    }
}

impl LinesTransport {
    /// Writes request `message` and returns what its answer will come on,
    /// without waiting for it (a `subscriptions/listen`, answered only when
    /// it ends).
    pub(super) async fn start(&self, message: &Value, id: &RequestId) -> Result<oneshot::Receiver<Value>, Error> {
        let (answer, answered) = oneshot::channel();
        match lock(&self.waiting).as_mut() {
            Some(waiting) => waiting.insert(id.clone(), answer),
            None => return Err(self.ended("the server's output ended")),
        };
        lock(&self.streaming).insert(id.clone());
        if let Err(e) = write(&self.writer, message).await {
            self.forget(id);
            return Err(Error::Transport(format!("the request could not be written: {e}")));
        }
        Ok(answered)
    }

    /// Stops waiting for the answer to `id`.
    pub(super) fn forget(&self, id: &RequestId) {
        if let Some(waiting) = lock(&self.waiting).as_mut() {
            waiting.remove(id);
        }
        lock(&self.streaming).remove(id);
    }

    /// Hands every notification to `notices` (under `key`, which must be
    /// no request's id) until the returned value is dropped.
    pub(super) fn watch(&self, key: RequestId, notices: Notices) -> Watch {
        lock(&self.watching).insert(key.clone(), notices);
        Watch { watching: Arc::clone(&self.watching), key }
    }
}

/// Notifications heard until dropped.
pub(super) struct Watch {
    watching: Watching,
    key: RequestId,
}

impl Drop for Watch {
    fn drop(&mut self) {
        lock(&self.watching).remove(&self.key);
    }
}

/// A request's notifications heard while it is alive.
struct Watched<'a> {
    watching: &'a Watching,
    id: RequestId,
}

impl<'a> Watched<'a> {
    fn new(watching: &'a Watching, id: &RequestId, notices: &Notices) -> Self {
        lock(watching).insert(id.clone(), notices.clone());
        Watched { watching, id: id.clone() }
    }
}

impl Drop for Watched<'_> {
    fn drop(&mut self) {
        lock(self.watching).remove(&self.id);
    }
}

/// What the reader task hands answers, notifications and requests to.
struct Reading {
    ended: Ended,
    waiting: Waiting,
    watching: Watching,
    streaming: Streaming,
    writer: Writer,
    callbacks: super::callbacks::SharedCallbacks,
    limits: SharedLimits,
}

/// The one item of `items`; `None` for none or several.
fn only<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// Writes one message on its line.
async fn write(writer: &Writer, message: &Value) -> std::io::Result<()> {
    // Straight into bytes: `Display` would go through a formatter.
    write_line(writer, serde_json::to_vec(message)?).await
}

/// Writes one message's JSON text on its line.
async fn write_line(writer: &Writer, mut line: Vec<u8>) -> std::io::Result<()> {
    line.push(b'\n');
    let mut writer = writer.lock().await;
    writer.write_all(&line).await?;
    writer.flush().await
}

/// `line` as a user can read it in one error message: its first
/// [`QUOTED_CHARS`] characters, quoted and escaped (control characters,
/// quotes, bytes that are no UTF-8), and `…` after the quote if cut.
fn quoted(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut kept: String = text.chars().take(QUOTED_CHARS).collect();
    let cut = kept.len() < text.len();
    kept = format!("{kept:?}");
    if cut {
        kept.push('…');
    }
    kept
}

/// A line longer than the client takes.
#[derive(Debug)]
struct TooLong;

/// The next line of `reader` into `line` (without its end): `Ok(false)` at
/// the end of the input, `Err` for one longer than `most` bytes, which is
/// not kept.
async fn next_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    most: usize,
) -> Result<bool, Option<TooLong>> {
    line.clear();
    loop {
        let available = reader.fill_buf().await.map_err(|_| None)?;
        if available.is_empty() {
            return Ok(!line.is_empty());
        }
        let (taken, ended) = match memchr::memchr(b'\n', available) {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if line.len() + taken > most {
            return Err(Some(TooLong));
        }
        line.extend_from_slice(&available[..taken]);
        reader.consume(if ended { taken + 1 } else { taken });
        if ended {
            return Ok(true);
        }
    }
}

/// Reads answers until the other side closes, or writes a line that is no
/// JSON or longer than the client takes: then every request still waiting
/// is told so, and every listener that its stream ended. The server's own
/// requests are answered as they come, as many at once as the client
/// takes.
async fn read<R: tokio::io::AsyncRead + Unpin>(reader: R, reading: Reading) {
    let Reading { ended, waiting, watching, streaming, writer, callbacks, limits } = reading;
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        match next_line(&mut reader, &mut line, limits.message_bytes()).await {
            Ok(true) => {}
            Ok(false) | Err(None) => break,
            Err(Some(TooLong)) => {
                let most = limits.message_bytes();
                tracing::warn!(
                    most,
                    "the server wrote a line longer than the client takes: the connection is given up"
                );
                *lock(&ended) = Some(format!("it wrote a line longer than {most} bytes, the most this client takes"));
                break;
            }
        }
        if line.trim_ascii().is_empty() {
            continue;
        }
        let Ok(message) = serde_json::from_slice::<Value>(&line) else {
            // Most often a server that logs to stdout, where only protocol
            // messages may go: the line itself says so to its author.
            let quoted = quoted(&line);
            tracing::warn!(line = quoted, "the server wrote a line that is not JSON: the connection is given up");
            *lock(&ended) = Some(format!(
                "it wrote a line that is not a JSON-RPC message, {quoted} (a server writes only protocol messages \
                 on stdout; logs go to stderr)"
            ));
            break;
        };
        if message.get("method").is_some() && message.get("id").is_none() {
            // A notification: each request that listens filters its own. A
            // log message names no request: it goes to the one request
            // that hears them, when it is the one request in flight (a
            // listen stream aside); with another in flight it may be that
            // one's, which may be another caller's behind a gateway.
            let listening: Vec<Notices> = lock(&watching).values().cloned().collect();
            if message.get("method").and_then(Value::as_str) == Some("notifications/message") {
                let in_flight = {
                    let streams = lock(&streaming);
                    lock(&waiting).as_ref().map_or(0, |w| w.keys().filter(|id| !streams.contains(*id)).count())
                };
                match only(listening.iter().filter(|n| n.messages)).filter(|_| in_flight == 1) {
                    Some(notices) => notices.hear(&message),
                    None => tracing::debug!("a log message no single request in flight listens for: not relayed"),
                }
                continue;
            }
            for notices in listening {
                notices.hear(&message);
            }
            continue;
        }
        if message.get("method").is_some() {
            // Nor does a question: it goes to the one request that relays
            // them, else to the callbacks.
            let asks = only(lock(&watching).values().filter_map(|n| n.asks.as_ref())).cloned();
            let Some(place) = limits.question() else {
                // Refused before the next line is read: the server cannot
                // make the client hold any number of its requests.
                if let Some(refusal) = super::server_requests::too_many(&message) {
                    let _ = write(&writer, &refusal).await;
                }
                continue;
            };
            // Answered on its own: a person may take a while, and a write
            // waiting behind a request's must not stop the reading.
            let (writer, callbacks) = (Arc::clone(&writer), Arc::clone(&callbacks));
            tokio::spawn(async move {
                let _place = place;
                if let Some(answer) = super::server_requests::answer(&callbacks, asks.as_ref(), &message).await {
                    let _ = write(&writer, &answer).await;
                }
            });
            continue;
        }
        let Some(Ok(id)) = message.get("id").map(RequestId::deserialize) else { continue };
        let sender = lock(&waiting).as_mut().and_then(|waiting| waiting.remove(&id));
        if let Some(sender) = sender {
            let _ = sender.send(message);
        }
    }
    // Dropping the senders wakes every request still waiting, and dropping
    // what listens ends the listeners' streams.
    lock(&waiting).take();
    lock(&watching).clear();
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
    use tokio::sync::mpsc;

    use super::*;

    /// Sends `ping` as request `id` and waits for its answer.
    async fn ping(lines: &LinesTransport, id: i64) -> Result<Value, Error> {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string().into_bytes();
        lines.send(request, &RequestId::from(id), None).await
    }

    /// A request's notices counting the log messages it hears, relaying
    /// questions to `asks` if given.
    fn counting(messages: bool, asks: Option<super::super::notices::Asks>) -> (Notices, Arc<AtomicUsize>) {
        let heard = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&heard);
        let mut notices = Notices::new(move |message: &Value| {
            if message["method"] == "notifications/message" {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        notices.messages = messages;
        notices.asks = asks;
        (notices, heard)
    }

    #[tokio::test]
    async fn what_a_pipe_names_no_request_for_reaches_only_the_one_request_that_takes_it() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(ours);
        let (their_read, mut their_write) = tokio::io::split(theirs);
        let mut written = BufReader::new(their_read).lines();
        let lines = LinesTransport::new(read, write, None, Arc::default(), Arc::default());
        let log = format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                                         "params": {"level": "info", "data": "hello"}})
        );
        // The reader takes lines in order: once a ping after the log
        // message is answered, the message was handed out.
        let mut pings = 0;
        let mut settle = async || {
            pings += 1;
            let ping = json!({"jsonrpc": "2.0", "id": format!("ping-{pings}"), "method": "ping"});
            their_write.write_all(format!("{log}{ping}\n").as_bytes()).await.expect("written");
            let answer: Value = serde_json::from_str(&written.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(answer["id"], ping["id"]);
        };

        // Requests in flight, as `send` leaves them while they wait.
        let in_flight = |id: i64| {
            let (answer, _) = oneshot::channel();
            lock(&lines.waiting).as_mut().expect("reading").insert(RequestId::from(id), answer);
        };
        in_flight(1);
        // One request listens for log messages, another does not: the first hears them.
        let (one, one_heard) = counting(true, None);
        let (other, other_heard) = counting(false, None);
        let _one = lines.watch(RequestId::from(1_i64), one);
        let _other = lines.watch(RequestId::from(2_i64), other);
        settle().await;
        assert_eq!((one_heard.load(Ordering::SeqCst), other_heard.load(Ordering::SeqCst)), (1, 0));

        // Another request in flight that does not listen: the message may be
        // its own (another caller's, behind a gateway), so no one hears it.
        in_flight(2);
        settle().await;
        assert_eq!(one_heard.load(Ordering::SeqCst), 1, "relayed with two requests in flight");
        lines.forget(&RequestId::from(2_i64));

        // Two listen: which one it belongs to is unknown, so neither hears it.
        let (third, third_heard) = counting(true, None);
        let _third = lines.watch(RequestId::from(3_i64), third);
        settle().await;
        assert_eq!((one_heard.load(Ordering::SeqCst), third_heard.load(Ordering::SeqCst)), (1, 0));
        lines.forget(&RequestId::from(1_i64));

        // A question goes to the one request relaying them; with two, to the
        // callbacks (none here: refused).
        let (asks, mut questions) = mpsc::unbounded_channel();
        let (relaying, _) = counting(false, Some(asks));
        let relaying = lines.watch(RequestId::from(4_i64), relaying);
        let question = json!({"jsonrpc": "2.0", "id": "q1", "method": "roots/list"});
        their_write.write_all(format!("{question}\n").as_bytes()).await.expect("written");
        let asked = questions.recv().await.expect("the question relayed");
        assert_eq!(asked.request["id"], "q1");
        let _ = asked.answer.send(Ok(json!({"roots": []})));
        let answer: Value = serde_json::from_str(&written.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "q1", "result": {"roots": []}}));

        let (second_asks, mut second_questions) = mpsc::unbounded_channel();
        let (second, _) = counting(false, Some(second_asks));
        let _second = lines.watch(RequestId::from(5_i64), second);
        let question = json!({"jsonrpc": "2.0", "id": "q2", "method": "roots/list"});
        their_write.write_all(format!("{question}\n").as_bytes()).await.expect("written");
        let answer: Value = serde_json::from_str(&written.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!((answer["id"].clone(), answer["error"]["code"].clone()), (json!("q2"), json!(-32601)), "{answer}");
        assert!(questions.try_recv().is_err() && second_questions.try_recv().is_err(), "asked of no request");
        drop(relaying);
    }

    #[tokio::test]
    async fn a_line_longer_than_the_client_takes_gives_the_connection_up_unread() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(ours);
        let (_their_read, mut their_write) = tokio::io::split(theirs);
        let limits: SharedLimits = Arc::default();
        limits.set_message_bytes(64 * 1024);
        let lines = LinesTransport::new(read, write, None, Arc::default(), Arc::clone(&limits));
        let waiting = tokio::spawn({
            let lines = lines.clone();
            async move { ping(&lines, 1).await }
        });
        // A line that never ends: the reader gives up past the limit, long
        // before the writer is done, and the request waiting is told.
        let writing = tokio::spawn(async move {
            let chunk = vec![b'x'; 16 * 1024];
            for _ in 0..1024 {
                if their_write.write_all(&chunk).await.is_err() {
                    return false;
                }
            }
            true
        });
        let answer =
            tokio::time::timeout(std::time::Duration::from_secs(10), waiting).await.expect("in time").expect("joined");
        assert!(matches!(answer, Err(Error::Transport(_))), "{answer:?}");
        // Our end closed, the writer learns that no one reads any more.
        drop(lines);
        let wrote_all = tokio::time::timeout(std::time::Duration::from_secs(10), writing).await.expect("in time");
        assert!(!wrote_all.expect("joined"), "the reader kept reading 16 MiB of one line");
    }

    #[tokio::test]
    async fn a_server_cannot_make_the_client_answer_more_at_once_than_it_takes() {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(ours);
        let (their_read, mut their_write) = tokio::io::split(theirs);
        let mut written = BufReader::new(their_read).lines();
        let limits: SharedLimits = Arc::default();
        limits.set_questions_at_once(2);
        let (asks, mut questions) = mpsc::unbounded_channel();
        let (relaying, _) = counting(false, Some(asks));
        let lines = LinesTransport::new(read, write, None, Arc::default(), limits);
        let _relaying = lines.watch(RequestId::from(1_i64), relaying);
        // Five questions at once, none answered yet: two are taken, three refused.
        for n in 0..5 {
            let question = json!({"jsonrpc": "2.0", "id": format!("q{n}"), "method": "roots/list"});
            their_write.write_all(format!("{question}\n").as_bytes()).await.expect("written");
        }
        for _ in 0..3 {
            let refused: Value = serde_json::from_str(&written.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(refused["error"]["code"], -32603, "{refused}");
        }
        let first = questions.recv().await.expect("taken");
        let second = questions.recv().await.expect("taken");
        assert!(questions.try_recv().is_err(), "only two taken");
        let _ = (first.answer.send(Ok(json!({"roots": []}))), second.answer.send(Ok(json!({"roots": []}))));
    }

    #[tokio::test]
    async fn a_line_that_is_no_message_is_quoted_to_the_request_it_ended() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(ours);
        let (their_read, mut their_write) = tokio::io::split(theirs);
        let mut written = BufReader::new(their_read).lines();
        let lines = LinesTransport::new(read, write, None, Arc::default(), Arc::default());
        let waiting = tokio::spawn({
            let lines = lines.clone();
            async move { ping(&lines, 1).await }
        });
        // Once the request is read, it is waiting for its answer.
        written.next_line().await.expect("read").expect("the request");
        // A server logging to stdout, with a terminal's colours.
        their_write.write_all(b"\x1b[32mINFO\x1b[0m listening on stdio \"v1\"\n").await.expect("written");
        let answer = waiting.await.expect("joined");
        let Err(Error::Transport(message)) = answer else { panic!("{answer:?}") };
        assert!(message.starts_with("the server's output ended before its answer: it wrote a line"), "{message}");
        assert!(message.contains(r#""\u{1b}[32mINFO\u{1b}[0m listening on stdio \"v1\"""#), "{message}");
        assert!(message.contains("logs go to stderr"), "{message}");
        // And so is every later request, to the same line.
        let later = ping(&lines, 2).await;
        let Err(Error::Transport(later)) = later else { panic!("ended") };
        assert!(later.starts_with("the server's output ended: it wrote") && later.contains("listening"), "{later}");

        let long = quoted("é".repeat(500).as_bytes());
        assert_eq!(long, format!("{:?}…", "é".repeat(QUOTED_CHARS)), "cut at characters, not bytes");
        assert_eq!(quoted(b"\xff ok"), "\"\u{fffd} ok\"", "a byte that is no UTF-8, replaced");
    }
}
