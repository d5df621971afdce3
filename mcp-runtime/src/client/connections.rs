//! The HTTP/1.1 connections of a client to its one server: kept open
//! between requests, each carrying one exchange at a time (its response
//! read to the end, an event stream included, before it carries another),
//! and made when none is free. One server, so no key to look connections up
//! by and no pool shared between servers: a request takes the first free
//! connection, and gives it back as soon as its response has begun (the
//! connection is free again once that response is read).
//!
//! A connection the server closed while it was kept is dropped when next
//! looked at; a request it could not carry is sent on another, since it was
//! never written. Connections unused for [`IDLE`] are closed; at most
//! [`KEPT`] are kept.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::client::legacy::connect::HttpConnector;
use tower_service::Service as _;

use crate::sync::lock;

/// How long a connection is kept unused.
const IDLE: Duration = Duration::from_secs(90);
/// How many connections are kept at most, in use or not: past it, a
/// connection given back is closed.
const KEPT: usize = 64;

/// The connections to one server.
#[derive(Clone)]
pub(super) struct Connections {
    connector: HttpConnector,
    kept: Arc<Mutex<Vec<Kept>>>,
}

/// A connection kept, and when it was last given back.
struct Kept {
    sender: SendRequest<Full<Bytes>>,
    since: Instant,
}

impl Connections {
    pub(super) fn new() -> Self {
        Connections { connector: HttpConnector::new(), kept: Arc::default() }
    }

    /// Sends `request` (with an origin-form URI and a `Host`) to the server
    /// at `uri`, on a free connection or a new one.
    pub(super) async fn send(
        &self,
        uri: &http::Uri,
        mut request: http::Request<Full<Bytes>>,
    ) -> Result<http::Response<Incoming>, String> {
        loop {
            let now = Instant::now();
            let (mut sender, reused) = match self.free(now) {
                Some(sender) => (sender, true),
                // Boxed: connecting (resolving, trying each address) takes
                // far more room than sending, and every request's future
                // would be that large, and moved whole.
                None => (Box::pin(self.connect(uri)).await?, false),
            };
            match sender.try_send_request(request).await {
                Ok(response) => {
                    self.give_back(sender, now);
                    return Ok(response);
                }
                // Closed before the request was written: another connection
                // carries it. A new one that fails so has failed.
                Err(mut refused) => match refused.take_message() {
                    Some(unsent) if reused => request = unsent,
                    _ => return Err(refused.into_error().to_string()),
                },
            }
        }
    }

    /// A kept connection that is free, if any; the closed and the stale are
    /// dropped on the way.
    fn free(&self, now: Instant) -> Option<SendRequest<Full<Bytes>>> {
        let mut kept = lock(&self.kept);
        kept.retain(|k| !k.sender.is_closed() && now.duration_since(k.since) < IDLE);
        let at = kept.iter().rposition(|k| k.sender.is_ready())?;
        Some(kept.swap_remove(at).sender)
    }

    /// Keeps `sender` for the requests to come, unless enough are kept; it
    /// was last used at `now`.
    fn give_back(&self, sender: SendRequest<Full<Bytes>>, now: Instant) {
        let mut kept = lock(&self.kept);
        if kept.len() < KEPT {
            kept.push(Kept { sender, since: now });
        }
    }

    /// A new connection to the server at `uri`, served by a task of its own.
    async fn connect(&self, uri: &http::Uri) -> Result<SendRequest<Full<Bytes>>, String> {
        let stream = self.connector.clone().call(uri.clone()).await.map_err(|e| e.to_string())?;
        let (mut sender, connection) = http1::handshake(stream).await.map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "a connection to the server ended");
            }
        });
        sender.ready().await.map_err(|e| e.to_string())?;
        Ok(sender)
    }
}
