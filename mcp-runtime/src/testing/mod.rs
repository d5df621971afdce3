//! An in-process client that drives a [`Server`] without any transport, for
//! your tests and ours.
//!
//! Every request goes out as JSON text through [`Server::handle_bytes`], the
//! entry point of the stdio transport, so a test exercises the same envelope
//! and `_meta` parsing as a real client does.
//!
//! ```
//! use mcp_runtime::{Args, Server, testing::TestClient, entry::ToolEntry};
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
//!
//! A tool that asks for input is answered by callbacks, as an SDK client
//! does; the client declares the matching capabilities and retries the
//! request with the answers until the result is complete:
//!
//! ```
//! use mcp_runtime::{Input, Server, input::Elicitation, protocol::ElicitResult, testing::TestClient, entry::ToolEntry};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let server = Server::builder("greeter", "1.0.0")
//!     .tool(ToolEntry::new("greet", |input: Input| async move {
//!         let answer = input.elicit("who", Elicitation::form("Your name?").text("name", true)).await;
//!         format!("Hello, {}!", answer.field("name").unwrap_or_default())
//!     }))
//!     .build()
//!     .unwrap();
//! let client = TestClient::new(server)
//!     .on_elicitation(|_request| async { ElicitResult::accept(serde_json::json!({"name": "Ada"})) });
//! let result = client.call_tool("greet", serde_json::json!({})).await.unwrap();
//! assert_eq!(result["content"][0]["text"], "Hello, Ada!");
//! # });
//! ```
//!
//! [`TestClient::exchange`] sends one request and returns its response as
//! is, for tests that must see an `input_required` result themselves.
//!
//! [`assert_catalog_snapshot`] compares a server's whole catalog with a
//! committed snapshot file, so that an unintended change to what models see
//! fails a test.

mod answer;
mod catalog;
mod observe;

use std::future::Future;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use serde_json::{Map, Value, json};

pub use self::answer::ClientError;
pub use self::catalog::assert_catalog_snapshot;
use self::observe::Observers;
pub use self::observe::{MessageKind, Observed};
use crate::answering::{self, Callbacks};
use crate::dispatch::{RequestOptions, Response, Stage};
use crate::handler::context::NotificationSink;
use crate::input::Root;
use crate::protocol::{
    ClientCapabilities, CreateMessageResult, ElicitRequest, ElicitResult, ErrorObject, Implementation, LoggingLevel,
    Notification, PROTOCOL_VERSION, ProgressToken, RequestId, RequestMeta,
};
use crate::server::Server;

/// How many times a request is retried with answers before the client
/// gives up, unless set with [`TestClient::with_max_rounds`]: the one round
/// limit of the crate, as [`Client::max_rounds`](crate::client::Client::max_rounds)
/// has by default.
pub const DEFAULT_MAX_ROUNDS: usize = crate::answering::MAX_ROUNDS;

/// Collects the notifications of one request.
#[derive(Debug, Default)]
pub struct CollectNotifications(Mutex<Vec<Notification>>);

impl CollectNotifications {
    /// The notifications received so far.
    pub fn take(&self) -> Vec<Notification> {
        std::mem::take(&mut *crate::sync::lock(&self.0))
    }
}

impl NotificationSink for CollectNotifications {
    fn send(&self, notification: Notification) {
        crate::sync::lock(&self.0).push(notification);
    }
}

/// A client that sends serialized requests to a [`Server`] in the same
/// process, adding the per-request `_meta` a real client sends, and answers
/// the server's requests for input with callbacks.
pub struct TestClient {
    server: Server,
    meta: RequestMeta,
    next_id: AtomicI64,
    callbacks: Callbacks,
    observers: Observers,
    max_rounds: usize,
}

impl std::fmt::Debug for TestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestClient")
            .field("server", &self.server.info().name)
            .field("meta", &self.meta)
            .field("callbacks", &self.callbacks)
            .field("max_rounds", &self.max_rounds)
            .finish_non_exhaustive()
    }
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
        TestClient {
            server,
            meta,
            next_id: AtomicI64::new(1),
            callbacks: Callbacks::default(),
            observers: Observers::default(),
            max_rounds: DEFAULT_MAX_ROUNDS,
        }
    }

    /// Declares `capabilities` on every request, besides those the
    /// callbacks declare. A capability declared here is sent as given, so a
    /// test can narrow what a callback would declare (say, form-mode
    /// elicitation only).
    ///
    /// ```
    /// use mcp_runtime::{Server, protocol::ClientCapabilities, testing::TestClient};
    /// let server = Server::builder("s", "1.0.0").build().unwrap();
    /// let client = TestClient::new(server).with_capabilities(ClientCapabilities::default().with_roots());
    /// assert!(client.capabilities().roots.is_some());
    /// ```
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

    /// Answers elicitations with `callback`, and declares elicitation in
    /// both modes (`form` and `url`) unless
    /// [`with_capabilities`](Self::with_capabilities) declares it.
    ///
    /// ```
    /// use mcp_runtime::{Server, protocol::{ElicitRequest, ElicitResult}, testing::TestClient};
    /// let server = Server::builder("s", "1.0.0").build().unwrap();
    /// let client = TestClient::new(server).on_elicitation(|request| async move {
    ///     match request {
    ///         ElicitRequest::Form { .. } => ElicitResult::accept(serde_json::json!({"ok": true})),
    ///         // URL mode, or a mode a later revision adds.
    ///         _ => ElicitResult::decline(),
    ///     }
    /// });
    /// assert!(client.capabilities().elicitation.is_some_and(|e| e.supports_form() && e.supports_url()));
    /// ```
    pub fn on_elicitation<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.callbacks.elicitation = Some(Arc::new(move |request| Box::pin(callback(request))));
        self
    }

    /// Answers sampling requests with `callback`, which gets the
    /// `sampling/createMessage` params. Declares `sampling` with `tools` and
    /// `context` unless [`with_capabilities`](Self::with_capabilities)
    /// declares it.
    ///
    /// ```
    /// use mcp_runtime::{Server, protocol::CreateMessageResult, testing::TestClient};
    /// let server = Server::builder("s", "1.0.0").build().unwrap();
    /// let client = TestClient::new(server).on_sampling(|params| async move {
    ///     let asked = params["messages"][0]["content"]["text"].as_str().unwrap_or_default().to_owned();
    ///     CreateMessageResult::text("echo-model", asked)
    /// });
    /// assert!(client.capabilities().sampling.is_some());
    /// ```
    pub fn on_sampling<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CreateMessageResult> + Send + 'static,
    {
        self.callbacks.sampling = Some(Arc::new(move |params| Box::pin(callback(params))));
        self
    }

    /// Answers roots requests with `callback`, and declares `roots` unless
    /// [`with_capabilities`](Self::with_capabilities) declares it.
    ///
    /// ```
    /// use mcp_runtime::{Server, input::Root, testing::TestClient};
    /// let server = Server::builder("s", "1.0.0").build().unwrap();
    /// let client = TestClient::new(server)
    ///     .on_roots(|| async { vec![Root { uri: "file:///repo".into(), name: Some("repo".into()) }] });
    /// assert!(client.capabilities().roots.is_some());
    /// ```
    pub fn on_roots<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<Root>> + Send + 'static,
    {
        self.callbacks.roots = Some(Arc::new(move || Box::pin(callback())));
        self
    }

    /// Calls `observer` with every message this client sends or receives,
    /// as wire text, in order: each request, the notifications sent for it,
    /// its response. Several observers are called in the order added; a
    /// panicking observer fails the test at the message it rejects.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use mcp_runtime::{Server, testing::{MessageKind, TestClient}};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let server = Server::builder("s", "1.0.0").build().unwrap();
    /// let client = TestClient::new(server).observe(move |m| log.lock().unwrap().push((m.kind, m.method.to_owned())));
    /// client.discover().await.unwrap();
    /// let seen = seen.lock().unwrap();
    /// assert_eq!(seen[0], (MessageKind::Request, "server/discover".to_owned()));
    /// assert_eq!(seen[1], (MessageKind::Response, "server/discover".to_owned()));
    /// # });
    /// ```
    pub fn observe(mut self, observer: impl Fn(&Observed<'_>) + Send + Sync + 'static) -> Self {
        self.observers.add(Arc::new(observer));
        self
    }

    /// How many times a request may be retried with answers before
    /// [`request`](Self::request) gives up with
    /// [`ClientError::TooManyRounds`] ([`DEFAULT_MAX_ROUNDS`] unless set).
    pub fn with_max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// The server under test.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The capabilities declared on every request: those given to
    /// [`with_capabilities`](Self::with_capabilities), plus those of the
    /// callbacks.
    pub fn capabilities(&self) -> ClientCapabilities {
        self.callbacks.declare(self.meta.client_capabilities.clone())
    }

    /// The `_meta` sent with every request.
    fn meta_value(&self) -> Value {
        let mut meta = self.meta.clone();
        meta.client_capabilities = self.capabilities();
        meta.to_value()
    }

    /// Sends `method` with `params` as one request, and returns the
    /// response as is, with the notifications sent before it. An
    /// `input_required` result is returned, not answered.
    ///
    /// An object gets the client's `_meta` unless it has one; `Null` stands
    /// for `{}`; anything else is sent as written, for the server to judge.
    ///
    /// ```
    /// use mcp_runtime::{Server, testing::TestClient};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let client = TestClient::new(Server::builder("s", "1.0.0").build().unwrap());
    /// let exchange = client.exchange("server/discover", serde_json::Value::Null).await;
    /// assert_eq!(exchange.response.to_value()["result"]["resultType"], "complete");
    /// let exchange = client.exchange("server/discover", serde_json::json!({"_meta": {}})).await;
    /// assert_eq!(exchange.response.as_error().map(|e| e.code), Some(-32602));
    /// # });
    /// ```
    pub async fn exchange(&self, method: &str, params: Value) -> Exchange {
        let params = match params {
            Value::Null => Value::Object(Map::new()),
            other => other,
        };
        let params = match params {
            Value::Object(mut map) => {
                map.entry("_meta").or_insert_with(|| self.meta_value());
                Value::Object(map)
            }
            // Sent as is: the server must reject it as it would any client's.
            other => other,
        };
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (response, notifications) = self.send_observed(method, &message.to_string()).await;
        let response = response.unwrap_or_else(|| {
            // A message with an id is a request, which is always answered.
            Response::error(Some(id), ErrorObject::internal("a request got no response"), Stage::Envelope)
        });
        Exchange { response, notifications }
    }

    /// Sends `method` with `params` and returns its complete result or its
    /// error. When the server asks for input, the callbacks answer and the
    /// request is retried with `inputResponses` and the echoed
    /// `requestState`, up to the [round limit](Self::with_max_rounds).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.resolve(method, params).await
    }

    /// Sends raw bytes, as a transport would; `None` for a notification.
    pub async fn send_raw(&self, message: &str) -> Option<Response> {
        let method = observe::method_of(message);
        self.send_observed(&method, message).await.0
    }

    async fn send_observed(&self, method: &str, message: &str) -> (Option<Response>, Vec<Notification>) {
        self.observers.notify(MessageKind::Request, method, message);
        let sink = Arc::new(CollectNotifications::default());
        let options = RequestOptions { sink: sink.clone(), cancellation: None };
        let response = self.server.handle_bytes(message.as_bytes(), options).await;
        let notifications = sink.take();
        if !self.observers.is_empty() {
            for n in &notifications {
                self.observers.notify(MessageKind::Notification, method, &serde_json::to_string(n).unwrap_or_default());
            }
            if let Some(response) = &response {
                self.observers.notify(MessageKind::Response, method, &response.to_json());
            }
        }
        (response, notifications)
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<Value, ClientError> {
        self.request("server/discover", json!({})).await
    }

    /// `tools/list` (first page).
    pub async fn list_tools(&self) -> Result<Value, ClientError> {
        self.request("tools/list", json!({})).await
    }

    /// `tools/call`, answering requests for input.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        self.request("tools/call", json!({ "name": name, "arguments": arguments })).await
    }

    /// `prompts/get`, answering requests for input.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        self.request("prompts/get", json!({ "name": name, "arguments": arguments })).await
    }

    /// `resources/read`, answering requests for input.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, ClientError> {
        self.request("resources/read", json!({ "uri": uri })).await
    }
}

impl TestClient {
    /// Sends the request, answers each round of `input_required` with the
    /// callbacks and retries, until a complete result or an error.
    async fn resolve(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let mut params = match params {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            // Nothing to retry: the server judges it as sent.
            other => return result_of(self.exchange(method, other).await.response),
        };
        let mut rounds = 0;
        loop {
            let result = result_of(self.exchange(method, Value::Object(params.clone())).await.response)?;
            if !answering::is_input_required(&result) {
                return Ok(result);
            }
            if rounds == self.max_rounds {
                return Err(ClientError::TooManyRounds { rounds, last: result });
            }
            rounds += 1;
            let answers = self.callbacks.answer_all(&result).await?;
            answering::next_round(&mut params, &result, answers).map_err(ClientError::Malformed)?;
        }
    }
}

/// The result of a response, or its error.
fn result_of(response: crate::dispatch::Response) -> Result<Value, ClientError> {
    if let Some(error) = response.as_error() {
        return Err(ClientError::Rpc(error.clone()));
    }
    let text = response.as_result().unwrap_or("null");
    serde_json::from_str(text).map_err(|e| ClientError::Malformed(format!("the result is not JSON ({e}): {text}")))
}

#[cfg(test)]
mod tests;
