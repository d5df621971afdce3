//! [`Head`]: what a message travels with besides its body, which its
//! revision decides: HTTP headers for the HTTP transport, and for every
//! transport what hears the request's notifications.

use super::callbacks::SharedCallbacks;
use super::notices::Notices;

/// The headers a message travels with, which its revision decides.
// In process, only what hears the notifications is read.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(super) struct Head<'a> {
    /// `MCP-Protocol-Version`.
    pub(super) version: &'a str,
    /// `Mcp-Method`, and `Mcp-Name` when the request names a target
    /// (2026-07-28 only).
    pub(super) method: Option<(&'a str, Option<&'a str>)>,
    /// `Mcp-Session-Id`: a 2025-era session's requests.
    pub(super) session: Option<&'a str>,
    /// `Authorization: Bearer`.
    pub(super) bearer: Option<&'a str>,
    /// What answers the server's requests met on an event stream.
    pub(super) callbacks: &'a SharedCallbacks,
    /// What hears the notifications sent for the request (progress).
    pub(super) notices: Option<&'a Notices>,
    /// `Mcp-Param-*`: the arguments a called tool mirrors (2026-07-28).
    #[cfg(feature = "client")]
    pub(super) params: &'a [(http::HeaderName, http::HeaderValue)],
}
