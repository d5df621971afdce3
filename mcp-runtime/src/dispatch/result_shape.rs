//! Results written in a shape other than 2026-07-28's, for a client that
//! reads an older one. The shape is chosen by whoever serves the request
//! ([`Prepared::answer_in`](super::Prepared::answer_in): the 2025-era
//! session bridge, one shape per version); the dispatcher applies it and
//! knows no revision's rules itself.
//!
//! A shaped result is written bare: its body and the handler's own
//! `_meta`, without what the stateless revision puts around it
//! (`resultType`, cache hints, the server's info). It is then sent as it
//! is, never read again.
// Without the `session` feature nothing chooses a shape: what applies one
// is compiled all the same, and checked in the builds that have sessions.
#![cfg_attr(not(feature = "session"), allow(dead_code))]

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::{CallToolResult, META_SERVER_INFO, ProtocolVersion};

/// How a request's results are written for a client that reads an older
/// shape than 2026-07-28's.
pub(crate) trait ResultShape: Send + Sync + 'static {
    /// The revision the shape writes for: the protocol version a layer
    /// sees, and the key under which a catalog keeps the definitions
    /// rewritten for it.
    fn version(&self) -> ProtocolVersion;

    /// A tool's complete result, before it is written.
    fn tool_result(&self, result: &mut CallToolResult);

    /// The definitions of a list (`key` names it) where any of them
    /// differs from the stateless definition; `None` when all are written
    /// as they are. Asked once per catalog and shape: the snapshot keeps
    /// the answer.
    fn list_items(&self, key: &str, items: &[&RawValue]) -> Option<Vec<Box<RawValue>>>;
}

/// A result body with the handler's own `_meta`, and nothing else.
#[derive(Serialize)]
pub(super) struct BareResult<'a, T> {
    #[serde(flatten)]
    body: &'a T,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Map<String, Value>>,
}

impl<'a, T> BareResult<'a, T> {
    /// The body and the handler's own `_meta` keys (the server's info is a
    /// 2026-07-28 member).
    pub(super) fn new(body: &'a T, own_meta: Option<Map<String, Value>>) -> Self {
        let meta = own_meta
            .map(|mut meta| {
                meta.remove(META_SERVER_INFO);
                meta
            })
            .filter(|meta| !meta.is_empty());
        BareResult { body, meta }
    }
}
