//! A [`Client`] of a server in this process whose every message is
//! checked against the official schema as it crosses the wire.
//!
//! Beyond what [`check_text`] checks of each response and notification,
//! the multi round-trip parts are checked one by one against their own
//! definitions: each embedded input request against `ElicitRequest`,
//! `CreateMessageRequest` or `ListRootsRequest` (the schema's `anyOf` would
//! name none of them in its report), the sealed `requestState`, and each
//! answer a retry carries against the result type of the request it answers.
//!
//! ```no_run
//! # async fn demo(server: mcp_runtime::Server) {
//! let client = mcp_tests::validated_client::checked(server);
//! let _ = client.discover().await; // panics if either message breaks the schema
//! # }
//! ```

use std::sync::{Arc, Mutex};

use mcp_runtime::Server;
use mcp_runtime::client::{Client, MessageKind, Observed};
use serde_json::{Map, Value};

use crate::wire_schema::{check, check_text};

/// A client for `server` whose every message is checked.
pub fn checked(server: Server) -> Client {
    validate(Client::in_process(server))
}

/// `client`, with every message it sends or receives checked.
pub fn validate(client: Client) -> Client {
    let validator = Validator { strict_requests: true, asked: Arc::default() };
    client.observe(move |message| validator.observe(message))
}

/// `client`, with what the server emits checked, and the requests the test
/// writes sent unchecked: for tests that send malformed requests on purpose.
pub fn validate_replies(client: Client) -> Client {
    let validator = Validator { strict_requests: false, asked: Arc::default() };
    client.observe(move |message| validator.observe(message))
}

struct Validator {
    /// Whether requests are checked too.
    strict_requests: bool,
    /// The method of each input request of the last `input_required`
    /// result, by key, to check the answers of the retry against.
    asked: Arc<Mutex<Map<String, Value>>>,
}

impl Validator {
    fn observe(&self, message: &Observed<'_>) {
        let report = match message.kind {
            MessageKind::Request if self.strict_requests => self.check_request(message.method, message.text),
            MessageKind::Request => Ok(()),
            MessageKind::Response | MessageKind::Notification => self.check_emitted(message.method, message.text),
            _ => Err(format!("a kind of message this validator does not know: {:?}", message.kind)),
        };
        if let Err(report) = report {
            panic!("{:?} for `{}` breaks the schema: {report}", message.kind, message.method);
        }
    }

    fn check_emitted(&self, method: &str, text: &str) -> Result<(), String> {
        let message: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {text}"))?;
        let result = &message["result"];
        if result["resultType"] == "input_required" {
            // First, so that a broken input request is named precisely
            // rather than as a miss of the whole result's `anyOf`.
            self.check_input_required(result)?;
        }
        check_text(method, text).map(drop)
    }

    fn check_input_required(&self, result: &Value) -> Result<(), String> {
        if let Some(state) = result.get("requestState") {
            match state.as_str() {
                Some(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic()) => {}
                _ => return Err(format!("`requestState` is not a sealed token: {state}")),
            }
        }
        let mut asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        asked.clear();
        let requests = result.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
        for (key, request) in requests {
            let method = request["method"].as_str().unwrap_or_default().to_owned();
            let definition = match method.as_str() {
                "elicitation/create" => "ElicitRequest",
                "sampling/createMessage" => "CreateMessageRequest",
                "roots/list" => "ListRootsRequest",
                other => return Err(format!("the input request `{key}` has the unknown method `{other}`")),
            };
            // The params of an elicitation are an `anyOf` of its modes:
            // checked against their mode's definition first, for a precise report.
            let mode = match request["params"]["mode"].as_str() {
                Some("url") => Some("ElicitRequestURLParams"),
                _ if definition == "ElicitRequest" => Some("ElicitRequestFormParams"),
                _ => None,
            };
            let report = |report| format!("input request `{key}`: {report}");
            if let Some(mode) = mode {
                check(mode, &request["params"]).map_err(report)?;
            }
            check(definition, &request).map_err(report)?;
            asked.insert(key, Value::String(method));
        }
        Ok(())
    }

    fn check_request(&self, method: &str, text: &str) -> Result<(), String> {
        let request: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {text}"))?;
        let definition = match method {
            "server/discover" => "DiscoverRequest",
            "tools/list" => "ListToolsRequest",
            "tools/call" => "CallToolRequest",
            "prompts/list" => "ListPromptsRequest",
            "prompts/get" => "GetPromptRequest",
            "resources/list" => "ListResourcesRequest",
            "resources/templates/list" => "ListResourceTemplatesRequest",
            "resources/read" => "ReadResourceRequest",
            "completion/complete" => "CompleteRequest",
            "subscriptions/listen" => "SubscriptionsListenRequest",
            _ => "JSONRPCRequest",
        };
        // The answers first, each against the result type of the request
        // it answers, for a precise report; then the whole request.
        let responses = request["params"].get("inputResponses").and_then(Value::as_object);
        let asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        for (key, answer) in responses.into_iter().flatten() {
            let answers = match asked.get(key).and_then(Value::as_str) {
                Some("elicitation/create") => "ElicitResult",
                Some("sampling/createMessage") => "CreateMessageResult",
                Some("roots/list") => "ListRootsResult",
                // Answers to requests not asked in the last round (a test
                // may send them on purpose) are checked as any answer.
                _ => "InputResponse",
            };
            check(answers, answer).map_err(|report| format!("input response `{key}`: {report}"))?;
        }
        check(definition, &request)?;
        Ok(())
    }
}
