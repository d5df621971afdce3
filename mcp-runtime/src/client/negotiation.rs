//! Which revision a client speaks with its server: the stateless one
//! (2026-07-28), or a 2025-era session opened with `initialize`; chosen by
//! the user, or found out on the first request.

use serde_json::Value;

use super::error::Error;
use crate::protocol::ProtocolVersion;

/// The 2025-era revision a client offers in `initialize`.
#[deprecated(note = "use `mcp_runtime::protocol::ProtocolVersion::LATEST_SESSION`")]
pub const LEGACY_PROTOCOL_VERSION: &str = ProtocolVersion::LATEST_SESSION.as_str();

/// The revision a [`Client`](super::Client) speaks with its server.
///
/// ```
/// use mcp_runtime::client::{Client, Revision};
///
/// // A server known to speak only the 2025-era revisions.
/// let client = Client::http("http://127.0.0.1:3000/mcp").revision(Revision::Session);
/// # let _ = client;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Revision {
    /// 2026-07-28 if the server speaks it, found out with a
    /// `server/discover` before the first request; a server that refuses it
    /// (a JSON-RPC error, or an HTTP 4xx without one) is opened a 2025-era
    /// session instead, as the official SDKs do.
    #[default]
    Auto,
    /// 2026-07-28 only: every request self-describing, no session.
    Stateless,
    /// A 2025-era session: `initialize` offering
    /// [`ProtocolVersion::LATEST_SESSION`] (the server may answer 2025-06-18 or
    /// 2025-03-26), `notifications/initialized`, then every request in the
    /// session (`Mcp-Session-Id` over HTTP).
    Session,
}

#[allow(non_upper_case_globals)]
impl Revision {
    /// The former name of [`Revision::Stateless`].
    #[deprecated(note = "renamed `Revision::Stateless`")]
    pub const Modern: Revision = Revision::Stateless;

    /// The former name of [`Revision::Session`].
    #[deprecated(note = "renamed `Revision::Session`")]
    pub const Legacy: Revision = Revision::Session;
}

/// What the first request settled, for the life of the client.
#[derive(Debug)]
pub(super) enum Negotiated {
    Stateless,
    Session(OpenedSession),
}

/// A 2025-era session the client opened.
#[derive(Debug)]
pub(super) struct OpenedSession {
    /// The revision the server answered `initialize` with.
    pub(super) version: ProtocolVersion,
    /// `Mcp-Session-Id`, over HTTP when the server gave one.
    pub(super) id: Option<String>,
    /// The `initialize` result, as it came.
    pub(super) result: Value,
    /// What reads the session's standalone stream for the server's
    /// requests, over HTTP (`session_stream.rs`): stopped with the session.
    pub(super) stream: std::sync::Mutex<Option<tokio::task::AbortHandle>>,
}

impl Drop for OpenedSession {
    fn drop(&mut self) {
        if let Some(reader) = self.stream.get_mut().ok().and_then(Option::take) {
            reader.abort();
        }
    }
}

impl OpenedSession {
    /// The session the `initialize` result opens, if it names a revision
    /// this client speaks.
    pub(super) fn of(result: Value, id: Option<String>) -> Result<OpenedSession, Error> {
        let text = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
        let Some(version) = ProtocolVersion::parse(text).filter(|v| v.has_sessions()) else {
            return Err(Error::Invalid(format!(
                "the server answered `initialize` with protocol version {text:?}, which this client does not \
                 speak (it speaks {})",
                ProtocolVersion::SESSION.map(ProtocolVersion::as_str).join(", ")
            )));
        };
        Ok(OpenedSession { version, id, result, stream: std::sync::Mutex::default() })
    }
}

/// Whether the answer to a `server/discover` says the server does not
/// speak 2026-07-28 (so that a 2025-era session is the way in), rather
/// than that it cannot be reached.
pub(super) fn refuses_stateless(error: &Error) -> bool {
    match error {
        Error::Rpc(_) => true,
        Error::Http { status, .. } => (400..500).contains(status) && ![401, 403].contains(status),
        _ => false,
    }
}
