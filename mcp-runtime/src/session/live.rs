//! One 2025-era session: what `initialize` negotiated, what the client set
//! since (log level, subscriptions), and the server→client requests waiting
//! for their answers.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};
use tokio_util::sync::CancellationToken;

use super::destination::Destination;
use super::owner::{self, SessionOwner};
use super::store::{SessionChange, SessionRecord};
use crate::handler::functions::BoxFuture;
use crate::handler::principal::Principal;
use crate::protocol::{
    CancelledParams, ClientCapabilities, ErrorObject, Implementation, LoggingLevel, ProtocolVersion, RequestId,
    RequestMeta,
};
use crate::sync::lock;
use crate::telemetry::LiveSession;

/// How long the server waits for the client to answer one of its requests
/// (an elicitation waits for a person, so this is generous).
pub(crate) const CLIENT_ANSWER_TIMEOUT: Duration = Duration::from_secs(600);

/// What a session kept in a [store](super::SessionStore) does beyond this
/// process: the store and the other replicas serving the same session.
pub(crate) trait Peers: Send + Sync {
    /// The id of our next request to the client, naming the replica that
    /// waits for its answer; `None` when no other replica could receive it.
    fn request_id(&self) -> Option<Value>;
    /// Sends the client's answer to the replica its id names; `false` when
    /// it names none but this one.
    fn forward_answer(&self, session: &str, id: &Value, outcome: Result<Value, ErrorObject>) -> bool;
    /// Tells the other replicas of a `notifications/cancelled` for a
    /// request not running here.
    fn forward_cancel(&self, session: &str, id: &RequestId);
    /// Writes a change through to the store, and tells the other replicas.
    fn write(&self, session: &str, change: SessionChange) -> BoxFuture<'static, Result<(), ErrorObject>>;
}

/// A 2025-era session, shared by every request of one stdio process or one
/// `Mcp-Session-Id`.
pub(crate) struct Session {
    id: String,
    version: ProtocolVersion,
    capabilities: ClientCapabilities,
    client_info: Option<Implementation>,
    /// Who began it, on an authenticated server; fixed for its life.
    owner: Option<SessionOwner>,
    log_level: Mutex<Option<LoggingLevel>>,
    subscriptions: Mutex<HashSet<String>>,
    /// Our requests waiting for the client's answer, by the JSON text of our id.
    waiting: Mutex<HashMap<String, oneshot::Sender<Result<Value, ErrorObject>>>>,
    next_id: AtomicI64,
    /// The client's requests in flight, cancelled by `notifications/cancelled`.
    /// Keyed with foldhash: a map written and read on every request, whose
    /// keys a client can choose only as many as its requests in flight.
    in_flight: Mutex<foldhash::HashMap<RequestId, CancellationToken>>,
    /// Where messages unrelated to a request go (stdout, the HTTP GET
    /// stream); none while no such stream is open.
    standalone: Mutex<Option<Destination>>,
    /// Only HTTP sessions expire.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    last_seen: Mutex<Instant>,
    /// Set by `notifications/initialized`; until then the server sends the
    /// client no request of its own.
    initialized: AtomicBool,
    /// Wakes the requests to the client waiting for `initialized`.
    initialized_now: Notify,
    /// Cancelled when the session ends.
    ended: CancellationToken,
    /// Set when the session is kept in a store (HTTP).
    peers: Option<Arc<dyn Peers>>,
    /// What it knows of the client, as a 2026-07-28 request's `_meta`, as
    /// last made (with the log level it was made for).
    meta: Mutex<Option<Arc<RequestMeta>>>,
    /// Counts the session among those this process holds.
    _live: LiveSession,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).field("version", &self.version).finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn new(
        id: String,
        version: ProtocolVersion,
        capabilities: ClientCapabilities,
        client_info: Option<Implementation>,
    ) -> Self {
        Session {
            id,
            version,
            capabilities,
            client_info,
            owner: None,
            log_level: Mutex::new(None),
            subscriptions: Mutex::default(),
            waiting: Mutex::default(),
            next_id: AtomicI64::new(0),
            in_flight: Mutex::default(),
            standalone: Mutex::new(None),
            last_seen: Mutex::new(Instant::now()),
            initialized: AtomicBool::new(false),
            initialized_now: Notify::new(),
            ended: CancellationToken::new(),
            peers: None,
            meta: Mutex::new(None),
            _live: LiveSession::new(),
        }
    }

    /// A copy of a session from its record: `None` for a version this
    /// runtime does not speak.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn from_record(record: &SessionRecord) -> Option<Self> {
        let version = ProtocolVersion::parse(&record.protocol_version).filter(|v| v.has_sessions())?;
        let session =
            Session::new(record.id.clone(), version, record.client_capabilities.clone(), record.client_info.clone())
                .with_owner(record.owner.clone());
        session.refresh(record);
        Some(session)
    }

    /// What can be shared of the session.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn record(&self) -> SessionRecord {
        let mut record = SessionRecord::new(self.id.clone(), self.version.as_str());
        record.client_capabilities = self.capabilities.clone();
        record.client_info = self.client_info.clone();
        record.log_level = self.log_level();
        record.subscriptions = lock(&self.subscriptions).iter().cloned().collect();
        record.initialized = self.initialized.load(Ordering::Acquire);
        record.owner = self.owner.clone();
        record
    }

    /// Binds the session to the caller that began it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_owner(mut self, owner: Option<SessionOwner>) -> Self {
        self.owner = owner;
        self
    }

    /// Whether `caller` (the verified caller of a request, `None` for none)
    /// may use the session: see [`SessionOwner`].
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn may_be_used_by(&self, caller: Option<&Principal>) -> bool {
        owner::may_use(self.owner.as_ref(), caller)
    }

    /// Keeps the session through `peers`: changes are written through,
    /// answers and cancellations for other replicas forwarded.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_peers(mut self, peers: Arc<dyn Peers>) -> Self {
        self.peers = Some(peers);
        self
    }

    /// Takes the log level and subscriptions of the stored record, which
    /// another replica may have changed.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn refresh(&self, record: &SessionRecord) {
        *lock(&self.log_level) = record.log_level;
        if record.initialized {
            self.mark_initialized();
        }
        let mut subscriptions = lock(&self.subscriptions);
        if subscriptions.len() != record.subscriptions.len()
            || !record.subscriptions.iter().all(|uri| subscriptions.contains(uri))
        {
            *subscriptions = record.subscriptions.iter().cloned().collect();
        }
    }

    /// The session id (`Mcp-Session-Id` over HTTP).
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The protocol version `initialize` settled on.
    pub(crate) fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// What the client declared it can do.
    pub(crate) fn client_capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    /// Who the client said it is.
    pub(crate) fn client_info(&self) -> Option<&Implementation> {
        self.client_info.as_ref()
    }

    /// What the session knows of the client as a request's `_meta`: the
    /// one `make` made last, unless the log level changed since.
    pub(crate) fn kept_meta(
        &self,
        make: impl FnOnce(&Session) -> Result<RequestMeta, ErrorObject>,
    ) -> Result<Arc<RequestMeta>, ErrorObject> {
        let level = self.log_level();
        let mut kept = lock(&self.meta);
        if let Some(meta) = kept.as_ref().filter(|meta| meta.log_level == level) {
            return Ok(Arc::clone(meta));
        }
        let meta = Arc::new(make(self)?);
        *kept = Some(Arc::clone(&meta));
        Ok(meta)
    }

    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *lock(&self.log_level)
    }

    /// A change the client made: applied here, and written through to the
    /// store before the client is answered, so that its next request finds
    /// it whichever replica serves it.
    pub(crate) async fn change(&self, change: SessionChange) -> Result<(), ErrorObject> {
        self.apply_here(&change);
        match &self.peers {
            Some(peers) => peers.write(&self.id, change).await,
            None => Ok(()),
        }
    }

    /// A change made on another replica.
    pub(crate) fn apply_here(&self, change: &SessionChange) {
        match change {
            SessionChange::LogLevel { level } => *lock(&self.log_level) = Some(*level),
            SessionChange::Subscribe { uri } => {
                lock(&self.subscriptions).insert(uri.clone());
            }
            SessionChange::Unsubscribe { uri } => {
                lock(&self.subscriptions).remove(uri);
            }
            SessionChange::Initialized => self.mark_initialized(),
        }
    }

    /// A notification from the client: `cancelled` acts at once; the change
    /// `initialized` makes is returned, for the caller to make with
    /// [`change`](Self::change). `roots/list_changed` needs nothing: roots
    /// are asked for afresh by each request that needs them.
    pub(crate) fn notified(&self, method: &str, params: Option<Value>) -> Option<SessionChange> {
        match method {
            "notifications/cancelled" => {
                if let Some(notice) = params.and_then(|p| serde_json::from_value::<CancelledParams>(p).ok()) {
                    self.cancel(&notice.request_id);
                }
                None
            }
            "notifications/initialized" => Some(SessionChange::Initialized),
            _ => None,
        }
    }

    fn mark_initialized(&self) {
        if !self.initialized.swap(true, Ordering::AcqRel) {
            self.initialized_now.notify_waiters();
        }
    }

    /// Resolves once the client sent `notifications/initialized`.
    async fn until_initialized(&self) {
        loop {
            // Registered before the flag is read, so a wake-up between the
            // two is not lost.
            let woken = self.initialized_now.notified();
            if self.initialized.load(Ordering::Acquire) {
                return;
            }
            woken.await;
        }
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// The URIs subscribed to, in order.
    pub(crate) fn subscribed(&self) -> Vec<String> {
        let mut uris: Vec<String> = lock(&self.subscriptions).iter().cloned().collect();
        uris.sort_unstable();
        uris
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
    pub(crate) fn set_standalone(&self, outlet: Option<Destination>) {
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
        // A token of its own, not a child of the session's: a child costs a
        // lock of the session's token tree when made and again when
        // dropped, on every request. `end` cancels those in flight instead;
        // one that begins as the session ends sees it ended.
        let token = CancellationToken::new();
        lock(&self.in_flight).insert(id, token.clone());
        if self.ended.is_cancelled() {
            token.cancel();
        }
        token
    }

    pub(crate) fn finish(&self, id: &RequestId) {
        lock(&self.in_flight).remove(id);
    }

    /// `notifications/cancelled` from the client: unknown ids, finished
    /// requests and malformed notices are ignored. A request not running
    /// here may run on another replica, which is told.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if !self.cancel_here(id)
            && let Some(peers) = &self.peers
        {
            peers.forward_cancel(&self.id, id);
        }
    }

    /// Cancels the request if it runs here; whether it did.
    pub(crate) fn cancel_here(&self, id: &RequestId) -> bool {
        match lock(&self.in_flight).remove(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether requests of the session run here, or wait for the client.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn busy(&self) -> bool {
        !lock(&self.in_flight).is_empty() || !lock(&self.waiting).is_empty()
    }

    /// Ends the session: requests in flight and our waiting requests are
    /// cancelled, streams closed.
    pub(crate) fn end(&self) {
        self.ended.cancel();
        for token in lock(&self.in_flight).values() {
            token.cancel();
        }
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
        outlet: &Destination,
        cancel: &CancellationToken,
    ) -> Result<Value, ErrorObject> {
        // Before `notifications/initialized` a client is sent no request
        // but `ping`: a handler that asks that early waits for it.
        if !self.initialized.load(Ordering::Acquire) {
            let given_up = tokio::select! {
                () = self.until_initialized() => None,
                () = cancel.cancelled() => Some("the request it was for was cancelled"),
                () = tokio::time::sleep(CLIENT_ANSWER_TIMEOUT) => Some("the client never sent `notifications/initialized`"),
            };
            if let Some(reason) = given_up {
                return Err(ErrorObject::internal(format!("`{method}` was never sent: {reason}")));
            }
        }
        let id = self
            .peers
            .as_ref()
            .and_then(|peers| peers.request_id())
            .unwrap_or_else(|| Value::from(self.next_id.fetch_add(1, Ordering::Relaxed)));
        let key = id.to_string();
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(key.clone(), tx);
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        if outlet.send(request.to_string()).is_err() {
            lock(&self.waiting).remove(&key);
            return Err(ErrorObject::internal(format!(
                "The client could not be sent `{method}`: its stream is closed"
            )));
        }
        let reason = tokio::select! {
            answer = rx => return answer.unwrap_or_else(|_| Err(ErrorObject::internal("The session ended"))),
            () = cancel.cancelled() => "the request it was made for was cancelled",
            () = tokio::time::sleep(CLIENT_ANSWER_TIMEOUT) => "no answer in time",
        };
        lock(&self.waiting).remove(&key);
        let notice = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": id, "reason": reason },
        });
        let _ = outlet.send(notice.to_string());
        Err(ErrorObject::internal(format!("`{method}` was given up: {reason}")))
    }

    /// The client's answer to one of our requests, given to the request
    /// waiting for it here or sent to the replica where it waits; `false`
    /// if nothing waits for that id.
    pub(crate) fn answer(&self, id: &Value, outcome: Result<Value, ErrorObject>) -> bool {
        let waiter = lock(&self.waiting).remove(&id.to_string());
        match waiter {
            Some(waiter) => waiter.send(outcome).is_ok(),
            None => self.peers.as_ref().is_some_and(|peers| peers.forward_answer(&self.id, id, outcome)),
        }
    }

    /// The client's answer, forwarded by another replica, for a request
    /// waiting here.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn answer_here(&self, id: &Value, outcome: Result<Value, ErrorObject>) -> bool {
        match lock(&self.waiting).remove(&id.to_string()) {
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
