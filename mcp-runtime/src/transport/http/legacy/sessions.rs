//! The 2025-era sessions of one endpoint, by `Mcp-Session-Id`.
//!
//! Kept in memory, within two bounds so that a flood of `initialize` cannot
//! grow them without end: at most [`max_sessions`] live at once (one more
//! `initialize` is answered 503, and no live session is evicted for it:
//! under a flood the clients already served keep working), and a session
//! that no request and no open stream used for
//! [`session_idle_timeout`] is ended. Expiry is checked when a session is
//! looked up, and on every table once in a while when one is opened, so no
//! background task is needed.
//!
//! [`max_sessions`]: crate::transport::http::HttpConfig::max_sessions
//! [`session_idle_timeout`]: crate::transport::http::HttpConfig::session_idle_timeout

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::stream::Streams;
use crate::legacy::Session;
use crate::legacy::events;
use crate::legacy::session::Outlet;
use crate::server::Server;
use crate::transport::http::HttpConfig;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// One session as HTTP serves it: the session, and its event streams.
pub(crate) struct HttpSession {
    pub(crate) session: Arc<Session>,
    pub(crate) streams: Streams,
    /// Messages for the standalone stream; also where a request answered
    /// with plain JSON sends its own messages, having no stream of its own.
    standalone: Outlet,
    /// Until [`start`](Self::start), the other end of `standalone`.
    pending: Mutex<Option<mpsc::UnboundedReceiver<String>>>,
    /// Connections reading one of its streams: while one is open the
    /// session is in use, however long since its last request.
    open: AtomicUsize,
}

impl HttpSession {
    pub(crate) fn new(session: Session) -> Arc<Self> {
        let session = Arc::new(session);
        let streams = Streams::new(session.protocol_version() == "2025-11-25");
        let (standalone, pending) = mpsc::unbounded_channel();
        session.set_standalone(Some(standalone.clone()));
        Arc::new(HttpSession {
            session,
            streams,
            standalone,
            pending: Mutex::new(Some(pending)),
            open: AtomicUsize::new(0),
        })
    }

    /// Starts forwarding to the standalone stream what the session sends
    /// there, and the server's changes; until the session ends or the
    /// server [closes its streams](Server::close_streams).
    pub(crate) fn start(&self, server: &Server) {
        let Some(mut messages) = lock(&self.pending).take() else { return };
        let stream = Arc::clone(self.streams.standalone());
        let session = Arc::clone(&self.session);
        let closing = server.closing().clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = session.ended() => return,
                    // The server shuts down: the stream ends, so that its
                    // connection does not hold the shutdown up.
                    () = closing.cancelled() => return stream.finish(),
                    message = messages.recv() => match message {
                        Some(message) => stream.push(&message),
                        None => return,
                    },
                }
            }
        });
        events::watch(server, &self.session);
    }

    pub(crate) fn standalone_outlet(&self) -> Outlet {
        self.standalone.clone()
    }

    /// Marks a connection open on one of its streams until the value is dropped.
    pub(crate) fn connection(self: &Arc<Self>) -> OpenConnection {
        self.open.fetch_add(1, Ordering::AcqRel);
        OpenConnection(Arc::clone(self))
    }

    /// Ends the session: its requests are cancelled, its streams and their
    /// connections end.
    pub(crate) fn end(&self) {
        self.session.end();
        self.streams.close_all();
    }

    fn expired(&self, idle: Duration) -> bool {
        self.session.has_ended() || (self.open.load(Ordering::Acquire) == 0 && self.session.idle_for() >= idle)
    }
}

/// A connection reading one of a session's streams; the session counts as
/// used from its closing.
pub(crate) struct OpenConnection(Arc<HttpSession>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
        self.0.session.touch();
    }
}

/// Why a session could not be kept.
#[derive(Debug)]
pub(crate) struct Full;

/// Where an endpoint's sessions are kept.
///
/// A session is more than data: server→client requests wait on it, and its
/// streams are channels to open connections. Only the process serving it
/// can hold that, which is why sessions are kept in memory; a store shared
/// by several replicas would have to keep what can be shared (the
/// negotiated version, capabilities, log level, subscriptions) and route
/// each request to the replica holding the rest (sticky routing by
/// `Mcp-Session-Id`).
pub(crate) trait SessionStore: Send + Sync {
    /// Keeps a new session, unless as many as allowed are live.
    fn insert(&self, session: Arc<HttpSession>) -> Result<(), Full>;
    /// The live session with this id; an expired one is ended and forgotten.
    fn get(&self, id: &str) -> Option<Arc<HttpSession>>;
    /// Forgets a session, returning it (its caller ends it).
    fn remove(&self, id: &str) -> Option<Arc<HttpSession>>;
}

/// The sessions of one process, in a map.
pub(crate) struct MemoryStore {
    max: usize,
    idle: Duration,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    swept: Mutex<Instant>,
}

impl MemoryStore {
    pub(crate) fn new(max: usize, idle: Duration) -> Self {
        MemoryStore { max: max.max(1), idle, sessions: Mutex::default(), swept: Mutex::new(Instant::now()) }
    }

    /// How often the whole table is checked for expired sessions.
    fn sweep_every(&self) -> Duration {
        self.idle.min(Duration::from_secs(60))
    }

    fn sweep(&self, sessions: &mut HashMap<String, Arc<HttpSession>>) {
        *lock(&self.swept) = Instant::now();
        sessions.retain(|_, session| {
            let expired = session.expired(self.idle);
            if expired {
                session.end();
            }
            !expired
        });
    }
}

impl SessionStore for MemoryStore {
    fn insert(&self, session: Arc<HttpSession>) -> Result<(), Full> {
        let mut sessions = lock(&self.sessions);
        let due = lock(&self.swept).elapsed() >= self.sweep_every();
        if due || sessions.len() >= self.max {
            self.sweep(&mut sessions);
        }
        if sessions.len() >= self.max {
            return Err(Full);
        }
        sessions.insert(session.session.id().to_owned(), session);
        Ok(())
    }

    fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        let mut sessions = lock(&self.sessions);
        let session = sessions.get(id)?;
        if session.expired(self.idle) {
            session.end();
            sessions.remove(id);
            return None;
        }
        Some(Arc::clone(session))
    }

    fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        lock(&self.sessions).remove(id)
    }
}

/// The sessions of one [`McpService`](crate::transport::http::McpService).
pub(crate) struct Sessions {
    store: Box<dyn SessionStore>,
}

impl Sessions {
    pub(crate) fn new(config: &HttpConfig) -> Self {
        Sessions { store: Box::new(MemoryStore::new(config.max_sessions, config.session_idle_timeout)) }
    }

    pub(crate) fn insert(&self, session: Arc<HttpSession>) -> Result<(), Full> {
        self.store.insert(session)
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.store.get(id)
    }

    /// Ends a session and forgets it; `false` if there was none by that id.
    pub(crate) fn end(&self, id: &str) -> bool {
        let Some(session) = self.store.remove(id) else { return false };
        session.end();
        true
    }
}
