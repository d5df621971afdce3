//! Listening to what a server announces as it happens: its lists changing
//! and the resources the client follows being updated. In 2026-07-28 a
//! `subscriptions/listen` request, whose stream the [`Listener`] reads; in
//! a 2025-era session a `resources/subscribe` for each resource followed,
//! and the session's standalone stream (over HTTP) or the pipe.

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::error::{self, Error};
use super::lines::{LinesTransport, Watch};
use super::negotiation::{LegacySession, Negotiated};
use super::notices::Notices;
use super::{Client, PROTOCOL_VERSION, Transport};
use crate::protocol::RequestId;

/// The `_meta` key naming the listen request a notification belongs to.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a [`Listener`] is to hear of.
///
/// ```
/// use mcp_runtime::client::Interests;
///
/// let interests = Interests::new().tools().resource("notes://1");
/// # let _ = interests;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interests {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
}

impl Interests {
    /// Nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Changes of the tool list.
    pub fn tools(mut self) -> Self {
        self.tools = true;
        self
    }

    /// Changes of the prompt list.
    pub fn prompts(mut self) -> Self {
        self.prompts = true;
        self
    }

    /// Changes of the resource list.
    pub fn resources(mut self) -> Self {
        self.resources = true;
        self
    }

    /// Updates of the resource at `uri`.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.uris.push(uri.into());
        self
    }

    /// `subscriptions/listen`'s `notifications`.
    fn notifications(&self) -> Value {
        let mut notifications = json!({});
        for (wanted, key) in [
            (self.tools, "toolsListChanged"),
            (self.prompts, "promptsListChanged"),
            (self.resources, "resourcesListChanged"),
        ] {
            if wanted {
                notifications[key] = json!(true);
            }
        }
        if !self.uris.is_empty() {
            notifications["resourceSubscriptions"] = json!(self.uris);
        }
        notifications
    }

    /// Whether `change` is one of these (a 2025-era server announces every
    /// list change it has to every session).
    fn wants(&self, change: &Change) -> bool {
        match change {
            Change::Tools => self.tools,
            Change::Prompts => self.prompts,
            Change::Resources => self.resources,
            Change::Resource { uri } => self.uris.contains(uri),
            Change::Other(_) => true,
        }
    }
}

/// What a server announced.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed: list it again.
    Tools,
    /// The prompt list changed.
    Prompts,
    /// The resource list changed.
    Resources,
    /// The resource at `uri` changed: read it again.
    Resource {
        /// Which resource.
        uri: String,
    },
    /// Another notification on the stream (a task's status, with the tasks
    /// extension), as it came.
    Other(Value),
}

impl Change {
    /// The change a notification announces; `None` for what announces
    /// none (the acknowledgement, progress, log messages).
    fn of(message: &Value) -> Option<Change> {
        Some(match message.get("method")?.as_str()? {
            "notifications/tools/list_changed" => Change::Tools,
            "notifications/prompts/list_changed" => Change::Prompts,
            "notifications/resources/list_changed" => Change::Resources,
            "notifications/resources/updated" => {
                Change::Resource { uri: message.pointer("/params/uri")?.as_str()?.to_owned() }
            }
            "notifications/subscriptions/acknowledged"
            | "notifications/progress"
            | "notifications/message"
            | "notifications/cancelled" => return None,
            _ => Change::Other(message.clone()),
        })
    }
}

/// The changes a server announces, from [`Client::listen`], until dropped
/// (which ends the listen request at the server).
///
/// ```no_run
/// # async fn run() -> Result<(), mcp_runtime::client::Error> {
/// use mcp_runtime::client::{Change, Client, Interests};
///
/// let client = Client::http("http://127.0.0.1:3000/mcp");
/// let mut changes = client.listen(Interests::new().tools().resource("notes://1")).await?;
/// while let Some(change) = changes.next().await {
///     if let Change::Resource { uri } = change {
///         let _ = client.read_resource(&uri).await?;
///     }
/// }
/// # Ok(()) }
/// ```
pub struct Listener {
    messages: mpsc::UnboundedReceiver<Value>,
    interests: Interests,
    _end: End,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener").field("interests", &self.interests).finish_non_exhaustive()
    }
}

impl Listener {
    /// The next change, or `None` once the server ended the stream (or the
    /// connection was lost: listen again to go on).
    pub async fn next(&mut self) -> Option<Change> {
        while let Some(message) = self.messages.recv().await {
            if let Some(change) = Change::of(&message).filter(|change| self.interests.wants(change)) {
                return Some(change);
            }
        }
        None
    }
}

/// How a listener's stream is ended when it is dropped.
enum End {
    /// The task reading an HTTP stream: aborted, which closes the stream.
    Reader(tokio::task::AbortHandle),
    /// A listen request on a pipe: `notifications/cancelled` for it.
    Cancel { lines: LinesTransport, id: RequestId, _watch: Watch },
    /// A 2025-era session's pipe: only stop hearing it.
    Stop { _watch: Watch },
}

impl Drop for End {
    fn drop(&mut self) {
        match self {
            End::Reader(task) => task.abort(),
            End::Cancel { lines, id, .. } => {
                lines.forget(id);
                let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": id.to_value(), "reason": "the client stopped listening"}});
                let lines = lines.clone();
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move {
                        let _ = lines.notify(&cancelled).await;
                    });
                }
            }
            End::Stop { .. } => {}
        }
    }
}

impl Client {
    /// Listens to the changes of `interests`, as the server announces them.
    ///
    /// In 2026-07-28 this is a `subscriptions/listen` request, answered
    /// once the server acknowledged it; the server announces only what it
    /// supports of `interests`. In a 2025-era session each resource of
    /// `interests` is subscribed to (`resources/subscribe`; the
    /// subscriptions stay with the session when the listener is dropped)
    /// and the session's announcements are read: its standalone stream
    /// over HTTP (one per session: a second listener takes it over, as the
    /// server allows), the pipe otherwise.
    pub async fn listen(&self, interests: Interests) -> Result<Listener, Error> {
        match self.negotiated().await? {
            Negotiated::Modern => self.listen_modern(interests).await,
            Negotiated::Legacy(session) => self.listen_in_session(session, interests).await,
        }
    }

    async fn listen_modern(&self, interests: Interests) -> Result<Listener, Error> {
        let id = self.next_id();
        let params = json!({"_meta": self.meta.to_value(), "notifications": interests.notifications()});
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params});
        let (sender, mut messages) = mpsc::unbounded_channel();
        let end = match &self.transport {
            Transport::Http(http) => {
                let head = self.head(PROTOCOL_VERSION, Some(("subscriptions/listen", None)), None);
                let mut events = self.within(http.open_stream(&message, &head, &id)).await??;
                let first = self.within(events.next()).await??;
                let first = first.ok_or_else(|| Error::Transport("the listen stream ended at once".to_owned()))?;
                acknowledged(&first, &id)?;
                let reader = tokio::spawn(async move {
                    while let Ok(Some(message)) = events.next().await {
                        if message.get("id").is_some() || sender.send(message).is_err() {
                            return;
                        }
                    }
                });
                End::Reader(reader.abort_handle())
            }
            Transport::Lines(lines) => {
                let subscription = id.to_value();
                let watch = lines.watch(
                    id.clone(),
                    Notices::new(move |message: &Value| {
                        let meta = message.pointer("/params/_meta").and_then(|meta| meta.get(SUBSCRIPTION_ID));
                        if meta == Some(&subscription) {
                            let _ = sender.send(message.clone());
                        }
                    }),
                );
                let answered = lines.start(&message, &id).await?;
                let end = End::Cancel { lines: lines.clone(), id: id.clone(), _watch: watch };
                let first = async {
                    tokio::select! {
                        first = messages.recv() => first.ok_or_else(|| Error::Transport("the server's output ended".to_owned())),
                        answer = answered => {
                            let answer = answer.map_err(|_| Error::Transport("the server's output ended".to_owned()))?;
                            error::result_of(answer, &id)?;
                            Err(Error::Invalid("the listen request ended before it was acknowledged".to_owned()))
                        }
                    }
                };
                acknowledged(&self.within(first).await??, &id)?;
                end
            }
        };
        Ok(Listener { messages, interests, _end: end })
    }

    async fn listen_in_session(&self, session: &LegacySession, interests: Interests) -> Result<Listener, Error> {
        for uri in &interests.uris {
            self.request("resources/subscribe", json!({ "uri": uri })).await?;
        }
        let (sender, messages) = mpsc::unbounded_channel();
        let end = match &self.transport {
            Transport::Http(http) => {
                let head = self.head(&session.version, None, session.id.as_deref());
                let mut events = self.within(http.standalone_stream(&head)).await??;
                let poster = http.poster(&head);
                let reader = tokio::spawn(async move {
                    while let Ok(Some(message)) = events.next().await {
                        match (message.get("method").is_some(), message.get("id").is_some()) {
                            (true, true) => poster.answer_later(message, None),
                            (true, false) if sender.send(message).is_err() => return,
                            _ => {}
                        }
                    }
                });
                End::Reader(reader.abort_handle())
            }
            Transport::Lines(lines) => {
                let key = self.next_id();
                let watch = lines.watch(
                    key,
                    Notices::new(move |message: &Value| {
                        let _ = sender.send(message.clone());
                    }),
                );
                End::Stop { _watch: watch }
            }
        };
        Ok(Listener { messages, interests, _end: end })
    }

    /// `future`, within the client's time limit.
    async fn within<T>(&self, future: impl std::future::Future<Output = T>) -> Result<T, Error> {
        tokio::time::timeout(self.timeout, future).await.map_err(|_| Error::Timeout(self.timeout))
    }
}

/// Checks that `message` acknowledges listen request `id`, or reads the
/// error it answers with.
fn acknowledged(message: &Value, id: &RequestId) -> Result<(), Error> {
    if message.get("method").and_then(Value::as_str) == Some("notifications/subscriptions/acknowledged") {
        return Ok(());
    }
    if message.get("method").is_none() {
        error::result_of(message.clone(), id)?;
    }
    Err(Error::Invalid(format!("a listen stream that does not begin with its acknowledgement: {message}")))
}
