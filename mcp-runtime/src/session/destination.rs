//! [`Destination`]: where the messages of one stream of a session go,
//! serialized (notifications, and requests to the client).

#[cfg(feature = "http")]
use std::sync::Arc;

use tokio::sync::mpsc;

/// The stream a message was sent to has ended.
#[derive(Debug)]
pub(crate) struct Closed;

/// A stream written to in place, by whoever sends, rather than through a
/// channel and a task that reads it: a request's own event stream over
/// HTTP, which most requests never open, so that one answered at once
/// makes no channel.
#[cfg(feature = "http")]
pub(crate) trait Deliver: Send + Sync {
    /// Sends one message; [`Closed`] once the stream has ended.
    fn deliver(&self, message: String) -> Result<(), Closed>;
}

/// Where the messages of one stream go: stdout, a session's standalone
/// stream, or one request's event stream.
#[derive(Clone)]
pub(crate) enum Destination {
    /// A channel that a writer reads (stdout, the standalone stream).
    Channel(mpsc::UnboundedSender<String>),
    /// A stream written to in place.
    #[cfg(feature = "http")]
    Direct(Arc<dyn Deliver>),
}

impl Destination {
    /// Sends one message; [`Closed`] once the stream has ended.
    pub(crate) fn send(&self, message: String) -> Result<(), Closed> {
        match self {
            Destination::Channel(channel) => channel.send(message).map_err(|_| Closed),
            #[cfg(feature = "http")]
            Destination::Direct(stream) => stream.deliver(message),
        }
    }
}

impl From<mpsc::UnboundedSender<String>> for Destination {
    fn from(channel: mpsc::UnboundedSender<String>) -> Self {
        Destination::Channel(channel)
    }
}
