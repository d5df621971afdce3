//! The 2025-era sessions of one endpoint, by `Mcp-Session-Id`: their
//! records in a [`SessionStore`], and this process's copies of the sessions
//! it serves.
//!
//! The store decides whether a session lives: every request of a session
//! loads its record (404 when there is none), which counts the session as
//! used; a copy here is built from the record when missing and brought up
//! to date from it otherwise. A request by anyone but the session's owner
//! is answered as for no session before it can count as a use: the copy
//! held here tells the owner without asking the store, and a store asked
//! for a session not held here compares before it counts. While one of its
//! streams is being read, a copy loads its record every third of the idle
//! timeout (at most every minute), so that a session in use does not
//! expire, and so that one ended on another replica ends here too, even if
//! the word from that replica was lost.
//!
//! This process holds at most [`max_sessions`] copies. One unused for
//! [`session_idle_timeout`] (no request, no stream read, nothing in flight)
//! is dropped; the record stays, and the next request builds a copy again.
//! Copies are checked when a session is looked up, and all of them once in
//! a while when one is added, so no background task is needed for that.
//! With the default [`MemorySessionStore`] the store holds the same
//! sessions as the copies; with a shared one, one more `initialize` beyond
//! the cap is refused whether the cap is reached here or in the store.
//!
//! [`max_sessions`]: crate::transport::http::HttpConfig::max_sessions
//! [`session_idle_timeout`]: crate::transport::http::HttpConfig::session_idle_timeout

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::mpsc;

use super::live::{Bound, LiveReceiver};
use super::relay::{Envelope, Part, Relay, Signal};
use super::resume::{self, Resumptions};
use super::stream::Streams;
use crate::handler::principal::Principal;
use crate::protocol::RequestId;
use crate::server::Server;
use crate::session::destination::Destination;
use crate::session::events;
use crate::session::live::Session;
use crate::session::{MemorySessionStore, SessionLimits, SessionOwner, SessionStore, StoreError, Touched};
use crate::sync::lock;

/// How often a copy whose streams are read loads its record.
fn heartbeat(idle: Duration) -> Duration {
    (idle / 3).clamp(Duration::from_millis(100), Duration::from_secs(60))
}

/// One session as HTTP serves it: this process's copy of the session, and
/// its event streams.
pub(crate) struct HttpSession {
    pub(crate) session: Arc<Session>,
    pub(crate) streams: Streams,
    /// Messages for the standalone stream; also where a request answered
    /// with plain JSON sends its own messages, having no stream of its own.
    standalone: Destination,
    /// Until [`start`](Self::start), the other end of `standalone`.
    pending: Mutex<Option<mpsc::UnboundedReceiver<String>>>,
    /// Connections reading one of its streams: while one is open the
    /// session is in use, however long since its last request.
    open: AtomicUsize,
    /// The revision of its stored record it was last refreshed from
    /// ([`NO_REVISION`] for none known).
    seen: AtomicU64,
    store: Arc<dyn SessionStore>,
    limits: SessionLimits,
}

/// No revision of a stored record known.
const NO_REVISION: u64 = u64::MAX;

impl HttpSession {
    fn new(session: Session, table: &Table) -> Arc<Self> {
        let session = Arc::new(session.with_peers(table.relay.clone()));
        let resumable = session.protocol_version().resumes_closed_streams();
        let streams = Streams::new(resumable, table.store.replica_id(), table.stream_buffer);
        let (standalone, pending) = mpsc::unbounded_channel();
        session.set_standalone(Some(Destination::from(standalone.clone())));
        Arc::new(HttpSession {
            session,
            streams,
            standalone: Destination::from(standalone),
            pending: Mutex::new(Some(pending)),
            open: AtomicUsize::new(0),
            seen: AtomicU64::new(NO_REVISION),
            store: Arc::clone(&table.store),
            limits: table.limits,
        })
    }

    /// Starts forwarding to the standalone stream what the session sends
    /// there, and the server's changes; until the session ends or the
    /// server [closes its streams](Server::close_streams). Meanwhile, the
    /// record is loaded now and then while a stream is read.
    fn start(self: &Arc<Self>, server: &Server) {
        let Some(mut messages) = lock(&self.pending).take() else { return };
        let stream = Arc::clone(self.streams.standalone());
        let session = Arc::clone(&self.session);
        let closing = server.closing().clone();
        let this = Arc::downgrade(self);
        let period = heartbeat(self.limits.idle_timeout);
        tokio::spawn(async move {
            let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = session.ended() => return,
                    // The server shuts down: the stream ends, so that its
                    // connection does not hold the shutdown up.
                    () = closing.cancelled() => return stream.finish(),
                    message = messages.recv() => match message {
                        // A connection cut for falling behind has ended; the
                        // client opens the stream again (resuming it, when
                        // it can), so the forwarding goes on.
                        Some(message) => {
                            stream.push(&message);
                        }
                        None => return,
                    },
                    _ = beat.tick() => {
                        let Some(this) = this.upgrade() else { return };
                        if this.open.load(Ordering::Acquire) == 0 {
                            continue;
                        }
                        match this.store.load(session.id(), this.limits).await {
                            Ok(Some(record)) => session.refresh(&record),
                            Ok(None) => return this.end(),
                            // The store is out of reach: the next beat will tell.
                            Err(_) => {}
                        }
                    }
                }
            }
        });
        events::watch(server, &self.session);
    }

    pub(crate) fn standalone_outlet(&self) -> Destination {
        self.standalone.clone()
    }

    /// Marks a connection open on one of its streams until the value is dropped.
    pub(crate) fn connection(self: &Arc<Self>) -> OpenConnection {
        self.open.fetch_add(1, Ordering::AcqRel);
        OpenConnection(Arc::clone(self))
    }

    /// Ends this copy of the session: its requests here are cancelled, its
    /// streams here and their connections end.
    pub(crate) fn end(&self) {
        self.session.end();
        self.streams.close_all();
    }

    fn expired(&self, idle: Duration) -> bool {
        self.session.has_ended()
            || (self.open.load(Ordering::Acquire) == 0 && !self.session.busy() && self.session.idle_for() >= idle)
    }
}

/// A connection reading one of a session's streams; the session counts as
/// used from its closing.
pub(crate) struct OpenConnection(Arc<HttpSession>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        let held = &self.0;
        held.open.fetch_sub(1, Ordering::AcqRel);
        held.session.touch();
        // The store's idle clock restarts too.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (store, limits, id) = (Arc::clone(&held.store), held.limits, held.session.id().to_owned());
            runtime.spawn(async move { store.load(&id, limits).await });
        }
    }
}

/// Why a session could not be opened or served.
#[derive(Debug)]
pub(crate) enum Unavailable {
    /// As many sessions as allowed are live, in the store or here.
    Full,
    /// The store failed.
    Store(StoreError),
}

impl From<StoreError> for Unavailable {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Full => Unavailable::Full,
            other => Unavailable::Store(other),
        }
    }
}

/// This process's copies of the sessions, and where their records are.
pub(crate) struct Table {
    pub(crate) store: Arc<dyn SessionStore>,
    limits: SessionLimits,
    /// [`HttpConfig::max_stream_buffer`].
    stream_buffer: usize,
    pub(crate) relay: Arc<Relay>,
    /// Streams resumed here from other replicas, and forwarded from here.
    pub(crate) resumptions: Arc<Resumptions>,
    /// Read on every request; keyed by the ids this server made (foldhash).
    copies: Mutex<foldhash::HashMap<String, Arc<HttpSession>>>,
    swept: Mutex<Instant>,
    /// Whether the signals of other replicas are being listened to.
    listening: AtomicBool,
}

impl Table {
    /// The copy of a session held here, if any.
    pub(crate) fn held(&self, id: &str) -> Option<Arc<HttpSession>> {
        lock(&self.copies).get(id).cloned()
    }

    /// Ends and forgets the copy of a session that ended.
    pub(crate) fn drop_copy(&self, id: &str) {
        let copy = lock(&self.copies).remove(id);
        if let Some(copy) = copy {
            copy.end();
        }
    }

    /// Keeps a new copy, or returns the one another request made first
    /// (`false`: that one is already started); unless as many as allowed
    /// are held.
    fn hold(&self, copy: Arc<HttpSession>) -> Result<(Arc<HttpSession>, bool), Unavailable> {
        let mut copies = lock(&self.copies);
        if let Some(held) = copies.get(copy.session.id()).filter(|held| !held.session.has_ended()) {
            return Ok((Arc::clone(held), false));
        }
        let due = lock(&self.swept).elapsed() >= self.limits.idle_timeout.min(Duration::from_secs(60));
        if due || copies.len() >= self.limits.max_sessions {
            self.sweep(&mut copies);
        }
        if copies.len() >= self.limits.max_sessions {
            return Err(Unavailable::Full);
        }
        copies.insert(copy.session.id().to_owned(), Arc::clone(&copy));
        Ok((copy, true))
    }

    fn sweep(&self, copies: &mut foldhash::HashMap<String, Arc<HttpSession>>) {
        *lock(&self.swept) = Instant::now();
        copies.retain(|_, copy| {
            let expired = copy.expired(self.limits.idle_timeout);
            if expired {
                copy.end();
            }
            !expired
        });
    }
}

/// Where the sessions are kept, and how many and for how long.
pub(crate) struct SessionSettings {
    /// The store; in memory when `None`.
    pub(crate) store: Option<Arc<dyn SessionStore>>,
    /// How many sessions may be live at once.
    pub(crate) max_sessions: usize,
    /// How long an unused session lives.
    pub(crate) idle_timeout: Duration,
    /// The unread bytes one event stream may hold.
    pub(crate) stream_buffer: usize,
}

/// The sessions of one [`McpService`](crate::transport::http::McpService).
pub(crate) struct Sessions {
    table: Arc<Table>,
}

impl Sessions {
    pub(crate) fn new(settings: SessionSettings) -> Self {
        let store = settings.store.unwrap_or_else(|| Arc::new(MemorySessionStore::new()));
        let table = Table {
            relay: Relay::new(Arc::clone(&store)),
            resumptions: Arc::default(),
            store,
            limits: SessionLimits::new(settings.max_sessions, settings.idle_timeout),
            stream_buffer: settings.stream_buffer,
            copies: Mutex::default(),
            swept: Mutex::new(Instant::now()),
            listening: AtomicBool::new(false),
        };
        Sessions { table: Arc::new(table) }
    }

    /// Starts listening to the other replicas, once, from within the runtime.
    fn listen(&self) {
        if !self.table.listening.swap(true, Ordering::AcqRel) {
            listen(&*self.table.store, Arc::downgrade(&self.table));
        }
    }

    /// Keeps a session `initialize` opened, and starts it.
    pub(crate) async fn open(&self, server: &Server, session: Session) -> Result<Arc<HttpSession>, Unavailable> {
        self.listen();
        let record = session.record();
        // Room here is taken first: a record no replica could serve would
        // hold a place in the store until it expired.
        let (copy, _) = self.table.hold(HttpSession::new(session, &self.table))?;
        if let Err(refused) = self.table.store.create(record, self.table.limits).await {
            self.table.drop_copy(copy.session.id());
            return Err(refused.into());
        }
        copy.start(server);
        Ok(copy)
    }

    /// The session with this id, as the store has it now, for `caller`
    /// (the request's verified caller, on an authenticated server); `None`
    /// once it ended or expired, for a version this runtime does not speak,
    /// and for a caller that is not its owner, which then neither keeps it
    /// alive nor changes anything of it.
    pub(crate) async fn get(
        &self,
        server: &Server,
        id: &str,
        caller: Option<&Principal>,
    ) -> Result<Option<Arc<HttpSession>>, Unavailable> {
        self.listen();
        if let Some(held) = self.table.held(id).filter(|held| !held.session.has_ended()) {
            // Before the store is asked: loading the record is a use.
            if !held.session.may_be_used_by(caller) {
                return Ok(None);
            }
            let seen = Some(held.seen.load(Ordering::Acquire)).filter(|&seen| seen != NO_REVISION);
            match self.table.store.touch(id, seen, self.table.limits).await? {
                Touched::Gone => {
                    self.table.drop_copy(id);
                    return Ok(None);
                }
                Touched::Unchanged => {}
                Touched::Changed(record, revision) => {
                    held.session.refresh(&record);
                    held.seen.store(revision.unwrap_or(NO_REVISION), Ordering::Release);
                }
            }
            held.session.touch();
            return Ok(Some(held));
        }
        // No copy here to tell the owner: the store compares before it
        // counts the use. Its `None` is not taken as the session's end, which
        // a stranger's request must not cause here.
        let owner = caller.map(SessionOwner::of);
        let Some(record) = self.table.store.load_for(id, owner.as_ref(), self.table.limits).await? else {
            return Ok(None);
        };
        let Some(session) = Session::from_record(&record) else { return Ok(None) };
        // A store that ignores the owner is not trusted with it.
        if !session.may_be_used_by(caller) {
            return Ok(None);
        }
        let (copy, new) = self.table.hold(HttpSession::new(session, &self.table))?;
        if new {
            copy.start(server);
        }
        Ok(Some(copy))
    }

    /// The events of a stream of `session` that another replica holds,
    /// from after `event_id`, forwarded by that replica; `None` when the id
    /// names no other replica, or the one it names keeps no such stream or
    /// does not answer.
    pub(crate) async fn resume_elsewhere(&self, session: &HttpSession, event_id: &str) -> Option<LiveReceiver> {
        let here = self.table.store.replica_id()?;
        let holder = resume::holder(event_id, here)?;
        let bound = Bound { bytes: self.table.stream_buffer, events: usize::MAX };
        self.table.resumptions.resume(&self.table.relay, (holder, bound), session.session.id(), event_id).await
    }

    /// Ends a session everywhere: its record is removed, this copy ended,
    /// and the other replicas told to end theirs. `false` if there was none
    /// by that id.
    pub(crate) async fn end(&self, id: &str) -> Result<bool, Unavailable> {
        let removed = self.table.store.remove(id).await?;
        self.table.drop_copy(id);
        self.table.relay.ended(id).await;
        Ok(removed)
    }
}

/// Acts on the signals the store delivers to this replica, for the
/// sessions it holds, until `table` is gone.
pub(super) fn listen(store: &dyn SessionStore, table: std::sync::Weak<Table>) {
    let (Some(here), Some(mut incoming)) = (store.replica_id().map(str::to_owned), store.subscribe()) else { return };
    tokio::spawn(async move {
        loop {
            let text = match incoming.recv().await {
                Ok(text) => text,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "missed messages from the other replicas");
                    continue;
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            };
            let Some(table) = table.upgrade() else { return };
            match serde_json::from_str::<Envelope>(&text) {
                Ok(envelope) if envelope.from != here => act(&table, envelope.from, envelope.signal),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "ignored a malformed message from another replica"),
            }
        }
    });
}

fn act(table: &Table, from: String, signal: Signal) {
    match signal {
        Signal::Answer { session, id, result, error } => {
            let outcome = match (result, error) {
                (_, Some(error)) => Err(error),
                (result, None) => Ok(result.unwrap_or(Value::Null)),
            };
            if let Some(held) = table.held(&session) {
                held.session.answer_here(&id, outcome);
            }
        }
        Signal::Cancel { session, request } => {
            if let (Some(held), Some(request)) = (table.held(&session), RequestId::from_json(&request.to_string())) {
                held.session.cancel_here(&request);
            }
        }
        Signal::Change { session, change } => {
            if let Some(held) = table.held(&session) {
                held.session.apply_here(&change);
            }
        }
        Signal::End { session } => table.drop_copy(&session),
        Signal::Resume { session, event, number } => {
            let found = table.held(&session).and_then(|held| {
                let (stream, after) = held.streams.find(&event)?;
                Some((stream, after, held.connection()))
            });
            table.resumptions.forward(&table.relay, found, from, number);
        }
        Signal::Forwarded { number, part } => {
            let last = matches!(part, Part::Ended | Part::Refused);
            if !table.resumptions.heard(number, part) && !last {
                let store = Arc::clone(&table.store);
                tokio::spawn(async move { Relay::detach(&*store, &from, number).await });
            }
        }
        Signal::Detach { number } => table.resumptions.detached(&from, number),
    }
}
