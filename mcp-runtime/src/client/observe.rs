//! Seeing every message a [`TestClient`](super::TestClient) sends and
//! receives, e.g. to check each against the protocol's JSON Schema.

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

/// Which way a message went, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageKind {
    /// A request the client sent (a first try or a retry with answers).
    Request,
    /// A notification the server sent while serving a request.
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
    /// notification, the request it was sent for; empty when a raw message
    /// has no readable method).
    pub method: &'a str,
    /// The message exactly as sent: one line of JSON.
    pub text: &'a str,
}

impl Observed<'_> {
    /// The message as a JSON value (`Null` if the text is not JSON, as a
    /// raw message sent on purpose may not be).
    ///
    /// ```
    /// use mcp_runtime::testing::{MessageKind, Observed};
    /// let m = Observed { kind: MessageKind::Request, method: "ping", text: r#"{"id":1}"# };
    /// assert_eq!(m.to_value()["id"], 1);
    /// ```
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.text).unwrap_or(Value::Null)
    }
}

type Observer = Arc<dyn Fn(&Observed<'_>) + Send + Sync>;

/// The observers of one client.
#[derive(Clone, Default)]
pub(super) struct Observers(Vec<Observer>);

impl Observers {
    pub(super) fn add(&mut self, observer: Observer) {
        self.0.push(observer);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn notify(&self, kind: MessageKind, method: &str, text: &str) {
        let message = Observed { kind, method, text };
        for observer in &self.0 {
            observer(&message);
        }
    }
}

/// The `method` of a raw message, if it has a readable one; the other
/// members are skipped unread.
pub(super) fn method_of(text: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        method: Option<&'a RawValue>,
    }
    serde_json::from_str::<Head<'_>>(text)
        .ok()
        .and_then(|h| h.method)
        .and_then(|m| serde_json::from_str::<String>(m.get()).ok())
        .unwrap_or_default()
}
