//! The internal readers, reachable from the fuzz targets under `fuzz/`
//! (the `fuzzing` feature); not public API, and not covered by semver.
//!
//! Each function runs one reader on input from outside exactly as the
//! runtime runs it, so that a fuzz target exercises the code a request
//! reaches and nothing else.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::{ErrorObject, RequestMeta};

/// The envelope reader: bytes → one request or notification, or the
/// error response a client gets.
pub fn parse_message(bytes: &[u8]) -> Result<crate::dispatch::Message, Box<crate::dispatch::Response>> {
    crate::dispatch::parse_message(bytes)
}

/// The `_meta` reader ([`RequestMeta::from_json`]) through the per-thread
/// cache the dispatcher reads it with.
pub fn read_meta(text: &str) -> Result<std::sync::Arc<RequestMeta>, String> {
    crate::dispatch::fuzzing::read_meta(text)
}

/// The params head of a request of `method`: its `_meta` and the member
/// naming its target (`name`, `uri` or `taskId`), as the dispatcher reads
/// them before routing.
pub fn read_params_head(
    method: &str,
    params: Option<&RawValue>,
) -> Result<(std::sync::Arc<RequestMeta>, Option<String>), ErrorObject> {
    crate::dispatch::fuzzing::read_params_head(method, params)
}

/// Decodes a header value: the Base64 sentinel `=?base64?…?=` or the
/// literal text.
#[cfg(feature = "http")]
pub fn decode_header_value(value: &str) -> Result<std::borrow::Cow<'_, str>, &'static str> {
    crate::transport::http::fuzzing::decode_header_value(value)
}

/// The HTTP header checks of one request against its body: the standard
/// headers against `method`, `protocol_version` and `name`, then, for a
/// tool whose input schema is `input_schema`, the `Mcp-Param-*` headers
/// against `arguments`. An input schema whose annotations break the rules
/// is `Ok(None)`: a server with it would not start.
#[cfg(feature = "http")]
pub fn check_headers(
    headers: &http::HeaderMap,
    method: &str,
    protocol_version: &str,
    name: Option<&str>,
    input_schema: &Map<String, Value>,
    arguments: Option<&RawValue>,
) -> Option<Result<(), ErrorObject>> {
    crate::transport::http::fuzzing::check_headers(headers, method, protocol_version, name, input_schema, arguments)
}

/// Decodes a list cursor of `list` (`tools`, `prompts`, `resources`,
/// `templates`): the sort key of the last item of the page before.
pub fn decode_cursor(cursor: &str, list: &str) -> Result<Option<(String, String)>, ErrorObject> {
    crate::dispatch::fuzzing::decode_cursor(cursor, list)
}

/// The cursor of the page after the item of sort key `last` in `list`.
pub fn encode_cursor(list: &str, last: (&str, &str)) -> String {
    crate::dispatch::fuzzing::encode_cursor(list, last)
}

/// Opens a `requestState` sealed with `key` for `method` on `target`:
/// the answers and the handler's state it carries.
pub fn open_request_state(
    key: &crate::server::RequestStateKey,
    method: &str,
    target: &str,
    digest: Option<&str>,
    sealed: &str,
) -> Result<(Map<String, Value>, Option<Value>), ErrorObject> {
    key.open(method, target, digest, None, sealed).map(|opened| (opened.state.answers, opened.state.app))
}

/// Seals a `requestState` for `method` on `target`, as a round trip does.
pub fn seal_request_state(
    key: &crate::server::RequestStateKey,
    method: &str,
    target: &str,
    digest: Option<&str>,
    answers: Map<String, Value>,
    app: Option<Value>,
) -> String {
    key.seal(method, target, digest, None, &crate::input::request_state::SealedState { answers, app })
}

/// Reads a `Last-Event-ID` as a 2025-era session over HTTP does: the
/// stream it names among a session's streams (with `open` request streams
/// opened first, and event ids naming `replica` when set), and the replica
/// holding it when another one does.
#[cfg(feature = "http")]
pub fn read_last_event_id(event_id: &str, replica: Option<&str>, open: usize) -> (Option<u64>, Option<String>) {
    crate::transport::http::fuzzing::read_last_event_id(event_id, replica, open)
}
