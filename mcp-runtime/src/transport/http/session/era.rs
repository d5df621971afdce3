//! Which era one POST belongs to, on an endpoint that serves both.
//!
//! In order: a body carrying the 2026-07-28 `_meta` is stateless, whatever
//! else the request carries (a stray `Mcp-Session-Id` included); a 2025-era
//! `initialize` opens a session; an `Mcp-Session-Id` names the session the
//! request belongs to (looked up next: 404 when it names none); a 2025-era
//! `MCP-Protocol-Version` without a session id is refused (400: the session
//! id is required); anything else is stateless.
//!
//! The stateless revision's requests carry neither header and never
//! mention `initialize`, so they are told apart without reading the body
//! as JSON: the stateless path reads it once, as before.

use http::{HeaderMap, HeaderName, StatusCode};

use super::replies::error_response;
use crate::protocol::{ErrorObject, Method, ProtocolVersion};
use crate::session::message::{self, Incoming};
use crate::transport::http::body::McpBody;
use crate::transport::http::responses::transport_error;

/// `Mcp-Session-Id`.
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// The longest `Mcp-Session-Id` looked up: the ids minted here are 32 hex
/// digits, so a longer one names no session and never reaches the store.
pub(super) const MAX_SESSION_ID_LEN: usize = 256;

/// `MCP-Protocol-Version`.
pub(super) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// What to do with one POST.
pub(crate) enum Era {
    /// The stateless pipeline.
    Stateless,
    /// A 2025-era `initialize`: a new session.
    Initialize(Incoming),
    /// A message of the session this id names.
    Session(String, Incoming),
    /// Refused before any session sees it.
    Refused(http::Response<McpBody>),
}

/// Decides the era of a POST from its headers and body.
pub(super) fn choose(headers: &HeaderMap, body: &[u8]) -> Era {
    let marks = EraHeaders::of(headers);
    let session_id = marks.session_id;
    let session_header = marks.version.is_some_and(|v| ProtocolVersion::names_session_era(v.as_bytes()));
    // A 2026-07-28 request names its method in `Mcp-Method`: unless that
    // says `initialize`, its body need not be searched.
    let may_initialize = marks.method.is_none_or(|m| m.as_bytes() == Method::Initialize.name().as_bytes());
    if session_id.is_none() && !session_header && !(may_initialize && message::mentions_initialize(body)) {
        return Era::Stateless;
    }
    let message = match message::read(body) {
        Ok(message) => message,
        // Unreadable: the stateless path says why, unless a session's.
        Err(e) if session_id.is_some() => {
            let error = ErrorObject::parse_error(format!("The body is not JSON: {e}"));
            return Era::Refused(error_response(StatusCode::BAD_REQUEST, None, &error));
        }
        Err(_) => return Era::Stateless,
    };
    if matches!(message, Incoming::Stateless) {
        return Era::Stateless;
    }
    match session_id {
        Some(id) => match id.to_str() {
            Ok(id) if id.len() <= MAX_SESSION_ID_LEN => Era::Session(id.to_owned(), message),
            _ => Era::Refused(not_found()),
        },
        None if message.is_initialize() => Era::Initialize(message),
        None if session_header => Era::Refused(transport_error(
            StatusCode::BAD_REQUEST,
            "Mcp-Session-Id required: send the session id the `initialize` response gave, or `initialize` first",
        )),
        None => Era::Stateless,
    }
}

/// 404 for a session id that names no live session: the client must
/// `initialize` again.
pub(super) fn not_found() -> http::Response<McpBody> {
    let error = ErrorObject { code: -32001, message: "Session not found".to_owned(), data: None };
    error_response(StatusCode::NOT_FOUND, None, &error)
}

/// The headers that tell the eras apart, found in one walk over the
/// headers (cheaper than a lookup by name for each).
struct EraHeaders<'a> {
    session_id: Option<&'a http::HeaderValue>,
    version: Option<&'a http::HeaderValue>,
    method: Option<&'a http::HeaderValue>,
}

impl<'a> EraHeaders<'a> {
    fn of(headers: &'a HeaderMap) -> Self {
        let mut marks = EraHeaders { session_id: None, version: None, method: None };
        for (name, value) in headers {
            let slot = match name.as_str() {
                "mcp-session-id" => &mut marks.session_id,
                "mcp-protocol-version" => &mut marks.version,
                "mcp-method" => &mut marks.method,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_naming_another_method_in_its_header_is_not_searched() {
        let mut headers = HeaderMap::new();
        headers.insert("mcp-method", http::HeaderValue::from_static("tools/call"));
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        assert!(matches!(choose(&headers, body), Era::Stateless));
        headers.insert("mcp-method", http::HeaderValue::from_static("initialize"));
        assert!(matches!(choose(&headers, body), Era::Initialize(_)));
    }

    #[test]
    fn a_session_id_longer_than_any_minted_names_no_session() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
        let mut headers = HeaderMap::new();
        let id = "a".repeat(MAX_SESSION_ID_LEN);
        headers.insert(SESSION_ID, http::HeaderValue::from_str(&id).expect("visible ASCII"));
        assert!(matches!(choose(&headers, body), Era::Session(..)));
        let id = "a".repeat(MAX_SESSION_ID_LEN + 1);
        headers.insert(SESSION_ID, http::HeaderValue::from_str(&id).expect("visible ASCII"));
        let Era::Refused(response) = choose(&headers, body) else { panic!("a long id is refused") };
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }
}
