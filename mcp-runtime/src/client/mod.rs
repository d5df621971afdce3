//! A client for MCP servers, over Streamable HTTP or newline-delimited
//! JSON (a child's stdio, or any pipe) with the `client` feature, or in
//! this process ([`Client::in_process`], always): discover, list (every page), call,
//! read, get prompts. It speaks the stateless revision (2026-07-28) with a
//! server that does, and opens a 2025-era session (`initialize`, 2025-11-25
//! down to 2025-03-26) with one that does not ([`Revision`]).
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
//! A server's requests for input (elicitation, sampling, roots) are
//! answered by the client's callbacks ([`Client::on_elicitation`],
//! [`Client::on_sampling`], [`Client::on_roots`]) in either era: an
//! `input_required` result is answered and the request sent again, a
//! 2025-era server's request is answered on its stream. Without a callback
//! for it, an `input_required` result is [`Error::InputRequired`], and a
//! 2025-era server's request is refused with `-32601` (a `ping` is always
//! answered).
//!
//! A request's progress is heard with
//! [`call_tool_with_progress`](Client::call_tool_with_progress); a request
//! given up (its future dropped, or the time limit reached) is cancelled
//! at the server.
//!
//! What the server announces (its lists changing, resources updated) is
//! heard with [`Client::listen`], in either era; [`Client::close`] ends a
//! 2025-era session.
//!
//! With the `skills` feature, a server's skills are listed
//! ([`Client::skills`], reading none of their files) and loaded
//! ([`Client::load_skill`]), each file read checked against the skill's
//! entry: its size, its digest, and a `SKILL.md`'s front matter (see the
//! [`skills`] module).
#![cfg_attr(not(feature = "client"), doc = "\n\n[`Client::listen`]: Client")]
#![cfg_attr(
    not(feature = "skills"),
    doc = "\n\n[`Client::skills`]: Client\n[`Client::load_skill`]: Client\n[`skills`]: self"
)]
// Without the feature only the in-process transport is compiled: what the
// wires share with it (limits, cancellation, the server's requests) is
// partly unused there, and checked in the builds that have the wires.
#![cfg_attr(not(feature = "client"), allow(dead_code, unused_variables, unused_imports))]

mod callbacks;
#[cfg(feature = "client")]
mod connections;
#[cfg(feature = "auth")]
pub(crate) mod delegation;
mod error;
pub(crate) mod exchange;
#[cfg(feature = "client")]
pub(crate) mod forwarding;
mod head;
#[cfg(feature = "client")]
mod http;
mod in_flight;
mod in_process;
mod limits;
#[cfg(feature = "client")]
mod lines;
#[cfg(feature = "client")]
mod listen;
mod message;
mod negotiation;
pub(crate) mod notices;
#[cfg(feature = "client-auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "client-auth")))]
pub mod oauth;
mod observe;
#[cfg(feature = "client")]
mod param_headers;
#[cfg(feature = "client")]
pub(crate) mod remote;
#[cfg(feature = "client")]
mod server_requests;
#[cfg(feature = "client")]
mod session_stream;
mod settings;
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub mod skills;
#[cfg(feature = "skills")]
mod skills_declared;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use callbacks::SharedCallbacks;
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use delegation::TokenExchange;
pub use error::Error;
use head::Head;
#[cfg(feature = "client")]
use http::HttpTransport;
use in_process::InProcessTransport;
pub(crate) use in_process::LocalServer;
use limits::SharedLimits;
#[cfg(feature = "client")]
use lines::LinesTransport;
#[cfg(feature = "client")]
pub use listen::{Change, Interests, Listener};
#[allow(deprecated)]
pub use negotiation::LEGACY_PROTOCOL_VERSION;
pub use negotiation::Revision;
use negotiation::{Negotiated, OpenedSession};
use notices::Notices;
use observe::Observers;
pub use observe::{MessageKind, Observed};
#[cfg(feature = "client")]
pub use remote::Remote;

use crate::answering::{self, Unanswered};
use crate::protocol::{
    CallToolResult, Completion, CompletionReference, DiscoverResult, GetPromptResult, Implementation, ProtocolVersion,
    ReadResourceResult, RequestId, RequestMeta, Tool,
};

/// The stateless revision this client speaks.
#[deprecated(note = "use `mcp_runtime::protocol::PROTOCOL_VERSION`")]
pub const PROTOCOL_VERSION: &str = crate::protocol::PROTOCOL_VERSION;

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
    /// The members of `meta` that are the same in every request, written
    /// once ([`fixed_meta`](Self::fixed_meta)); emptied when `meta` changes.
    fixed_meta: Arc<std::sync::OnceLock<String>>,
    timeout: Duration,
    bearer: Option<Arc<str>>,
    next_id: Arc<AtomicI64>,
    revision: Revision,
    /// Settled by the first request, shared by the clones.
    negotiated: Arc<tokio::sync::OnceCell<Negotiated>>,
    /// The result of the `server/discover` that settled the revision, kept
    /// for the first [`discover`](Self::discover), which then asks nothing:
    /// a command that discovers first sends one `server/discover`, not two.
    discovered: Arc<std::sync::Mutex<Option<Value>>>,
    /// What answers the server's requests for input; shared with the
    /// transports, which answer a 2025-era server's requests as they come.
    callbacks: SharedCallbacks,
    /// What the client takes of the server at most; shared with the
    /// transports.
    limits: SharedLimits,
    /// What sees each message ([`observe`](Self::observe)).
    observers: Observers,
    /// What the listed tools mirror into headers, for their calls.
    #[cfg(feature = "client")]
    tool_headers: param_headers::ToolHeaders,
    /// What the server declared of the skills extension, shared by the clones.
    #[cfg(feature = "skills")]
    skills: skills_declared::Declared,
}

#[derive(Clone)]
enum Transport {
    // Boxed: a hyper client is far larger than a pipe.
    #[cfg(feature = "client")]
    Http(Box<HttpTransport>),
    #[cfg(feature = "client")]
    Lines(LinesTransport),
    InProcess(InProcessTransport),
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let transport = match &self.transport {
            #[cfg(feature = "client")]
            Transport::Http(http) => format!("HTTP {}", http.url()),
            #[cfg(feature = "client")]
            Transport::Lines(_) => "newline-delimited JSON".to_owned(),
            Transport::InProcess(local) => format!("in process: {}", local.name()),
        };
        f.debug_struct("Client").field("transport", &transport).field("timeout", &self.timeout).finish_non_exhaustive()
    }
}

impl Client {
    /// A client of the server whose MCP endpoint is `url`: `http://`, or
    /// `https://` (the server's certificate checked against the platform's
    /// roots and any given to
    /// [`root_certificates`](Self::root_certificates); HTTP/2 when the server
    /// offers it). Connections are kept between requests.
    #[cfg(feature = "client")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client")))]
    pub fn http(url: impl Into<String>) -> Client {
        let limits = SharedLimits::default();
        let transport = Transport::Http(Box::new(HttpTransport::new(url.into(), Arc::clone(&limits))));
        Self::with(transport, SharedCallbacks::default(), limits)
    }

    /// A client speaking newline-delimited JSON on `reader` and `writer`
    /// (a child's stdout and stdin, or a pipe). Needs a Tokio runtime: it
    /// reads in a task of its own.
    #[cfg(feature = "client")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client")))]
    pub fn stdio<R, W>(reader: R, writer: W) -> Client
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let (callbacks, limits) = (SharedCallbacks::default(), SharedLimits::default());
        let transport =
            Transport::Lines(LinesTransport::new(reader, writer, None, Arc::clone(&callbacks), Arc::clone(&limits)));
        Self::with(transport, callbacks, limits)
    }

    /// Starts `command` and speaks newline-delimited JSON on its stdin and
    /// stdout; its stderr is left as the command set it. The child is
    /// killed when the last clone of the client is dropped.
    #[cfg(feature = "client")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client")))]
    pub fn spawn(mut command: tokio::process::Command) -> Result<Client, Error> {
        use std::process::Stdio;
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| Error::Transport(format!("the server did not start: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Transport("the server's stdin or stdout is not a pipe".to_owned()));
        };
        let (callbacks, limits) = (SharedCallbacks::default(), SharedLimits::default());
        let transport = Transport::Lines(LinesTransport::new(
            stdout,
            stdin,
            Some(child),
            Arc::clone(&callbacks),
            Arc::clone(&limits),
        ));
        Ok(Self::with(transport, callbacks, limits))
    }

    /// A client of a server of this process (see `Client::in_process`,
    /// beside the dispatcher, which the client does not reach up to).
    pub(crate) fn over_local(server: Arc<dyn LocalServer>) -> Client {
        let transport = Transport::InProcess(InProcessTransport::new(server));
        let client = Self::with(transport, SharedCallbacks::default(), SharedLimits::default());
        // Nothing to find out: the server is at hand, and a session needs a wire.
        client.revision(Revision::Stateless)
    }

    fn with(transport: Transport, callbacks: SharedCallbacks, limits: SharedLimits) -> Client {
        let mut meta = RequestMeta::new(crate::protocol::PROTOCOL_VERSION);
        meta.client_info = Some(Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")));
        Client {
            transport,
            meta: Arc::new(meta),
            fixed_meta: Arc::default(),
            timeout: DEFAULT_TIMEOUT,
            bearer: None,
            next_id: Arc::new(AtomicI64::new(1)),
            revision: Revision::default(),
            negotiated: Arc::new(tokio::sync::OnceCell::new()),
            discovered: Arc::default(),
            callbacks,
            limits,
            observers: Observers::default(),
            #[cfg(feature = "client")]
            tool_headers: param_headers::ToolHeaders::default(),
            #[cfg(feature = "skills")]
            skills: skills_declared::Declared::default(),
        }
    }

    /// The protocol revision spoken with the server, settled now if no
    /// request has settled it yet (see [`Revision`]).
    pub async fn protocol_version(&self) -> Result<String, Error> {
        Ok(match self.negotiated().await? {
            Negotiated::Stateless => crate::protocol::PROTOCOL_VERSION.to_owned(),
            Negotiated::Session(session) => session.version.to_string(),
        })
    }

    async fn negotiated(&self) -> Result<&Negotiated, Error> {
        self.negotiated.get_or_try_init(|| self.negotiate()).await
    }

    async fn negotiate(&self) -> Result<Negotiated, Error> {
        match self.revision {
            Revision::Stateless => Ok(Negotiated::Stateless),
            Revision::Session => Ok(Negotiated::Session(self.initialize().await?)),
            Revision::Auto => match self.exchange(&Negotiated::Stateless, "server/discover", Map::new()).await {
                Ok(discovered) => {
                    *crate::sync::lock(&self.discovered) = Some(discovered);
                    Ok(Negotiated::Stateless)
                }
                Err(error) if negotiation::refuses_stateless(&error) => {
                    Ok(Negotiated::Session(self.initialize().await.map_err(|session| {
                        Error::Invalid(format!(
                            "the server speaks neither 2026-07-28 (`server/discover`: {error}) nor a 2025-era \
                             revision (`initialize`: {session})"
                        ))
                    })?))
                }
                Err(error) => Err(error),
            },
        }
    }

    /// `initialize` and `notifications/initialized`: a 2025-era session.
    async fn initialize(&self) -> Result<OpenedSession, Error> {
        let params = json!({
            "protocolVersion": ProtocolVersion::LATEST_SESSION.as_str(),
            "capabilities": self.meta.client_capabilities,
            "clientInfo": self.meta.client_info,
        });
        let id = self.next_id();
        let message = message::Outgoing::request(&id, "initialize", &params)?;
        let (reply, session_id) =
            self.send(message, &id, self.head(ProtocolVersion::LATEST_SESSION.as_str(), None, None)).await?;
        let session = OpenedSession::of(reply.into_result(&id)?, session_id)?;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        #[cfg_attr(not(feature = "client"), allow(unused_variables))]
        let head = self.head(session.version.as_str(), None, session.id.as_deref());
        let notified = async {
            match &self.transport {
                #[cfg(feature = "client")]
                Transport::Http(http) => http.notify(&initialized, &head).await,
                #[cfg(feature = "client")]
                Transport::Lines(lines) => lines.notify(&initialized).await,
                Transport::InProcess(local) => local.notify(&initialized).await,
            }
        };
        tokio::time::timeout(self.timeout, notified).await.map_err(|_| Error::Timeout(self.timeout))??;
        #[cfg(feature = "client")]
        self.read_session_stream(&session).await;
        Ok(session)
    }

    fn next_id(&self) -> RequestId {
        RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    fn head<'a>(
        &'a self,
        version: &'a str,
        method: Option<(&'a str, Option<&'a str>)>,
        session: Option<&'a str>,
    ) -> Head<'a> {
        Head {
            version,
            method,
            session,
            bearer: self.bearer.as_deref(),
            callbacks: &self.callbacks,
            notices: None,
            #[cfg(feature = "client")]
            params: &[],
        }
    }

    /// Sends `method` with `params` (an object, or `Null` for none) in the
    /// revision spoken with the server (with the client's `_meta` in
    /// 2026-07-28, completing any `_meta` the params have; in the session
    /// otherwise), and returns the result as it came. An `input_required`
    /// result is answered with the callbacks and the request sent again,
    /// until the result is complete.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        self.request_as(method, params, None).await
    }

    /// [`request`](Self::request), with a progress token and what hears
    /// the request's notifications.
    async fn request_as(
        &self,
        method: &str,
        params: Value,
        progress: Option<(Value, Notices)>,
    ) -> Result<Value, Error> {
        let mut params = match params {
            Value::Null => Map::new(),
            Value::Object(params) => params,
            other => return Err(Error::Invalid(format!("params must be an object, not {other}"))),
        };
        let negotiated = self.negotiated().await?;
        let most = self.limits.rounds();
        let mut rounds = 0;
        loop {
            let result = self.exchange_as(negotiated, method, params.clone(), &self.meta, progress.as_ref()).await?;
            if !answering::is_input_required(&result) {
                return Ok(result);
            }
            if rounds == most {
                return Err(Error::TooManyRounds { rounds, last: result });
            }
            rounds += 1;
            let callbacks = callbacks::current(&self.callbacks);
            let answers = match callbacks.answer_all(&result).await {
                Ok(answers) => answers,
                Err(Unanswered::NoCallback { .. } | Unanswered::Undeclared { .. }) => {
                    return Err(Error::InputRequired(result));
                }
                Err(other) => return Err(Error::Invalid(other.unreadable())),
            };
            answering::next_round(&mut params, &result, answers).map_err(Error::Invalid)?;
        }
    }

    async fn typed<T: DeserializeOwned>(&self, method: &str, params: Value) -> Result<T, Error> {
        read_as(method, self.request(method, params).await?)
    }

    /// `server/discover`: what the server is and offers. In a 2025-era
    /// session, what its `initialize` result said (the revision it answered
    /// with as the one version). The first call after
    /// [`Revision::Auto`] found out the revision with a `server/discover`
    /// returns that one's result instead of asking again; later calls ask.
    pub async fn discover(&self) -> Result<DiscoverResult, Error> {
        let negotiated = self.negotiated().await?;
        if let Some(discovered) = crate::sync::lock(&self.discovered).take() {
            return read_as("server/discover", discovered);
        }
        if let Negotiated::Session(session) = negotiated {
            let capabilities = session.result.get("capabilities").cloned().unwrap_or_else(|| json!({}));
            let capabilities = serde_json::from_value(capabilities)
                .map_err(|e| Error::Invalid(format!("`initialize` capabilities that do not read: {e}")))?;
            let mut discovered = DiscoverResult::new(vec![session.version.to_string()], capabilities);
            discovered.instructions = session.result.get("instructions").and_then(Value::as_str).map(str::to_owned);
            return Ok(discovered);
        }
        self.typed("server/discover", Value::Null).await
    }

    /// `tools/list`, every page. A tool whose `x-mcp-header` annotations
    /// break the protocol's rules is left out (with a warning logged), as
    /// the protocol asks of clients; of the others, the client learns which
    /// arguments their calls mirror into `Mcp-Param-*` headers over HTTP
    /// (so list a server's tools before calling them).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        #[cfg_attr(not(feature = "client"), allow(unused_mut))]
        let mut tools = self.list("tools/list", "tools").await?;
        #[cfg(feature = "client")]
        self.tool_headers.admit(&mut tools);
        Ok(tools)
    }

    /// `prompts/list`, every page, as JSON objects.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, Error> {
        self.list("prompts/list", "prompts").await
    }

    /// `resources/list`, every page, as JSON objects.
    pub async fn list_resources(&self) -> Result<Vec<Value>, Error> {
        self.list("resources/list", "resources").await
    }

    /// `resources/templates/list`, every page, as JSON objects.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, Error> {
        self.list("resources/templates/list", "resourceTemplates").await
    }

    async fn list<T: DeserializeOwned>(&self, method: &str, key: &str) -> Result<Vec<T>, Error> {
        let most = self.limits.list_items();
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
            if items.len().saturating_add(list.len()) > most {
                return Err(Error::Invalid(format!("`{method}` lists more than {most} items")));
            }
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

    /// `tools/call` of `name` with `arguments` (an object). Over HTTP, the
    /// arguments the tool mirrors into headers are sent in them too (see
    /// [`list_tools`](Self::list_tools)); a client that never listed the
    /// tools, refused a call for a missing header (`-32020`), lists them
    /// and sends the call again once.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, Error> {
        #[cfg(feature = "client")]
        let again =
            (matches!(self.transport, Transport::Http(_)) && !self.tool_headers.listed()).then(|| arguments.clone());
        let called = self.typed("tools/call", json!({ "name": name, "arguments": arguments })).await;
        #[cfg(feature = "client")]
        if let (Err(Error::Rpc(error)), Some(arguments)) = (&called, again)
            && error.code == crate::protocol::ErrorCode::HeaderMismatch.code()
        {
            self.list_tools().await?;
            if self.tool_headers.of(name).is_some() {
                return self.typed("tools/call", json!({ "name": name, "arguments": arguments })).await;
            }
        }
        called
    }

    /// `resources/read` of `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.typed("resources/read", json!({ "uri": uri })).await
    }

    /// Ends the conversation with the server: a 2025-era session over
    /// HTTP is ended with `DELETE` (a server that does not let clients end
    /// sessions answers 405, which is taken as done); nothing else keeps
    /// state at the server (a child process ends when the last clone of
    /// its client is dropped). Requests after it fail: open a new client.
    pub async fn close(&self) -> Result<(), Error> {
        match (self.negotiated.get(), &self.transport) {
            #[cfg(feature = "client")]
            (Some(Negotiated::Session(session)), Transport::Http(http)) if session.id.is_some() => {
                let head = self.head(session.version.as_str(), None, session.id.as_deref());
                let ended = http.end_session(&head);
                tokio::time::timeout(self.timeout, ended).await.map_err(|_| Error::Timeout(self.timeout))?
            }
            _ => Ok(()),
        }
    }

    /// `completion/complete`: values for `argument` of the prompt or
    /// resource template `reference`, of which `value` is typed so far,
    /// given the `other` arguments already chosen (empty for none).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime::client::Client) -> Result<(), mcp_runtime::client::Error> {
    /// use mcp_runtime::protocol::CompletionReference;
    ///
    /// let prompt = CompletionReference::Prompt { name: "greet".into(), title: None };
    /// let completion = client.complete(prompt, "language", "fr", &Default::default()).await?;
    /// # let _ = completion; Ok(()) }
    /// ```
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        other: &Map<String, Value>,
    ) -> Result<Completion, Error> {
        let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        if !other.is_empty() {
            params["context"] = json!({ "arguments": other });
        }
        let mut result = self.request("completion/complete", params).await?;
        read_as("completion/complete", result.get_mut("completion").map(Value::take).unwrap_or_default())
    }

    /// `prompts/get` of `name` with `arguments` (an object of strings).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult, Error> {
        self.typed("prompts/get", json!({ "name": name, "arguments": arguments })).await
    }
}

/// The result of `method` read as the type it has.
fn read_as<T: DeserializeOwned>(method: &str, result: Value) -> Result<T, Error> {
    serde_json::from_value(result).map_err(|e| Error::Invalid(format!("a `{method}` result that does not read: {e}")))
}
