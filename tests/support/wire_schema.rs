//! Validation of emitted messages against the official JSON Schema of
//! revision 2026-07-28.
//!
//! The schema is the verbatim copy of the published one committed at
//! `tests/schemas/schema-2026-07-28.json` (origin and SHA-256 in
//! `tests/schemas/README.md`, checked by a test so that it only changes on
//! purpose), or the file named by the `MCP_SPEC_SCHEMA` environment variable.
//!
//! Each check picks the most specific `$defs` entry for the message:
//!
//! - a result is validated as the method's `*ResultResponse`, and then its
//!   `result` alone against the concrete result type its `resultType`
//!   names, because the schema's `anyOf` with `InputRequiredResult` (which
//!   only requires `resultType`) would otherwise accept almost anything;
//! - an error as `JSONRPCErrorResponse` plus the definition of its code
//!   (`ParseError`, `UnsupportedProtocolVersionError`, ...);
//! - a notification as `ServerNotification`, which admits only the methods a
//!   server may send, each with its params.
//!
//! ```no_run
//! use mcp_tests::wire_schema::assert_valid_response;
//! let response = serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}});
//! assert_valid_response("ping", &response);
//! ```

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::{Draft, Validator};
use serde_json::{Value, json};

/// Environment variable naming another copy of the schema file.
pub const SCHEMA_ENV: &str = "MCP_SPEC_SCHEMA";

/// The folder holding the committed copies of the official schemas.
pub fn schemas_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

/// Where the schema is read from: `$MCP_SPEC_SCHEMA`, else the committed
/// copy in [`schemas_dir`].
pub fn schema_path() -> PathBuf {
    match std::env::var_os(SCHEMA_ENV) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => schemas_dir().join("schema-2026-07-28.json"),
    }
}

struct WireSchema {
    document: Value,
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

impl WireSchema {
    fn load(path: &std::path::Path) -> Self {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
            panic!("cannot read the JSON Schema at {} ({e}); set {SCHEMA_ENV} to its path", path.display())
        });
        let document: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        assert!(document["$defs"].is_object(), "{} has no `$defs`", path.display());
        WireSchema { document, validators: Mutex::new(HashMap::new()) }
    }

    /// The compiled validator of one `$defs` entry, cached.
    fn validator(&self, definition: &str) -> Arc<Validator> {
        let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = cache.get(definition) {
            return Arc::clone(v);
        }
        assert!(self.document["$defs"].get(definition).is_some(), "the schema has no definition `{definition}`");
        // The whole document with a root `$ref`, so every internal reference resolves.
        let mut root = self.document.clone();
        root["$ref"] = Value::String(format!("#/$defs/{definition}"));
        let compiled = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .build(&root)
            .unwrap_or_else(|e| panic!("the schema definition `{definition}` does not compile: {e}"));
        let compiled = Arc::new(compiled);
        cache.insert(definition.to_owned(), Arc::clone(&compiled));
        compiled
    }

    /// Checks `instance` against the `$defs` entry `definition`; the error
    /// lists every violation with its location.
    fn check(&self, definition: &str, instance: &Value) -> Result<(), String> {
        let problems: Vec<String> = self
            .validator(definition)
            .iter_errors(instance)
            .map(|e| {
                let at = e.instance_path.to_string();
                format!("  at `{}`: {e}", if at.is_empty() { "/" } else { &at })
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!("not a valid `{definition}`:\n{}\nmessage: {instance}", problems.join("\n")))
        }
    }
}

fn wire_schema() -> &'static WireSchema {
    static SCHEMA: OnceLock<WireSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| WireSchema::load(&schema_path()))
}

/// The 2025-11-25 schema, committed beside the 2026-07-28 one: what a
/// 2025-era session's messages are checked against.
fn session_schema() -> &'static WireSchema {
    static SCHEMA: OnceLock<WireSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| WireSchema::load(&schemas_dir().join("schema-2025-11-25.json")))
}

/// Checks `instance` against the `$defs` entry `definition` of the
/// 2026-07-28 schema; the error lists every violation with its location.
pub fn check(definition: &str, instance: &Value) -> Result<(), String> {
    wire_schema().check(definition, instance)
}

/// [`check`] against the 2025-11-25 schema.
pub fn check_session(definition: &str, instance: &Value) -> Result<(), String> {
    session_schema().check(definition, instance)
}

/// Panics unless `instance` is a valid `definition`.
#[track_caller]
pub fn assert_valid(definition: &str, instance: &Value) {
    if let Err(report) = check(definition, instance) {
        panic!("{report}");
    }
}

/// The `*ResultResponse` definition and the concrete result type of a
/// method's successful response, and whether the method may answer with an
/// `InputRequiredResult`.
fn result_definitions(method: &str) -> Option<(&'static str, &'static str, bool)> {
    Some(match method {
        "server/discover" => ("DiscoverResultResponse", "DiscoverResult", false),
        "tools/list" => ("ListToolsResultResponse", "ListToolsResult", false),
        "tools/call" => ("CallToolResultResponse", "CallToolResult", true),
        "prompts/list" => ("ListPromptsResultResponse", "ListPromptsResult", false),
        "prompts/get" => ("GetPromptResultResponse", "GetPromptResult", true),
        "resources/list" => ("ListResourcesResultResponse", "ListResourcesResult", false),
        "resources/templates/list" => ("ListResourceTemplatesResultResponse", "ListResourceTemplatesResult", false),
        "resources/read" => ("ReadResourceResultResponse", "ReadResourceResult", true),
        "completion/complete" => ("CompleteResultResponse", "CompleteResult", false),
        "subscriptions/listen" => ("SubscriptionsListenResultResponse", "SubscriptionsListenResult", false),
        _ => return None,
    })
}

/// The definition an error code must also satisfy, and whether it applies
/// to the whole response (`true`) or to its `error` member (`false`).
fn error_definition(code: i64) -> Result<(&'static str, bool), String> {
    Ok(match code {
        -32700 => ("ParseError", false),
        -32600 => ("InvalidRequestError", false),
        -32601 => ("MethodNotFoundError", false),
        -32602 => ("InvalidParamsError", false),
        -32603 => ("InternalError", false),
        -32020 => ("HeaderMismatchError", true),
        -32021 => ("MissingRequiredClientCapabilityError", true),
        -32022 => ("UnsupportedProtocolVersionError", true),
        // The revision reserves -32000..=-32099 (and JSON-RPC -32768..=-32000)
        // for codes with a defined meaning; we may emit only those above.
        c if (-32768..=-32000).contains(&c) => return Err(format!("error code {c} is reserved and not ours to emit")),
        _ => ("Error", false),
    })
}

/// Checks a JSON-RPC error response: the envelope, then the definition of
/// its code.
pub fn check_error(response: &Value) -> Result<(), String> {
    check("JSONRPCErrorResponse", response)?;
    if response.get("id").is_some_and(Value::is_null) {
        return Err(format!("an error response carries `id: null`: {response}"));
    }
    let code = response["error"]["code"].as_i64().ok_or_else(|| format!("no integer error code: {response}"))?;
    let (definition, whole) = error_definition(code)?;
    if whole { check(definition, response) } else { check(definition, &response["error"]) }
}

/// Checks the response to a request of `method`: a result of the method's
/// type, or an error.
pub fn check_response(method: &str, response: &Value) -> Result<(), String> {
    if response.get("error").is_some() {
        return check_error(response);
    }
    let (envelope, complete, may_ask) = result_definitions(method)
        .ok_or_else(|| format!("`{method}` has no result type, yet it succeeded: {response}"))?;
    check(envelope, response)?;
    let result = &response["result"];
    match result["resultType"].as_str() {
        Some("complete") => check(complete, result),
        Some("input_required") if may_ask => {
            check("InputRequiredResult", result)?;
            if result.get("inputRequests").is_none() && result.get("requestState").is_none() {
                return Err(format!("an input_required result needs inputRequests or requestState: {result}"));
            }
            Ok(())
        }
        other => Err(format!("`{method}` answered with resultType {other:?}: {result}")),
    }
}

/// Checks a notification the server sends.
pub fn check_notification(notification: &Value) -> Result<(), String> {
    if notification.get("id").is_some() {
        return Err(format!("a notification must not carry an id: {notification}"));
    }
    check("JSONRPCNotification", notification)?;
    check("ServerNotification", notification)
}

/// Checks any message the server emits in answer to a request of `method`
/// (a notification of that request or its response). A server never sends
/// requests.
pub fn check_message(method: &str, message: &Value) -> Result<(), String> {
    let is_response = message.get("result").is_some() || message.get("error").is_some();
    match (message.get("method").is_some(), message.get("id").is_some(), is_response) {
        (true, true, _) => Err(format!("a server never sends requests: {message}")),
        (true, false, _) => check_notification(message),
        (false, _, true) => check_response(method, message),
        _ => Err(format!("neither a response nor a notification: {message}")),
    }
}

/// Panics unless `response` is a valid answer to a request of `method`.
#[track_caller]
pub fn assert_valid_response(method: &str, response: &Value) {
    if let Err(report) = check_response(method, response) {
        panic!("invalid response to `{method}`: {report}");
    }
}

/// Panics unless `response` is a valid error response (whatever the method).
#[track_caller]
pub fn assert_valid_error(response: &Value) {
    if let Err(report) = check_error(response) {
        panic!("invalid error response: {report}");
    }
}

/// Panics unless `notification` is a valid server notification.
#[track_caller]
pub fn assert_valid_notification(notification: &Value) {
    if let Err(report) = check_notification(notification) {
        panic!("invalid notification: {report}");
    }
}

/// Panics unless `message` is a valid notification or response for a
/// request of `method`.
#[track_caller]
pub fn assert_valid_message(method: &str, message: &Value) {
    if let Err(report) = check_message(method, message) {
        panic!("invalid message for `{method}`: {report}");
    }
}

/// The message as the schema must judge it.
///
/// serde_json reads an integer beyond 64 bits as a float, which the schema's
/// `RequestId` (string or integer) would reject although the wire text is an
/// integer. Such an id is checked here as text and stands as `0` for the
/// schema.
fn schema_view(text: &str, message: &Value) -> Result<Value, String> {
    #[derive(serde::Deserialize)]
    struct Id<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    let id_is_float =
        message.get("id").is_some_and(|id| id.as_f64().is_some() && id.as_i64().is_none() && id.as_u64().is_none());
    if !id_is_float {
        return Ok(message.clone());
    }
    let raw =
        serde_json::from_str::<Id<'_>>(text).ok().and_then(|h| h.id).map(|r| r.get().to_owned()).unwrap_or_default();
    let digits = raw.strip_prefix('-').unwrap_or(&raw);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("the id `{raw}` is not an integer: {text}"));
    }
    let mut view = message.clone();
    view["id"] = json!(0);
    Ok(view)
}

/// Parses one emitted message and checks it (see [`check_message`]): one
/// line of JSON, valid for a request of `method`. Returns the message.
pub fn check_text(method: &str, text: &str) -> Result<Value, String> {
    if text.contains('\n') || text.contains('\r') {
        return Err(format!("a message spans lines: {text:?}"));
    }
    let message: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {text:?}"))?;
    check_message(method, &schema_view(text, &message)?)?;
    Ok(message)
}

/// Parses one emitted error response and checks it (see [`check_error`]),
/// judging an id beyond 64 bits by its wire text as [`check_text`] does.
pub fn check_error_text(text: &str) -> Result<Value, String> {
    let response: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {text:?}"))?;
    check_error(&schema_view(text, &response)?)?;
    Ok(response)
}

/// Parses one line of the stdio transport and checks it: a single JSON value
/// with no embedded newline, valid for a request of `method`.
#[track_caller]
pub fn assert_valid_line(method: &str, line: &str) -> Value {
    check_text(method, line).unwrap_or_else(|report| panic!("invalid line for `{method}`: {report}"))
}

/// The `params._meta` a conforming client sends, without capabilities.
pub fn request_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "wire-test", "version": "0.0.1"}
    })
}

/// Reads one server-sent event of a response to a request of `method` and
/// checks the message it carries (see [`check_message`]). A comment (a
/// keep-alive) carries none: `Ok(None)`. Every line of the event must be a
/// `data:` field or a comment; its terminating blank line may be included.
pub fn check_event(method: &str, event: &str) -> Result<Option<Value>, String> {
    let mut data = Vec::new();
    for line in event.lines() {
        // A comment, or the blank line that ends the event.
        if line.is_empty() || line.starts_with(':') {
            continue;
        }
        let payload = line.strip_prefix("data:").ok_or_else(|| format!("not a data line: {line:?}"))?;
        data.push(payload.strip_prefix(' ').unwrap_or(payload));
    }
    if data.is_empty() {
        return Ok(None);
    }
    let text = data.join("\n");
    let message: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text:?}"))?;
    check_message(method, &schema_view(&text, &message)?)?;
    Ok(Some(message))
}

/// Reads a whole event stream answering a request of `method`: complete
/// events only, each message checked (see [`check_event`]), comments left
/// out. Returns the messages in order.
pub fn check_event_stream(method: &str, text: &str) -> Result<Vec<Value>, String> {
    if !text.is_empty() && !text.ends_with("\n\n") {
        return Err(format!("the stream does not end after a complete event: {text:?}"));
    }
    let mut messages = Vec::new();
    for event in text.split_terminator("\n\n") {
        if let Some(message) = check_event(method, event)? {
            messages.push(message);
        }
    }
    Ok(messages)
}

/// Panics unless `event` is a comment or carries a valid message for a
/// request of `method`; returns the message.
#[track_caller]
pub fn assert_valid_event(method: &str, event: &str) -> Option<Value> {
    check_event(method, event).unwrap_or_else(|report| panic!("invalid event for `{method}`: {report}"))
}

/// Panics unless every event of `text` carries a valid message for a
/// request of `method`; returns the messages.
#[track_caller]
pub fn assert_valid_event_stream(method: &str, text: &str) -> Vec<Value> {
    check_event_stream(method, text).unwrap_or_else(|report| panic!("invalid event stream for `{method}`: {report}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every schema file listed in `schemas/README.md` hashes to the digest
    /// recorded there, and every `.json` in the folder is listed: a schema
    /// changes only together with its recorded digest.
    #[test]
    fn the_schema_files_match_their_recorded_digests() {
        use sha2::{Digest, Sha256};
        let dir = schemas_dir();
        let readme = std::fs::read_to_string(dir.join("README.md")).expect("schemas/README.md");
        // Table rows: | `file.json` | `upstream path` | `sha256` |
        let recorded: HashMap<String, String> = readme
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(|c| c.trim().trim_matches('`')).collect();
                (cells.len() == 5 && cells[1].ends_with(".json") && cells[3].len() == 64)
                    .then(|| (cells[1].to_owned(), cells[3].to_owned()))
            })
            .collect();
        assert!(recorded.contains_key("schema-2026-07-28.json"), "README lists no digest for the 2026-07-28 schema");
        let mut on_disk = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("schemas dir") {
            let name = entry.expect("dir entry").file_name().to_string_lossy().into_owned();
            if name.ends_with(".json") {
                on_disk.push(name);
            }
        }
        on_disk.sort();
        let mut listed: Vec<String> = recorded.keys().cloned().collect();
        listed.sort();
        assert_eq!(on_disk, listed, "the schema files and the README table disagree");
        for (name, digest) in &recorded {
            let bytes = std::fs::read(dir.join(name)).expect("schema file");
            let actual: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(&actual, digest, "{name} changed; a deliberate update records its new SHA-256 in the README");
        }
    }

    #[test]
    fn the_schema_rejects_what_the_revision_forbids() {
        let ok = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": [],
            "ttlMs": 0, "cacheScope": "private"}});
        assert_valid_response("tools/list", &ok);

        let mut no_ttl = ok.clone();
        no_ttl["result"].as_object_mut().map(|r| r.remove("ttlMs"));
        assert!(check_response("tools/list", &no_ttl).is_err());

        let mut no_result_type = ok.clone();
        no_result_type["result"].as_object_mut().map(|r| r.remove("resultType"));
        assert!(check_response("tools/list", &no_result_type).is_err());

        let null_id = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
        assert!(check_error(&null_id).is_err());
        let no_id = json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}});
        assert!(check_error(&no_id).is_ok());

        // An integer id beyond 64 bits is an integer on the wire; a fraction is not.
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":-32600,\"message\":\"Invalid\"}}}}",
            "7".repeat(115)
        );
        assert!(check_error_text(&big).is_ok(), "{:?}", check_error_text(&big));
        let fraction = r#"{"jsonrpc":"2.0","id":7.5e114,"error":{"code":-32600,"message":"Invalid"}}"#;
        assert!(check_error_text(fraction).is_err());

        let bad_version = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported"}});
        assert!(check_error(&bad_version).is_err(), "-32022 needs data.supported and data.requested");
        let old_not_found = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "Not found"}});
        assert!(check_error(&old_not_found).is_err(), "-32002 is no longer emitted");

        let empty_input_required = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required"}});
        assert!(check_response("tools/call", &empty_input_required).is_err());
        assert!(check_response("tools/list", &empty_input_required).is_err());

        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list", "params": {}});
        assert!(check_message("tools/call", &request).is_err());
        let unknown = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert!(check_notification(&unknown).is_err());
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": 1}});
        assert_valid_notification(&progress);
    }
}
