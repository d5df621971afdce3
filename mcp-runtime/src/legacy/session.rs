//! One 2025-era session: what `initialize` negotiated, what the client set
//! since (log level, subscriptions), and the server→client requests waiting
//! for their answers.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::protocol::{ClientCapabilities, ErrorObject, Implementation, LoggingLevel, RequestId};

/// Where the messages of one stream go, serialized: stdout, or one SSE
/// stream of an HTTP session.
pub(crate) type Outlet = mpsc::UnboundedSender<String>;

/// How long the server waits for the client to answer one of its requests
/// (an elicitation waits for a person, so this is generous).
pub(crate) const CLIENT_ANSWER_TIMEOUT: Duration = Duration::from_secs(600);

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A 2025-era session, shared by every request of one stdio process or one
/// `Mcp-Session-Id`.
pub struct Session {
    id: String,
    version: &'static str,
    capabilities: ClientCapabilities,
    client_info: Option<Implementation>,
    log_level: Mutex<Option<LoggingLevel>>,
    subscriptions: Mutex<HashSet<String>>,
    /// Our requests waiting for the client's answer, by our id.
    waiting: Mutex<HashMap<i64, oneshot::Sender<Result<Value, ErrorObject>>>>,
    next_id: AtomicI64,
    /// The client's requests in flight, cancelled by `notifications/cancelled`.
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Where messages unrelated to a request go (stdout, the HTTP GET
    /// stream); none while no such stream is open.
    standalone: Mutex<Option<Outlet>>,
    /// Only HTTP sessions expire.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    last_seen: Mutex<Instant>,
    /// Cancelled when the session ends.
    ended: CancellationToken,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).field("version", &self.version).finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn new(
        id: String,
        version: &'static str,
        capabilities: ClientCapabilities,
        client_info: Option<Implementation>,
    ) -> Self {
        Session {
            id,
            version,
            capabilities,
            client_info,
            log_level: Mutex::new(None),
            subscriptions: Mutex::default(),
            waiting: Mutex::default(),
            next_id: AtomicI64::new(0),
            in_flight: Mutex::default(),
            standalone: Mutex::new(None),
            last_seen: Mutex::new(Instant::now()),
            ended: CancellationToken::new(),
        }
    }

    /// The session id (`Mcp-Session-Id` over HTTP).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The protocol version `initialize` settled on.
    pub fn protocol_version(&self) -> &'static str {
        self.version
    }

    /// What the client declared it can do.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    /// Who the client said it is.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.client_info.as_ref()
    }

    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *lock(&self.log_level)
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.log_level) = Some(level);
    }

    pub(crate) fn subscribe(&self, uri: String) {
        lock(&self.subscriptions).insert(uri);
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Marks the session used now, for idle expiry.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn idle_for(&self) -> Duration {
        lock(&self.last_seen).elapsed()
    }

    /// Opens (or replaces) the stream for messages unrelated to a request.
    pub(crate) fn set_standalone(&self, outlet: Option<Outlet>) {
        *lock(&self.standalone) = outlet;
    }

    /// Sends on the standalone stream; dropped when none is open.
    pub(crate) fn send_standalone(&self, message: String) {
        let mut slot = lock(&self.standalone);
        if let Some(outlet) = slot.as_ref()
            && outlet.send(message).is_err()
        {
            *slot = None;
        }
    }

    /// Registers a client request in flight; its token fires on
    /// `notifications/cancelled` or when the session ends.
    pub(crate) fn begin(&self, id: RequestId) -> CancellationToken {
        let token = self.ended.child_token();
        lock(&self.in_flight).insert(id, token.clone());
        token
    }

    pub(crate) fn finish(&self, id: &RequestId) {
        lock(&self.in_flight).remove(id);
    }

    /// `notifications/cancelled` from the client: unknown ids, finished
    /// requests and malformed notices are ignored.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(token) = lock(&self.in_flight).remove(id) {
            token.cancel();
        }
    }

    /// Ends the session: requests in flight and our waiting requests are
    /// cancelled, streams closed.
    pub(crate) fn end(&self) {
        self.ended.cancel();
        lock(&self.waiting).clear();
        self.set_standalone(None);
    }

    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn has_ended(&self) -> bool {
        self.ended.is_cancelled()
    }

    /// Resolves when the session ends.
    pub(crate) fn ended(&self) -> tokio_util::sync::WaitForCancellationFuture<'_> {
        self.ended.cancelled()
    }

    /// Sends a request to the client on `outlet` and waits for its answer.
    /// Given up (the client's own request cancelled, the session ended,
    /// no answer in time), the client is told with `notifications/cancelled`.
    pub(crate) async fn ask(
        &self,
        method: &str,
        params: Value,
        outlet: &Outlet,
        cancel: &CancellationToken,
    ) -> Result<Value, ErrorObject> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id, tx);
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        if outlet.send(request.to_string()).is_err() {
            lock(&self.waiting).remove(&id);
            return Err(ErrorObject::internal(format!(
                "The client could not be sent `{method}`: its stream is closed"
            )));
        }
        let reason = tokio::select! {
            answer = rx => return answer.unwrap_or_else(|_| Err(ErrorObject::internal("The session ended"))),
            () = cancel.cancelled() => "the request it was made for was cancelled",
            () = tokio::time::sleep(CLIENT_ANSWER_TIMEOUT) => "no answer in time",
        };
        lock(&self.waiting).remove(&id);
        let notice = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": id, "reason": reason },
        });
        let _ = outlet.send(notice.to_string());
        Err(ErrorObject::internal(format!("`{method}` was given up: {reason}")))
    }

    /// The client's answer to one of our requests; `false` if nothing
    /// waits for that id.
    pub(crate) fn answer(&self, id: &Value, outcome: Result<Value, ErrorObject>) -> bool {
        let Some(id) = id.as_i64() else { return false };
        match lock(&self.waiting).remove(&id) {
            Some(waiter) => waiter.send(outcome).is_ok(),
            None => false,
        }
    }
}

/// A fresh session id: 128 bits from the operating system's random
/// source, hex (visible ASCII, as required); `None` if that source fails.
pub(crate) fn new_session_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
