//! Telling the eras apart, and reading a 2025-era message.
//!
//! A message carrying `params._meta["io.modelcontextprotocol/protocolVersion"]`
//! belongs to the stateless 2026-07-28 revision whatever else it carries;
//! everything else on a session is the session's. 2025-era messages are
//! read into [`Value`]s: that path is not the hot one, and it must also
//! take the client's answers to our requests, which the stateless reader
//! refuses.

use serde_json::Value;

use crate::protocol::{ErrorObject, META_PROTOCOL_VERSION, RequestId};

/// One message as a 2025-era session reads it.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A 2026-07-28 message (or one the stateless reader should refuse).
    Modern,
    /// A request.
    Request { id: RequestId, method: String, params: Option<Value> },
    /// A notification.
    Notification { method: String, params: Option<Value> },
    /// The client's answer to one of our requests.
    Answer { id: Value, outcome: Result<Value, ErrorObject> },
    /// Several messages in one (2025-03-26 only).
    Batch(Vec<Value>),
}

/// Whether `"initialize"` appears in the raw message, quotes included: a
/// vectorized search, no parsing, that lets a stateless message skip the
/// 2025-era reading. A false positive (the word inside some other string)
/// only costs that reading.
pub(crate) fn mentions_initialize(bytes: &[u8]) -> bool {
    mentions(bytes, b"\"initialize\"")
}

/// Whether `"ping"` appears in the raw message, quotes included (see
/// [`mentions_initialize`]).
#[cfg(feature = "stdio")]
pub(crate) fn mentions_ping(bytes: &[u8]) -> bool {
    mentions(bytes, b"\"ping\"")
}

fn mentions(bytes: &[u8], word: &[u8]) -> bool {
    memchr::memmem::find(bytes, word).is_some()
}

/// Whether the message carries the 2026-07-28 `_meta`.
pub(crate) fn is_modern(message: &Value) -> bool {
    message.get("params").and_then(|p| p.get("_meta")).and_then(|m| m.get(META_PROTOCOL_VERSION)).is_some()
}

/// Reads one message. Anything malformed is [`Incoming::Modern`]: the
/// stateless reader then answers it with the precise error.
pub(crate) fn read(message: Value) -> Incoming {
    let object = match message {
        Value::Array(items) if !items.is_empty() => return Incoming::Batch(items),
        Value::Object(object) => object,
        _ => return Incoming::Modern,
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Incoming::Modern;
    }
    let params = object.get("params").cloned();
    if params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(META_PROTOCOL_VERSION)).is_some() {
        return Incoming::Modern;
    }
    let id = object.get("id");
    match (object.get("method"), id) {
        (Some(Value::String(method)), None) => Incoming::Notification { method: method.clone(), params },
        (Some(Value::String(method)), Some(id)) => match RequestId::from_json(&id.to_string()) {
            Some(id) => Incoming::Request { id, method: method.clone(), params },
            None => Incoming::Modern,
        },
        (None, Some(id)) => {
            let outcome = match (object.get("result"), object.get("error")) {
                (Some(result), None) => Ok(result.clone()),
                (None, Some(error)) => Err(serde_json::from_value(error.clone())
                    .unwrap_or_else(|_| ErrorObject::internal("The client answered with a malformed error"))),
                _ => return Incoming::Modern,
            };
            Incoming::Answer { id: id.clone(), outcome }
        }
        _ => Incoming::Modern,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn initialize_is_found_only_as_a_string() {
        assert!(mentions_initialize(br#"{"jsonrpc":"2.0","id":1,"method": "initialize"}"#));
        assert!(!mentions_initialize(br#"{"method":"tools/call","params":{"name":"initializer"}}"#));
        assert!(!mentions_initialize(b"initialize"));
    }

    #[cfg(feature = "stdio")]
    #[test]
    fn ping_is_found_only_as_a_string() {
        assert!(mentions_ping(br#"{"method":"ping"}"#) && !mentions_ping(br#"{"method":"pings"}"#));
    }

    #[test]
    fn the_stateless_meta_decides_the_era() {
        let modern = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}});
        assert!(is_modern(&modern));
        assert!(matches!(read(modern), Incoming::Modern));
        let legacy =
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"progressToken": 1}}});
        assert!(matches!(read(legacy), Incoming::Request { method, .. } if method == "tools/list"));
    }

    #[test]
    fn answers_notifications_and_batches_are_told_apart() {
        assert!(matches!(
            read(json!({"jsonrpc": "2.0", "id": 3, "result": {}})),
            Incoming::Answer { outcome: Ok(_), .. }
        ));
        let error = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "User rejected"}});
        assert!(matches!(read(error), Incoming::Answer { outcome: Err(e), .. } if e.code == -1));
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert!(matches!(read(note), Incoming::Notification { .. }));
        assert!(
            matches!(read(json!([{"jsonrpc": "2.0", "method": "ping", "id": 1}])), Incoming::Batch(items) if items.len() == 1)
        );
        assert!(matches!(read(json!({"jsonrpc": "1.0", "id": 1, "method": "ping"})), Incoming::Modern));
    }
}
