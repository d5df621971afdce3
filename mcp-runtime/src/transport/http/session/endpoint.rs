//! [`SessionEndpoint`]: the 2025-era sessions of one HTTP endpoint, and
//! what serving them takes of the endpoint's settings.

use std::time::Duration;

use http::request::Parts;

use super::sessions::{SessionSettings, Sessions};
use crate::handler::principal::Principal;
use crate::server::Server;

/// The 2025-era side of an HTTP endpoint that serves that era.
pub(crate) struct SessionEndpoint {
    pub(crate) server: Server,
    pub(crate) sessions: Sessions,
    pub(crate) settings: EndpointSettings,
}

/// What a session's requests take of the endpoint's settings.
pub(crate) struct EndpointSettings {
    /// How long a request may run.
    pub(crate) request_timeout: Option<Duration>,
    /// Whether JSON is preferred to an event stream whenever the client takes both.
    pub(crate) buffered_responses: bool,
    /// How long a request that waits may hold back its head, to be answered
    /// as JSON if it ends having sent nothing.
    pub(crate) json_grace: Duration,
    /// The period of keep-alive comments on a quiet stream.
    pub(crate) sse_keep_alive: Option<Duration>,
    /// The Protected Resource Metadata's URL, named in a 403's challenge.
    pub(crate) resource_metadata: Option<String>,
}

impl SessionEndpoint {
    /// The sessions of `server`, kept as `sessions` says.
    pub(crate) fn new(server: Server, sessions: SessionSettings, settings: EndpointSettings) -> Self {
        SessionEndpoint { server, sessions: Sessions::new(sessions), settings }
    }

    /// The verified caller of a request, whose identity owns the sessions it
    /// begins: `None` on a server without authentication, where whatever a
    /// layer put into the extensions was never verified (as for handlers).
    pub(crate) fn caller<'a>(&self, parts: &'a Parts) -> Option<&'a Principal> {
        if !self.server.is_authenticated() {
            return None;
        }
        parts.extensions.get::<Principal>()
    }
}
