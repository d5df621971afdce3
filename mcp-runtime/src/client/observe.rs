//! Seeing every message a [`Client`](super::Client) sends and receives
//! ([`Client::observe`](super::Client::observe)), e.g. to check each
//! against the protocol's JSON Schema, or to log a conversation.

use std::sync::Arc;

use serde_json::Value;

/// Which way a message went, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageKind {
    /// A request the client sent (a first try, or a retry with answers).
    Request,
    /// A notification the server sent within a request (progress, a log
    /// message).
    Notification,
    /// The server's response to a request.
    Response,
}

/// One message as it crossed the wire.
#[derive(Debug, Clone, Copy)]
pub struct Observed<'a> {
    /// What the message is.
    pub kind: MessageKind,
    /// The method of the request the message belongs to (for a
    /// notification or a response, the request it answers).
    pub method: &'a str,
    /// The message as JSON text, one line.
    pub text: &'a str,
}

impl Observed<'_> {
    /// The message as a JSON value (`Null` if the text is not JSON).
    ///
    /// ```
    /// use mcp_runtime::client::{MessageKind, Observed};
    /// let m = Observed { kind: MessageKind::Request, method: "ping", text: r#"{"id":1}"# };
    /// assert_eq!(m.to_value()["id"], 1);
    /// ```
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.text).unwrap_or(Value::Null)
    }
}

type Observer = Arc<dyn Fn(&Observed<'_>) + Send + Sync>;

/// The observers of one client, shared by its clones.
#[derive(Clone, Default)]
pub(super) struct Observers(Arc<Vec<Observer>>);

impl Observers {
    pub(super) fn add(&mut self, observer: Observer) {
        Arc::make_mut(&mut self.0).push(observer);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn notify(&self, kind: MessageKind, method: &str, text: &str) {
        let message = Observed { kind, method, text };
        for observer in self.0.iter() {
            observer(&message);
        }
    }
}
