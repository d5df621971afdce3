//! What one replica tells another about the sessions they share, through
//! the store's [`publish`](SessionStore::publish).
//!
//! Our requests to the client carry ids `"<replica>:<n>"`, `n` counted per
//! process, so that the replica receiving the client's answer knows which
//! replica's handler waits for it, and sends it there. A
//! `notifications/cancelled` for a request not running on the replica that
//! receives it, a change of log level or subscriptions, and the end of a
//! session go to every replica: whichever holds a copy of the session acts
//! on it. With a store no other process uses, nothing is sent and our ids
//! stay integers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::handler::functions::BoxFuture;
use crate::protocol::{ErrorObject, RequestId};
use crate::session::SessionStore;
use crate::session::live::Peers;
use crate::session::{SessionChange, StoreError};

/// The number of our next request to a client, across the sessions of this
/// process: ids are never reused within a session, even by a copy of it
/// built again.
static NEXT_REQUEST: AtomicU64 = AtomicU64::new(0);

/// One message between replicas.
#[derive(Serialize, Deserialize)]
pub(super) struct Envelope {
    /// The sending replica: its own messages to every replica come back to it.
    pub(super) from: String,
    pub(super) signal: Signal,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum Signal {
    /// The client's answer to a request waiting on the replica addressed.
    Answer {
        session: String,
        id: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ErrorObject>,
    },
    /// `notifications/cancelled` for a request of the session. (The id as
    /// a `Value`: a `RequestId` cannot be read from within a tagged enum.)
    Cancel { session: String, request: Value },
    /// The client changed its session.
    Change { session: String, change: SessionChange },
    /// The session ended.
    End { session: String },
    /// Resume the stream of event `event` of the session, held by the
    /// replica addressed, and forward it as `number` (see `resume`).
    Resume { session: String, event: String, number: u64 },
    /// A word about forwarding `number`, from the replica holding its stream.
    Forwarded { number: u64, part: Part },
    /// The replica reading forwarding `number` reads it no more.
    Detach { number: u64 },
}

/// A session's link to its store and the other replicas.
pub(crate) struct Relay {
    store: Arc<dyn SessionStore>,
}

impl Relay {
    pub(crate) fn new(store: Arc<dyn SessionStore>) -> Arc<Self> {
        Arc::new(Relay { store })
    }

    fn replica(&self) -> Option<&str> {
        self.store.replica_id()
    }

    /// Sends a signal to one replica or all; failures are logged.
    async fn send(store: &dyn SessionStore, to: Option<&str>, signal: Signal) {
        let Some(from) = store.replica_id() else { return };
        let envelope = Envelope { from: from.to_owned(), signal };
        let Ok(text) = serde_json::to_string(&envelope) else { return };
        if let Err(e) = store.publish(to, text).await {
            tracing::warn!(error = %e, "could not tell the other replicas about a session");
        }
    }

    /// Sends a signal without waiting for it to go.
    fn spawn(&self, to: Option<String>, signal: Signal) {
        let store = Arc::clone(&self.store);
        tokio::spawn(async move { Self::send(&*store, to.as_deref(), signal).await });
    }

    /// Tells every replica that a session ended, so that they end their
    /// copies and the streams those hold.
    pub(crate) async fn ended(&self, session: &str) {
        Self::send(&*self.store, None, Signal::End { session: session.to_owned() }).await;
    }

    /// Asks `holder` to resume the stream of `event` of `session` and to
    /// forward it here as `number`.
    pub(crate) async fn ask_resume(&self, holder: &str, session: &str, event: &str, number: u64) {
        let signal = Signal::Resume { session: session.to_owned(), event: event.to_owned(), number };
        Self::send(&*self.store, Some(holder), signal).await;
    }

    /// Sends replica `to` a word about forwarding `number`. Awaited in
    /// turn, the words of one forwarding arrive in order.
    pub(crate) async fn forwarded(&self, to: &str, number: u64, part: Part) {
        Self::send(&*self.store, Some(to), Signal::Forwarded { number, part }).await;
    }

    /// Tells `holder` that nothing here reads forwarding `number` any more.
    pub(super) async fn detach(store: &dyn SessionStore, holder: &str, number: u64) {
        Self::send(store, Some(holder), Signal::Detach { number }).await;
    }
}

impl Peers for Relay {
    fn request_id(&self) -> Option<Value> {
        let replica = self.replica()?;
        Some(Value::from(format!("{replica}:{}", NEXT_REQUEST.fetch_add(1, Ordering::Relaxed))))
    }

    fn forward_answer(&self, session: &str, id: &Value, outcome: Result<Value, ErrorObject>) -> bool {
        let Some(here) = self.replica() else { return false };
        let Some((waiting, _)) = id.as_str().and_then(|id| id.rsplit_once(':')) else { return false };
        if waiting == here {
            return false;
        }
        let (result, error) = match outcome {
            Ok(result) => (Some(result), None),
            Err(error) => (None, Some(error)),
        };
        let signal = Signal::Answer { session: session.to_owned(), id: id.clone(), result, error };
        self.spawn(Some(waiting.to_owned()), signal);
        true
    }

    fn forward_cancel(&self, session: &str, id: &RequestId) {
        if self.replica().is_some() {
            self.spawn(None, Signal::Cancel { session: session.to_owned(), request: id.to_value() });
        }
    }

    fn write(&self, session: &str, change: SessionChange) -> BoxFuture<'static, Result<(), ErrorObject>> {
        let store = Arc::clone(&self.store);
        let session = session.to_owned();
        Box::pin(async move {
            match store.update(&session, change.clone()).await {
                Ok(true) => {}
                Ok(false) => return Err(ErrorObject::internal("The session ended")),
                Err(e) => return Err(unsaved(&e)),
            }
            Self::send(&*store, None, Signal::Change { session, change }).await;
            Ok(())
        })
    }
}

fn unsaved(error: &StoreError) -> ErrorObject {
    tracing::warn!(%error, "could not save a change of a session");
    ErrorObject::internal("The change could not be saved; retry later")
}

/// One word of a holder about a forwarded stream.
#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "what", rename_all = "snake_case")]
pub(crate) enum Part {
    /// The stream is found: events follow.
    Accepted,
    /// No such stream is kept there.
    Refused,
    /// One event, as written on the wire.
    Event { text: String },
    /// Nothing to forward for a while; the holder still forwards.
    Alive,
    /// The stream or its forwarding ended.
    Ended,
}
