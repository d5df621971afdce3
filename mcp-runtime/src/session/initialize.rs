//! `initialize`: the version a 2025-era session speaks, and what the server
//! tells the client about itself once.

use serde_json::{Map, Value, json};

use super::live::{Session, new_session_id};
use crate::protocol::{ClientCapabilities, ErrorObject, Implementation, ProtocolVersion};
use crate::server::Server;

/// The version answered to a client asking for one not served: the newest
/// 2025-era one (2026-07-28 cannot be negotiated by `initialize`).
const LATEST: ProtocolVersion = ProtocolVersion::LATEST_SESSION;

/// The version a session speaks: the one asked for when it is served,
/// otherwise the newest served (a counter-offer, never an error).
pub(crate) fn negotiate(requested: Option<&str>) -> ProtocolVersion {
    requested.and_then(ProtocolVersion::parse).filter(|v| v.has_sessions()).unwrap_or(LATEST)
}

/// Opens a session from `initialize`'s params and builds its result.
pub(crate) fn initialize(server: &Server, params: Option<&Value>) -> Result<(Session, Value), ErrorObject> {
    let empty = Map::new();
    let params = match params {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(params)) => params,
        Some(_) => return Err(ErrorObject::invalid_params("`params` must be an object")),
    };
    // A version of another type breaks the schema: the client is told,
    // rather than read as asking for none. (None at all is answered with
    // the newest, as a version not served is.)
    let requested = match params.get("protocolVersion") {
        None => None,
        Some(Value::String(version)) => Some(version.as_str()),
        Some(other) => {
            return Err(ErrorObject::invalid_params(format!(
                "`protocolVersion` must be a string such as \"{LATEST}\", not {other}"
            )));
        }
    };
    let version = negotiate(requested);
    let capabilities: ClientCapabilities = match params.get("capabilities") {
        None => ClientCapabilities::default(),
        Some(caps) => serde_json::from_value(caps.clone())
            .map_err(|e| ErrorObject::invalid_params(format!("Invalid `capabilities`: {e}")))?,
    };
    let client_info: Option<Implementation> =
        params.get("clientInfo").and_then(|i| serde_json::from_value(i.clone()).ok());
    let id = new_session_id().ok_or_else(|| ErrorObject::internal("No random session id could be made"))?;
    let session = Session::new(id, version, capabilities, client_info);
    Ok((session, result(server, version)))
}

/// Keeps, of the `extensions` in `capabilities`, only those served to
/// 2025-era sessions too, which their hosts read in `initialize`:
/// interactive views (MCP Apps) and skills. The others (tasks) this server
/// serves in the stateless revision alone.
pub(crate) fn only_session_extensions(capabilities: &mut Map<String, Value>) {
    let Some(Value::Object(extensions)) = capabilities.get_mut("extensions") else {
        capabilities.remove("extensions");
        return;
    };
    extensions.retain(|name, _| name == crate::apps::EXTENSION || name == crate::protocol::SKILLS_EXTENSION);
    if extensions.is_empty() {
        capabilities.remove("extensions");
    }
}

/// The `InitializeResult` for a session on `version`.
fn result(server: &Server, version: ProtocolVersion) -> Value {
    let mut capabilities = serde_json::to_value(server.capabilities()).unwrap_or_else(|_| json!({}));
    if let Some(capabilities) = capabilities.as_object_mut() {
        only_session_extensions(capabilities);
    }
    let mut info = serde_json::to_value(server.info()).unwrap_or_else(|_| json!({}));
    if let Some(info) = info.as_object_mut() {
        if !version.knows_icons() {
            for newer in ["description", "icons", "websiteUrl"] {
                info.remove(newer);
            }
        }
        if !version.knows_titles() {
            info.remove("title");
        }
    }
    let mut result = json!({ "protocolVersion": version, "capabilities": capabilities, "serverInfo": info });
    if let Some(instructions) = server.instructions() {
        result["instructions"] = Value::from(instructions);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_served_version_is_echoed_and_any_other_countered() {
        for v in ProtocolVersion::SESSION {
            assert_eq!(negotiate(Some(v.as_str())), v);
        }
        for other in [None, Some("2024-11-05"), Some("2026-07-28"), Some("1.0.0")] {
            assert_eq!(negotiate(other), ProtocolVersion::V2025_11_25);
        }
    }
}
