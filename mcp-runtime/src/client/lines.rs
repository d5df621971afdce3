//! Newline-delimited JSON: one writer, one reader task that hands each
//! response to the request waiting for its id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize as _;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::oneshot;

use super::error::Error;
use super::notices::Notices;
use crate::protocol::RequestId;

type Waiting = Arc<Mutex<Option<HashMap<RequestId, oneshot::Sender<Value>>>>>;
type Writer = Arc<tokio::sync::Mutex<Box<dyn tokio::io::AsyncWrite + Send + Unpin>>>;
/// What hears the notifications of each request that asked to.
type Watching = Arc<Mutex<HashMap<RequestId, Notices>>>;

/// The write half and the requests waiting for an answer. `None` once the
/// reader ended (the other side closed, or wrote what is no JSON).
#[derive(Clone)]
pub(super) struct LinesTransport {
    writer: Writer,
    waiting: Waiting,
    watching: Watching,
    /// The child process, killed when the last clone goes.
    _child: Option<Arc<tokio::process::Child>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl LinesTransport {
    pub(super) fn new<R, W>(
        reader: R,
        writer: W,
        child: Option<tokio::process::Child>,
        callbacks: super::server_requests::SharedCallbacks,
    ) -> Self
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let waiting: Waiting = Arc::new(Mutex::new(Some(HashMap::new())));
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(Box::new(writer)));
        let watching = Watching::default();
        let reading = Reading {
            waiting: Arc::clone(&waiting),
            watching: Arc::clone(&watching),
            writer: Arc::clone(&writer),
            callbacks,
        };
        tokio::spawn(read(reader, reading));
        LinesTransport { writer, waiting, watching, _child: child.map(Arc::new) }
    }

    /// Writes a notification.
    pub(super) async fn notify(&self, message: &Value) -> Result<(), Error> {
        write(&self.writer, message)
            .await
            .map_err(|e| Error::Transport(format!("the message could not be written: {e}")))
    }

    pub(super) async fn send(
        &self,
        message: &Value,
        id: &RequestId,
        notices: Option<&Notices>,
    ) -> Result<Value, Error> {
        let (answer, answered) = oneshot::channel();
        match lock(&self.waiting).as_mut() {
            Some(waiting) => waiting.insert(id.clone(), answer),
            None => return Err(Error::Transport("the server's output ended".to_owned())),
        };
        // Heard until the answer, however the wait ends.
        let _watched = notices.map(|notices| Watched::new(&self.watching, id, notices));
        if let Err(e) = write(&self.writer, message).await {
            if let Some(waiting) = lock(&self.waiting).as_mut() {
                waiting.remove(id);
            }
            return Err(Error::Transport(format!("the request could not be written: {e}")));
        }
        answered.await.map_err(|_| Error::Transport("the server's output ended before its answer".to_owned()))
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
            None => return Err(Error::Transport("the server's output ended".to_owned())),
        };
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
    waiting: Waiting,
    watching: Watching,
    writer: Writer,
    callbacks: super::server_requests::SharedCallbacks,
}

/// The one item of `items`; `None` for none or several.
fn only<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// Writes one message on its line.
async fn write(writer: &Writer, message: &Value) -> std::io::Result<()> {
    // Straight into bytes: `Display` would go through a formatter.
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    let mut writer = writer.lock().await;
    writer.write_all(&line).await?;
    writer.flush().await
}

/// Reads answers until the other side closes, or writes a line that is no
/// JSON: then every request still waiting is told so. The server's own
/// requests are answered as they come.
async fn read<R: tokio::io::AsyncRead + Unpin>(reader: R, reading: Reading) {
    let Reading { waiting, watching, writer, callbacks } = reading;
    let mut lines = BufReader::new(reader).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            tracing::warn!("the server wrote a line that is not JSON: the connection is given up");
            break;
        };
        if message.get("method").is_some() && message.get("id").is_none() {
            // A notification: each request that listens filters its own. A
            // log message names no request: it goes to the one request
            // that hears them, and to none when several do.
            let listening: Vec<Notices> = lock(&watching).values().cloned().collect();
            if message.get("method").and_then(Value::as_str) == Some("notifications/message") {
                match only(listening.iter().filter(|n| n.messages)) {
                    Some(notices) => notices.hear(&message),
                    None => tracing::debug!("a log message no single request listens for: not relayed"),
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
            // Answered on its own: a person may take a while, and a write
            // waiting behind a request's must not stop the reading.
            let (writer, callbacks) = (Arc::clone(&writer), Arc::clone(&callbacks));
            tokio::spawn(async move {
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
    // Dropping the senders wakes every request still waiting.
    lock(&waiting).take();
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
    use tokio::sync::mpsc;

    use super::*;

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
        let lines = LinesTransport::new(read, write, None, Arc::default());
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

        // One request listens for log messages, another does not: the first hears them.
        let (one, one_heard) = counting(true, None);
        let (other, other_heard) = counting(false, None);
        let _one = lines.watch(RequestId::from(1_i64), one);
        let _other = lines.watch(RequestId::from(2_i64), other);
        settle().await;
        assert_eq!((one_heard.load(Ordering::SeqCst), other_heard.load(Ordering::SeqCst)), (1, 0));

        // Two listen: which one it belongs to is unknown, so neither hears it.
        let (third, third_heard) = counting(true, None);
        let _third = lines.watch(RequestId::from(3_i64), third);
        settle().await;
        assert_eq!((one_heard.load(Ordering::SeqCst), third_heard.load(Ordering::SeqCst)), (1, 0));

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
}
