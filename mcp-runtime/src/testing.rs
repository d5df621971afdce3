//! An in-process client that drives a [`Server`] without any transport, for
//! your tests and ours.
//!
//! ```
//! use mcp_runtime::{Args, Server, ToolEntry, testing::TestClient};
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add { a: i64, b: i64 }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let server = Server::builder("calc", "1.0.0")
//!     .tool(ToolEntry::new("add", |Args(x): Args<Add>| async move { x.a + x.b }))
//!     .build()
//!     .unwrap();
//! let client = TestClient::new(server);
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
//! assert_eq!(result["content"][0]["text"], "5");
//! # });
//! ```

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use serde_json::{Value, json};

use crate::context::NotificationSink;
use crate::dispatch::{Request, RequestOptions, Response};
use crate::protocol::{
    ClientCapabilities, ErrorObject, Implementation, LoggingLevel, Notification, PROTOCOL_VERSION, ProgressToken,
    RequestId, RequestMeta,
};
use crate::server::Server;

/// Collects the notifications of one request.
#[derive(Debug, Default)]
pub struct CollectNotifications(Mutex<Vec<Notification>>);

impl CollectNotifications {
    /// The notifications received so far.
    pub fn take(&self) -> Vec<Notification> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl NotificationSink for CollectNotifications {
    fn send(&self, notification: Notification) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(notification);
    }
}

/// A client that calls the dispatcher directly, adding the per-request
/// `_meta` a real client sends.
#[derive(Debug)]
pub struct TestClient {
    server: Server,
    meta: RequestMeta,
    next_id: AtomicI64,
}

/// A response with the notifications sent before it.
#[derive(Debug)]
pub struct Exchange {
    /// The response.
    pub response: Response,
    /// Notifications, in order.
    pub notifications: Vec<Notification>,
}

impl TestClient {
    /// A client speaking the current revision, declaring no capabilities.
    pub fn new(server: Server) -> Self {
        let mut meta = RequestMeta::new(PROTOCOL_VERSION);
        meta.client_info = Some(Implementation::new("mcp-runtime-test-client", env!("CARGO_PKG_VERSION")));
        TestClient { server, meta, next_id: AtomicI64::new(1) }
    }

    /// Declares client capabilities on every request.
    pub fn with_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.meta.client_capabilities = capabilities;
        self
    }

    /// Opts in to log messages at `level` and above on every request.
    pub fn with_log_level(mut self, level: LoggingLevel) -> Self {
        self.meta.log_level = Some(level);
        self
    }

    /// Asks for progress notifications with `token` on every request.
    pub fn with_progress_token(mut self, token: &str) -> Self {
        self.meta.progress_token = Some(ProgressToken::String(token.to_owned()));
        self
    }

    /// The server under test.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Sends `method` with `params` (an object; `_meta` is added unless present)
    /// and returns the response with the notifications sent before it.
    pub async fn exchange(&self, method: &str, params: Value) -> Exchange {
        let mut params = match params {
            Value::Object(map) => map,
            Value::Null => serde_json::Map::new(),
            other => {
                let mut map = serde_json::Map::new();
                map.insert("value".into(), other);
                map
            }
        };
        params.entry("_meta").or_insert_with(|| self.meta.to_value());
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let raw = serde_json::value::to_raw_value(&params).ok();
        let sink = Arc::new(CollectNotifications::default());
        let options = RequestOptions { sink: sink.clone(), cancellation: None };
        let response = self.server.handle(Request::new(id, method, raw), None, options).await;
        Exchange { response, notifications: sink.take() }
    }

    /// Sends a request and returns its result or error.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let response = self.exchange(method, params).await.response;
        match response.as_error() {
            Some(e) => Err(e.clone()),
            None => Ok(response.to_value()["result"].take()),
        }
    }

    /// Sends raw bytes, as a transport would; `None` for a notification.
    pub async fn send_raw(&self, message: &str) -> Option<Response> {
        self.server.handle_bytes(message.as_bytes(), RequestOptions::default()).await
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<Value, ErrorObject> {
        self.request("server/discover", json!({})).await
    }

    /// `tools/list` (first page).
    pub async fn list_tools(&self) -> Result<Value, ErrorObject> {
        self.request("tools/list", json!({})).await
    }

    /// `tools/call`.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Value, ErrorObject> {
        self.request("tools/call", json!({ "name": name, "arguments": arguments })).await
    }

    /// `prompts/get`.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Value, ErrorObject> {
        self.request("prompts/get", json!({ "name": name, "arguments": arguments })).await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, ErrorObject> {
        self.request("resources/read", json!({ "uri": uri })).await
    }
}
