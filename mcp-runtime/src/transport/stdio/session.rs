//! The 2025-era lifecycle over stdio: the first `initialize` makes the
//! process a session, and from then on the lines without the 2026-07-28
//! `_meta` are the session's, the client's answers to our requests among
//! them. Lines with that `_meta` keep going to the stateless path.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::{ErrorObject, Method, RequestId};
use crate::server::Server;
use crate::session::bridge::{self, Delivery, failure, success};
use crate::session::destination::Destination;
use crate::session::initialize::initialize;
use crate::session::live::Session;
use crate::session::message::{self, Incoming, SessionRequest};
use crate::telemetry::{Ending, Origin};

/// What the transport does with one line.
pub(crate) enum Step {
    /// Serve it on the stateless path.
    Stateless,
    /// Nothing more: it was answered or needs no answer.
    Done,
    /// Serve it concurrently with the next lines (a request of the session).
    Spawn(Pin<Box<dyn Future<Output = ()> + Send>>),
}

/// The 2025-era side of one stdio process.
pub(crate) struct StdioSession {
    server: Server,
    out: Destination,
    session: Option<Arc<Session>>,
}

impl StdioSession {
    pub(crate) fn new(server: Server, out: Destination) -> Self {
        StdioSession { server, out, session: None }
    }

    /// Decides the era of one line and serves what belongs to the session.
    pub(crate) fn step(&mut self, line: &[u8]) -> Step {
        // Until a session exists only `initialize` and `ping` can be its:
        // other lines skip the second reading.
        if self.session.is_none() && !message::mentions_initialize(line) && !message::mentions_ping(line) {
            return Step::Stateless;
        }
        let Ok(message) = message::read(line) else { return Step::Stateless };
        if self.session.is_none() && !message.is_initialize() {
            // Before `initialize`, only a ping is the session's.
            return match message {
                Incoming::Request(request) if request.method == Method::Ping.name() => {
                    self.send(success(&request.id, &serde_json::json!({})));
                    Step::Done
                }
                _ => Step::Stateless,
            };
        }
        match message {
            Incoming::Stateless | Incoming::Unreadable => Step::Stateless,
            Incoming::Request(request) if request.method == Method::Initialize.name() => {
                self.initialize(&request.id, request.params.to_value().as_ref());
                Step::Done
            }
            Incoming::Request(request) => self.request(request),
            Incoming::Notification { method, params } => {
                self.notification(&method, message::value_of(params.as_deref()));
                Step::Done
            }
            Incoming::Answer { id, outcome } => {
                if let Some(session) = &self.session {
                    session.answer(&id, outcome);
                }
                Step::Done
            }
            Incoming::Batch(items) => self.batch(items),
        }
    }

    fn initialize(&mut self, id: &RequestId, params: Option<&Value>) {
        let mut observation = crate::session::observe::initialize(id, params, &Origin::stdio());
        if self.session.is_some() {
            let error = ErrorObject::invalid_request("The session is already initialized");
            observation.finish(Ending::Session(Err(&error)));
            return self.send(failure(Some(id), &error));
        }
        match initialize(&self.server, params) {
            Ok((session, result)) => {
                observation.session(session.id());
                observation.finish(Ending::Session(Ok(&result.to_string())));
                let session = Arc::new(session);
                session.set_standalone(Some(self.out.clone()));
                crate::session::events::watch(&self.server, &session);
                self.session = Some(session);
                self.send(success(id, &result));
            }
            Err(error) => {
                observation.finish(Ending::Session(Err(&error)));
                self.send(failure(Some(id), &error));
            }
        }
    }

    fn request(&self, request: SessionRequest) -> Step {
        let Some(session) = self.session.clone() else { return Step::Stateless };
        let server = self.server.clone();
        let out = self.out.clone();
        let cancel = session.begin(request.id.clone());
        Step::Spawn(Box::pin(async move {
            let via = Delivery::outlet(out.clone());
            if let Some(answer) = bridge::serve(&server, &session, request, cancel, &via).await {
                let _ = out.send(answer);
            }
        }))
    }

    fn notification(&self, method: &str, params: Option<Value>) {
        // A process's session is its own: a change needs no store.
        if let Some(session) = &self.session
            && let Some(change) = session.notified(method, params)
        {
            session.apply_here(&change);
        }
    }

    /// A 2025-03-26 batch: every request answered, the answers in one array.
    fn batch(&self, items: Vec<Box<RawValue>>) -> Step {
        let Some(session) = self.session.clone() else { return Step::Stateless };
        if !session.protocol_version().has_batches() {
            let error = ErrorObject::invalid_request("Batches are not supported after protocol version 2025-03-26");
            self.send(failure(None, &error));
            return Step::Done;
        }
        let server = self.server.clone();
        let out = self.out.clone();
        Step::Spawn(Box::pin(async move {
            let answers = crate::session::batch::serve(&server, &session, items, &Delivery::outlet(out.clone())).await;
            if !answers.is_empty() {
                let _ = out.send(format!("[{}]", answers.join(",")));
            }
        }))
    }

    fn send(&self, message: String) {
        let _ = self.out.send(message);
    }

    /// Ends the session (end of input).
    pub(crate) fn end(self) {
        if let Some(session) = &self.session {
            session.end();
        }
    }
}
