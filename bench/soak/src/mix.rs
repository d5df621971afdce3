//! The mix each worker runs in turn, against the tools of the `everything`
//! example: a plain `tools/call`, `tools/list`, a listen stream that opens,
//! hears of a change and closes, a multi-round-trip call, and a 2025-era
//! session from `initialize` to `DELETE`. Each step checks what the
//! protocol promises of its answers, not just the status.

use anyhow::{Context, Result, bail, ensure};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

use crate::client::{Connection, Endpoint, meta};

/// One step of the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Call,
    List,
    Listen,
    RoundTrip,
    Session,
}

impl Step {
    /// Every step, in the order a worker goes through them.
    pub(crate) const ALL: [Step; 5] = [Step::Call, Step::List, Step::Listen, Step::RoundTrip, Step::Session];

    /// Its name in the summary.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Step::Call => "tools/call",
            Step::List => "tools/list",
            Step::Listen => "listen stream",
            Step::RoundTrip => "MRTR round trip",
            Step::Session => "2025-era session",
        }
    }
}

/// One worker's client: a keep-alive connection for the stateless steps
/// (made again after a failure), fresh connections for listen streams and
/// sessions, and ids that never repeat.
pub(crate) struct Worker {
    endpoint: Endpoint,
    connection: Option<Connection>,
    next_id: u64,
}

impl Worker {
    /// A worker whose ids start at `first_id`.
    pub(crate) fn new(endpoint: Endpoint, first_id: u64) -> Worker {
        Worker { endpoint, connection: None, next_id: first_id }
    }

    fn id(&mut self) -> Value {
        self.next_id += 1;
        json!(self.next_id)
    }

    async fn connection(&mut self) -> Result<&mut Connection> {
        if self.connection.is_none() {
            self.connection = Some(Connection::open(&self.endpoint).await?);
        }
        self.connection.as_mut().context("a connection")
    }

    /// Runs one step; returns how many HTTP requests it made. A failed
    /// step drops the keep-alive connection, whose state is then unknown.
    pub(crate) async fn run(&mut self, step: Step) -> Result<u64> {
        let outcome = match step {
            Step::Call => self.call().await,
            Step::List => self.list().await,
            Step::Listen => self.listen().await,
            Step::RoundTrip => self.round_trip().await,
            Step::Session => self.session().await,
        };
        if outcome.is_err() {
            self.connection = None;
        }
        outcome.with_context(|| step.name())
    }

    /// A modern `tools/call` of `name` with `extra` params; its result.
    async fn call_tool(&mut self, name: &str, extra: Value, capabilities: Value) -> Result<Value> {
        let id = self.id();
        let mut params = json!({"_meta": meta(capabilities), "name": name, "arguments": {}});
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        self.connection().await?.modern(&body).await?.result(&id)
    }

    async fn call(&mut self) -> Result<u64> {
        let result = self.call_tool("test_simple_text", json!({}), json!({})).await?;
        ensure!(
            result["content"][0]["text"] == "This is a simple text response for testing.",
            "unexpected result: {result}"
        );
        Ok(1)
    }

    async fn list(&mut self) -> Result<u64> {
        let id = self.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": meta(json!({}))}});
        let result = self.connection().await?.modern(&body).await?.result(&id)?;
        let tools = result["tools"].as_array().context("no tools")?;
        ensure!(tools.iter().any(|t| t["name"] == "test_simple_text"), "test_simple_text not listed");
        Ok(1)
    }

    /// Opens a listen stream for tool list changes on a connection of its
    /// own, announces a change on the keep-alive one, reads the change off
    /// the stream (some other worker's change may come first: any will
    /// do), and closes the stream by closing its connection.
    async fn listen(&mut self) -> Result<u64> {
        let listen_id = self.id();
        let body = json!({"jsonrpc": "2.0", "id": listen_id, "method": "subscriptions/listen",
            "params": {"_meta": meta(json!({})), "notifications": {"toolsListChanged": true}}});
        let mut stream_connection = Connection::open(&self.endpoint).await?;
        let mut events = stream_connection.modern_stream(&body).await?;
        let ack = events.next().await?;
        ensure!(ack["method"] == "notifications/subscriptions/acknowledged", "not an acknowledgement: {ack}");
        let result = self.call_tool("test_trigger_tool_change", json!({}), json!({})).await?;
        ensure!(result["content"][0]["text"] == "Tool list change announced", "unexpected result: {result}");
        let change = events.next().await?;
        ensure!(change["method"] == "notifications/tools/list_changed", "not a change: {change}");
        let tag = &change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
        ensure!(*tag == listen_id, "the change names another subscription: {change}");
        drop(events);
        drop(stream_connection);
        Ok(2)
    }

    /// A call that asks for the user's name, then its retry with the answer
    /// and the sealed state.
    async fn round_trip(&mut self) -> Result<u64> {
        let tool = "test_input_required_result_elicitation";
        let capabilities = json!({"elicitation": {"form": {}}});
        let first = self.call_tool(tool, json!({}), capabilities.clone()).await?;
        ensure!(first["resultType"] == "input_required", "no input asked for: {first}");
        ensure!(first["inputRequests"]["user_name"].is_object(), "not asked for user_name: {first}");
        let mut retry = json!({"inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}}});
        if let Some(state) = first.get("requestState") {
            retry["requestState"] = state.clone();
        }
        let done = self.call_tool(tool, retry, capabilities).await?;
        ensure!(done["content"][0]["text"] == "Hello, Ada!", "unexpected result: {done}");
        Ok(2)
    }

    /// `initialize`, `notifications/initialized`, a call and `DELETE`, on a
    /// connection of its own.
    async fn session(&mut self) -> Result<u64> {
        let mut connection = Connection::open(&self.endpoint).await?;
        let id = self.id();
        let initialize = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench-soak", "version": "0.1.0"}}});
        let answer = connection.legacy(None, Method::POST, Some(&initialize)).await?;
        let session = answer.headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let result = answer.result(&id)?;
        let session = session.context("initialize named no session")?;
        ensure!(result["protocolVersion"] == "2025-11-25", "another version: {result}");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = connection.legacy(Some(&session), Method::POST, Some(&initialized)).await?;
        ensure!(answer.status == StatusCode::ACCEPTED, "notifications/initialized answered {}", answer.status);
        let id = self.id();
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "test_simple_text", "arguments": {}}});
        let result = connection.legacy(Some(&session), Method::POST, Some(&call)).await?.result(&id)?;
        ensure!(result["content"][0]["text"].is_string(), "unexpected result: {result}");
        let answer = connection.legacy(Some(&session), Method::DELETE, None).await?;
        if !answer.status.is_success() {
            bail!("DELETE answered {}", answer.status);
        }
        Ok(4)
    }
}
