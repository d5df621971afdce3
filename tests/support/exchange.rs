//! Driving a [`Server`] with raw JSON-RPC, the way a transport does, and
//! checking every message it emits against the official schema.
//!
//! Unlike [`mcp_runtime::client::Client`], which builds well-formed
//! requests, these helpers send exactly the bytes a test writes, so the
//! envelope and `_meta` checks can be exercised too.

use std::sync::Arc;

use mcp_runtime::Server;
use mcp_runtime::dispatch::{HeaderCheck, Message, RequestOptions, Response, Stage, parse_message};
use mcp_runtime::testing::CollectNotifications;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::wire_schema::{assert_valid_message, check_text, request_meta};

/// What the server emitted for one message.
#[derive(Debug)]
pub struct Reply {
    /// The response as JSON, `None` for a notification.
    pub response: Option<Value>,
    /// The response exactly as it would be written to the wire.
    pub text: Option<String>,
    /// Notifications the request sent before its response, in order.
    pub notifications: Vec<Value>,
    /// The pipeline stage that produced the response.
    pub stage: Option<Stage>,
    /// The HTTP status the response would travel with.
    pub http_status: Option<u16>,
}

impl Reply {
    /// The response, which must exist.
    #[track_caller]
    pub fn response(&self) -> &Value {
        self.response.as_ref().expect("the message got no response")
    }

    /// The `result` of a successful response.
    #[track_caller]
    pub fn result(&self) -> &Value {
        let response = self.response();
        assert!(response.get("error").is_none(), "expected a result, got {response}");
        &response["result"]
    }

    /// The `error` of an error response.
    #[track_caller]
    pub fn error(&self) -> &Value {
        let response = self.response();
        assert!(response.get("result").is_none(), "expected an error, got {response}");
        &response["error"]
    }

    /// The error code of an error response.
    #[track_caller]
    pub fn code(&self) -> i64 {
        self.error()["code"].as_i64().expect("an integer error code")
    }
}

/// A request `{jsonrpc, id, method, params}` whose params get the standard
/// `_meta` unless they already have one. Pass `Value::Null` for `{}`.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    let mut params = match params {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => panic!("params must be an object, not {other}"),
    };
    params.entry("_meta").or_insert_with(request_meta);
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

/// The `method` of a message, if it has a readable one. The other members
/// are skipped as raw JSON, so deep nesting there does not hide the method.
fn method_of(bytes: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        method: Option<&'a RawValue>,
        #[serde(borrow, rename = "params")]
        _params: Option<&'a RawValue>,
        #[serde(borrow, rename = "id")]
        _id: Option<&'a RawValue>,
    }
    serde_json::from_slice::<Head<'_>>(bytes)
        .ok()
        .and_then(|h| h.method)
        .and_then(|m| serde_json::from_str::<String>(m.get()).ok())
        .unwrap_or_default()
}

fn checked(method: &str, response: Option<Response>, notifications: Vec<Value>) -> Reply {
    for n in &notifications {
        assert_valid_message(method, n);
    }
    let Some(response) = response else {
        return Reply { response: None, text: None, notifications, stage: None, http_status: None };
    };
    let text = response.to_json();
    let value = check_text(method, &text).unwrap_or_else(|report| panic!("invalid response: {report}"));
    Reply {
        stage: Some(response.stage()),
        http_status: Some(response.http_status()),
        response: Some(value),
        text: Some(text),
        notifications,
    }
}

fn notifications_of(sink: &CollectNotifications) -> Vec<Value> {
    sink.take().into_iter().map(|n| serde_json::to_value(n).expect("a notification serializes")).collect()
}

/// Sends raw bytes through [`Server::handle_bytes`], as stdio does, and
/// checks what comes back.
pub async fn send_bytes(server: &Server, bytes: &[u8]) -> Reply {
    let sink = Arc::new(CollectNotifications::default());
    let options = RequestOptions { sink: sink.clone(), cancellation: None };
    let response = server.handle_bytes(bytes, options).await;
    checked(&method_of(bytes), response, notifications_of(&sink))
}

/// Sends a JSON message (see [`request`]) and checks what comes back.
pub async fn send(server: &Server, message: &Value) -> Reply {
    send_bytes(server, message.to_string().as_bytes()).await
}

/// Sends a message through [`parse_message`], [`Server::prepare`] and
/// `Prepared::run` with HTTP header checks, as the HTTP transport does.
///
/// The message is written by serde_json, which sorts members and drops
/// escapes; where the order or the escapes matter, use
/// [`send_bytes_with_headers`].
pub async fn send_with_headers(server: &Server, message: &Value, headers: &dyn HeaderCheck) -> Reply {
    send_bytes_with_headers(server, message.to_string().as_bytes(), headers).await
}

/// Sends exactly `bytes` the way [`send_with_headers`] sends a message, and
/// checks what comes back.
pub async fn send_bytes_with_headers(server: &Server, bytes: &[u8], headers: &dyn HeaderCheck) -> Reply {
    let method = method_of(bytes);
    let sink = Arc::new(CollectNotifications::default());
    let response = match parse_message(bytes) {
        Err(response) => Some(*response),
        Ok(Message::Notification(_)) => None,
        Ok(Message::Request(request)) => match server.prepare(request, Some(headers)) {
            Err(response) => Some(*response),
            Ok(prepared) => {
                let options = RequestOptions { sink: sink.clone(), cancellation: None };
                Some(prepared.run(options).await)
            }
        },
        Ok(_) => panic!("a kind of message this helper does not know"),
    };
    checked(&method, response, notifications_of(&sink))
}
