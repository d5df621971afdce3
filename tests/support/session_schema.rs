//! Validation of what a server sends on a 2025-era session against the
//! official 2025-11-25 JSON Schema (committed at
//! `tests/schemas/schema-2025-11-25.json`).
//!
//! A result is checked as a `JSONRPCResultResponse` and then against the
//! concrete result type of its method; an error as a
//! `JSONRPCErrorResponse`; a notification as a `ServerNotification`; a
//! request to the client as a `ServerRequest`. None of them may carry what
//! only the stateless revision defines (`resultType`, cache hints, the
//! per-result server info).

use serde_json::Value;

use crate::wire_schema::check_session;

/// The concrete result type of a method's answer on a session.
fn result_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => "EmptyResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        _ => return None,
    })
}

/// The members only the stateless revision defines, which a session's
/// results must not carry.
const STATELESS_ONLY: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// Checks one message a server sent on a session, in answer to (or during)
/// a request of `method`.
pub fn check_session_message(method: &str, message: &Value) -> Result<(), String> {
    let is_response = message.get("result").is_some() || message.get("error").is_some();
    match (message.get("method").is_some(), message.get("id").is_some(), is_response) {
        (true, true, _) => {
            check_session("JSONRPCRequest", message)?;
            check_session("ServerRequest", message)
        }
        (true, false, _) => {
            check_session("JSONRPCNotification", message)?;
            check_session("ServerNotification", message)
        }
        (false, _, true) if message.get("error").is_some() => check_session("JSONRPCErrorResponse", message),
        (false, _, true) => {
            check_session("JSONRPCResultResponse", message)?;
            let result = &message["result"];
            if let Some(member) = STATELESS_ONLY.iter().find(|m| result.get(**m).is_some()) {
                return Err(format!("a 2025-era result carries `{member}`: {message}"));
            }
            if result.get("_meta").and_then(|m| m.get("io.modelcontextprotocol/serverInfo")).is_some() {
                return Err(format!("a 2025-era result carries the per-result server info: {message}"));
            }
            let definition = result_definition(method)
                .ok_or_else(|| format!("`{method}` has no 2025-era result type, yet it succeeded: {message}"))?;
            check_session(definition, result)
        }
        _ => Err(format!("neither a request, a response nor a notification: {message}")),
    }
}

/// Checks a message whose request method is not at hand: its envelope
/// (request, notification, result or error, with its own definition for a
/// request or a notification), and that a result carries none of the
/// stateless revision's members.
pub fn check_session_envelope(message: &Value) -> Result<(), String> {
    let is_result = message.get("result").is_some() && message.get("method").is_none();
    if !is_result {
        return check_session_message("", message);
    }
    check_session("JSONRPCResultResponse", message)?;
    match STATELESS_ONLY.iter().find(|m| message["result"].get(**m).is_some()) {
        Some(member) => Err(format!("a 2025-era result carries `{member}`: {message}")),
        None => Ok(()),
    }
}

/// Panics unless `message` passes [`check_session_envelope`].
#[track_caller]
pub fn assert_valid_session_envelope(message: &Value) {
    if let Err(report) = check_session_envelope(message) {
        panic!("invalid 2025-era message: {report}");
    }
}

/// Panics unless `message` is valid on a session (see [`check_session_message`]).
#[track_caller]
pub fn assert_valid_session(method: &str, message: &Value) {
    if let Err(report) = check_session_message(method, message) {
        panic!("invalid 2025-era message for `{method}`: {report}");
    }
}
