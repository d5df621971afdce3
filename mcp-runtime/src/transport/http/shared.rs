//! What every request of one [`McpService`](super::McpService) shares: the
//! server, the settings, the 2025-era sessions, the in-flight count, the
//! token verifier.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;

use super::HttpConfig;
use crate::handler::caller::ClientAddress;
use crate::server::Server;
use crate::transport::http::in_flight::InFlight;
#[cfg(feature = "session")]
use crate::transport::http::session::SessionEndpoint;

/// The state of one service, behind one `Arc`.
pub(super) struct Shared {
    pub(super) server: Server,
    /// Whether every request is told its client's address (the server has
    /// layers or tasks, which ask who calls).
    pub(super) wants_client_address: bool,
    pub(super) config: HttpConfig,
    /// The 2025-era sessions, when the server serves that era.
    #[cfg(feature = "session")]
    pub(super) session: Option<SessionEndpoint>,
    /// Set when shutdown begins: the readiness probe answers 503 from then on.
    pub(super) draining: AtomicBool,
    /// The requests being handled, under [`HttpConfig::max_in_flight`].
    pub(super) in_flight: InFlight,
    /// The listen streams open, under [`HttpConfig::max_listen_streams`].
    pub(super) listen_limit: crate::transport::http::listen_limit::ListenLimit,
    /// The bearer-token verifier of a protected server.
    #[cfg(feature = "auth")]
    pub(super) auth: Option<std::sync::Arc<crate::auth::Verifier>>,
    /// The server card and the AI Catalog, when the server has a card.
    #[cfg(feature = "server-card")]
    pub(super) cards: Option<super::card::Cards>,
}

impl Shared {
    /// Puts the address of the client of the request `parts`, received
    /// from `peer`, into its extensions: the peer, or the address trusted
    /// proxies forwarded.
    pub(super) fn attach_client_address(&self, parts: &mut http::request::Parts, peer: SocketAddr) {
        let address = super::forwarded::client_address(peer, &parts.headers, self.config.trusted_proxies.as_ref());
        parts.extensions.insert(ClientAddress(address));
    }

    /// The URL of the Protected Resource Metadata this server publishes,
    /// when it verifies tokens itself.
    pub(super) fn resource_metadata_url(&self) -> Option<&str> {
        #[cfg(feature = "auth")]
        if let Some(verifier) = &self.auth {
            return Some(&verifier.metadata.url);
        }
        None
    }
}
