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
        lock(watching).insert(id.clone(), Arc::clone(notices));
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

/// Writes one message on its line.
async fn write(writer: &Writer, message: &Value) -> std::io::Result<()> {
    let line = format!("{message}\n");
    let mut writer = writer.lock().await;
    writer.write_all(line.as_bytes()).await?;
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
            // A notification: each request that listens filters its own.
            let listening: Vec<Notices> = lock(&watching).values().cloned().collect();
            for notices in listening {
                notices(&message);
            }
            continue;
        }
        if message.get("method").is_some() {
            // Answered on its own: a person may take a while, and a write
            // waiting behind a request's must not stop the reading.
            let (writer, callbacks) = (Arc::clone(&writer), Arc::clone(&callbacks));
            tokio::spawn(async move {
                if let Some(answer) = super::server_requests::answer(&callbacks, &message).await {
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
