//! A client for MCP servers of the stateless revision (2026-07-28), over
//! Streamable HTTP or newline-delimited JSON (a child's stdio, or any
//! pipe): discover, list (every page), call, read, get prompts.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime::client::Error> {
//! use mcp_runtime::client::Client;
//!
//! let client = Client::http("http://127.0.0.1:3000/mcp").bearer("a-token");
//! let tools = client.list_tools().await?;
//! let sum = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await?;
//! # let _ = (tools, sum); Ok(()) }
//! ```
//!
//! Not there yet: the 2025-era revisions (`initialize` and sessions) and
//! their negotiation, answering a server's input requests (elicitation,
//! sampling, roots: an `input_required` result is [`Error::InputRequired`]),
//! progress, cancellation and `subscriptions/listen`.

mod error;
mod http;
mod lines;
mod remote;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

pub use error::Error;
use http::HttpTransport;
use lines::LinesTransport;
pub use remote::Remote;

use crate::protocol::{
    CallToolResult, ClientCapabilities, DiscoverResult, GetPromptResult, Implementation, ReadResourceResult, RequestId,
    RequestMeta, Tool,
};

/// The revision this client speaks.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// How long a request may take unless told otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The most pages a list is followed for: a server whose cursors never end
/// is not followed forever.
const MAX_PAGES: usize = 1000;

/// A client of one server. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Client {
    transport: Transport,
    meta: Arc<RequestMeta>,
    timeout: Duration,
    bearer: Option<Arc<str>>,
    next_id: Arc<AtomicI64>,
}

#[derive(Clone)]
enum Transport {
    // Boxed: a hyper client is far larger than a pipe.
    Http(Box<HttpTransport>),
    Lines(LinesTransport),
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let transport = match &self.transport {
            Transport::Http(http) => format!("HTTP {}", http.url()),
            Transport::Lines(_) => "newline-delimited JSON".to_owned(),
        };
        f.debug_struct("Client").field("transport", &transport).field("timeout", &self.timeout).finish_non_exhaustive()
    }
}

impl Client {
    /// A client of the server whose MCP endpoint is `url` (`http://`; each
    /// request on a pooled connection).
    pub fn http(url: impl Into<String>) -> Client {
        Self::with(Transport::Http(Box::new(HttpTransport::new(url.into()))))
    }

    /// A client speaking newline-delimited JSON on `reader` and `writer`
    /// (a child's stdout and stdin, or a pipe). Needs a Tokio runtime: it
    /// reads in a task of its own.
    pub fn stdio<R, W>(reader: R, writer: W) -> Client
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        Self::with(Transport::Lines(LinesTransport::new(reader, writer, None)))
    }

    /// Starts `command` and speaks newline-delimited JSON on its stdin and
    /// stdout; its stderr is left as the command set it. The child is
    /// killed when the last clone of the client is dropped.
    pub fn spawn(mut command: tokio::process::Command) -> Result<Client, Error> {
        use std::process::Stdio;
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| Error::Transport(format!("the server did not start: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Transport("the server's stdin or stdout is not a pipe".to_owned()));
        };
        Ok(Self::with(Transport::Lines(LinesTransport::new(stdout, stdin, Some(child)))))
    }

    fn with(transport: Transport) -> Client {
        let mut meta = RequestMeta::new(PROTOCOL_VERSION);
        meta.client_info = Some(Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")));
        Client {
            transport,
            meta: Arc::new(meta),
            timeout: DEFAULT_TIMEOUT,
            bearer: None,
            next_id: Arc::new(AtomicI64::new(1)),
        }
    }

    /// Sends `Authorization: Bearer <token>` with every HTTP request.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(Arc::from(token.into()));
        self
    }

    /// How long a request may take before [`Error::Timeout`] (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The name and version the client gives of itself.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.meta).client_info = Some(Implementation::new(name, version));
        self
    }

    /// The capabilities the client declares.
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        Arc::make_mut(&mut self.meta).client_capabilities = capabilities;
        self
    }

    /// Sends `method` with `params` (an object, or `Null` for none) and the
    /// client's `_meta`, and returns the result as it came.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        let mut params = match params {
            Value::Null => Map::new(),
            Value::Object(params) => params,
            other => return Err(Error::Invalid(format!("params must be an object, not {other}"))),
        };
        params.insert("_meta".to_owned(), self.meta.to_value());
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let target = ["name", "uri", "taskId"].iter().find_map(|key| params.get(*key)?.as_str().map(str::to_owned));
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let exchange = async {
            match &self.transport {
                Transport::Http(http) => {
                    let head = (PROTOCOL_VERSION, method, target.as_deref());
                    http.send(&message, head, self.bearer.as_deref(), &id).await
                }
                Transport::Lines(lines) => lines.send(&message, &id).await,
            }
        };
        let response =
            tokio::time::timeout(self.timeout, exchange).await.map_err(|_| Error::Timeout(self.timeout))??;
        error::result_of(response, &id)
    }

    async fn typed<T: DeserializeOwned>(&self, method: &str, params: Value) -> Result<T, Error> {
        let result = self.request(method, params).await?;
        serde_json::from_value(result)
            .map_err(|e| Error::Invalid(format!("a `{method}` result that does not read: {e}")))
    }

    /// `server/discover`: what the server is and offers.
    pub async fn discover(&self) -> Result<DiscoverResult, Error> {
        self.typed("server/discover", Value::Null).await
    }

    /// `tools/list`, every page.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        self.list("tools/list", "tools").await
    }

    /// `prompts/list`, every page, as JSON objects.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, Error> {
        self.list("prompts/list", "prompts").await
    }

    /// `resources/list`, every page, as JSON objects.
    pub async fn list_resources(&self) -> Result<Vec<Value>, Error> {
        self.list("resources/list", "resources").await
    }

    async fn list<T: DeserializeOwned>(&self, method: &str, key: &str) -> Result<Vec<T>, Error> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => Value::Null,
            };
            let mut page = self.request(method, params).await?;
            let Some(Value::Array(list)) = page.get_mut(key).map(Value::take) else {
                return Err(Error::Invalid(format!("a `{method}` result without `{key}`")));
            };
            for item in list {
                items.push(serde_json::from_value(item).map_err(|e| Error::Invalid(format!("in `{key}`: {e}")))?);
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
                _ => return Ok(items),
            }
        }
        Err(Error::Invalid(format!("`{method}` still had pages after {MAX_PAGES}")))
    }

    /// `tools/call` of `name` with `arguments` (an object).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, Error> {
        self.typed("tools/call", json!({ "name": name, "arguments": arguments })).await
    }

    /// `resources/read` of `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.typed("resources/read", json!({ "uri": uri })).await
    }

    /// `prompts/get` of `name` with `arguments` (an object of strings).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult, Error> {
        self.typed("prompts/get", json!({ "name": name, "arguments": arguments })).await
    }
}
