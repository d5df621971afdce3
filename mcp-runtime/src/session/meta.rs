//! What a session knows of its client, as the `_meta` a 2026-07-28 request
//! carries: made once per session (again only when the client changes its
//! log level), so that a session's request reaches the dispatcher with its
//! `_meta` ready rather than written out and read back at every call.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::live::Session;
use crate::protocol::{
    ErrorObject, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, PROTOCOL_VERSION,
    RequestMeta,
};

/// The `_meta` of one request of `session`: the session's, with the keys
/// of the client's own `params._meta` (a progress token, trace context)
/// beside them.
pub(crate) fn for_request(session: &Session, client: Option<&RawValue>) -> Result<Arc<RequestMeta>, ErrorObject> {
    let Some(client) = client else { return session.kept_meta(|session| read(write(session, Map::new()))) };
    // Anything but an object is no keys at all.
    let own = serde_json::from_str::<Map<String, Value>>(client.get()).unwrap_or_default();
    read(write(session, own)).map(Arc::new)
}

fn read(meta: Map<String, Value>) -> Result<RequestMeta, ErrorObject> {
    RequestMeta::from_value(meta)
        .map_err(|reason| ErrorObject::invalid_params(format!("Invalid `params._meta`: {reason}")))
}

/// What the session knows of the client, written into `meta` where a
/// 2026-07-28 request carries it; the keys already there stay unless
/// they are those.
fn write(session: &Session, mut meta: Map<String, Value>) -> Map<String, Value> {
    meta.insert(META_PROTOCOL_VERSION.to_owned(), Value::from(PROTOCOL_VERSION));
    let mut capabilities = serde_json::to_value(session.client_capabilities()).unwrap_or_else(|_| json!({}));
    if let Some(capabilities) = capabilities.as_object_mut() {
        // Of the extensions a 2025-era client names in `initialize`, only
        // interactive views and skills are that era's too; tasks, say, are not.
        super::initialize::only_session_extensions(capabilities);
    }
    meta.insert(META_CLIENT_CAPABILITIES.to_owned(), capabilities);
    match session.client_info().and_then(|info| serde_json::to_value(info).ok()) {
        Some(info) => meta.insert(META_CLIENT_INFO.to_owned(), info),
        None => meta.remove(META_CLIENT_INFO),
    };
    match session.log_level() {
        Some(level) => meta.insert(META_LOG_LEVEL.to_owned(), Value::from(level.as_str())),
        None => meta.remove(META_LOG_LEVEL),
    };
    meta
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel};

    fn session() -> Session {
        let info: Implementation = serde_json::from_value(json!({"name": "c", "version": "1"})).unwrap();
        Session::new(
            "s".into(),
            crate::protocol::ProtocolVersion::V2025_11_25,
            ClientCapabilities::default(),
            Some(info),
        )
    }

    #[test]
    fn the_session_meta_is_made_once_and_again_when_the_level_changes() {
        let session = session();
        let first = for_request(&session, None).unwrap();
        assert_eq!(first.protocol_version, PROTOCOL_VERSION);
        assert_eq!(first.client_info.as_ref().unwrap().name, "c");
        assert!(Arc::ptr_eq(&first, &for_request(&session, None).unwrap()));
        session.apply_here(&crate::session::store::SessionChange::LogLevel { level: LoggingLevel::Debug });
        let debug = for_request(&session, None).unwrap();
        assert_eq!(debug.log_level, Some(LoggingLevel::Debug));
        assert!(Arc::ptr_eq(&debug, &for_request(&session, None).unwrap()));
    }

    #[test]
    fn the_clients_own_keys_stay_beside_the_sessions() {
        let session = session();
        let own = RawValue::from_string(
            json!({"progressToken": 7, "trace": "t", META_PROTOCOL_VERSION: "1999-01-01"}).to_string(),
        )
        .unwrap();
        let meta = for_request(&session, Some(&own)).unwrap();
        assert_eq!(meta.protocol_version, PROTOCOL_VERSION);
        assert!(meta.progress_token.is_some());
        assert_eq!(meta.other.get("trace"), Some(&json!("t")));
        let bad = RawValue::from_string(r#"{"progressToken": {"not": "a token"}}"#.to_owned()).unwrap();
        let error = for_request(&session, Some(&bad)).unwrap_err();
        assert!(error.message.starts_with("Invalid `params._meta`"), "{}", error.message);
    }
}
