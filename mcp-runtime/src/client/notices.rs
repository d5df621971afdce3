//! [`Notices`]: what hears what a server sends within one request (its
//! notifications, and the questions a 2025-era server asks on its session),
//! handed to the transport that reads them.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::protocol::ErrorObject;

/// What hears what a server sends within one request.
#[derive(Clone)]
pub(crate) struct Notices {
    hear: Arc<dyn Fn(&Value) + Send + Sync>,
    /// Whether it hears log messages (`notifications/message`). A pipe does
    /// not say which request a log message belongs to: it reaches a request
    /// only when that request is the one listening for them.
    pub(crate) messages: bool,
    /// Where the server's questions within the request go instead of the
    /// client's callbacks: a forwarding server asks its own client.
    pub(crate) asks: Option<Asks>,
    /// What hears that a 2025-era server ended the request's event stream
    /// for the client to resume (SSE polling): a forwarding server ends its
    /// own client's stream in turn, rather than hold it open meanwhile.
    pub(crate) on_resume: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Notices {
    /// What hands each notification to `hear`.
    pub(crate) fn new(hear: impl Fn(&Value) + Send + Sync + 'static) -> Self {
        Notices { hear: Arc::new(hear), messages: false, asks: None, on_resume: None }
    }

    /// Hands `notification` over.
    pub(crate) fn hear(&self, notification: &Value) {
        (self.hear)(notification);
    }
}

/// A request a server sent within another request of this client, and
/// where its answer goes: the result to send back, or the error.
pub(crate) struct Question {
    pub(crate) request: Value,
    pub(crate) answer: oneshot::Sender<Result<Value, ErrorObject>>,
}

/// Where the questions within one request go.
pub(crate) type Asks = mpsc::UnboundedSender<Question>;
