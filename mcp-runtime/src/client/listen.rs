//! Listening to what a server announces as it happens: its lists changing
//! and the resources the client follows being updated. In 2026-07-28 a
//! `subscriptions/listen` request, whose stream the [`Listener`] reads; in
//! a 2025-era session a `resources/subscribe` for each resource followed,
//! and the session's standalone stream (over HTTP) or the pipe.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};
use tokio::sync::Notify;

use super::error::{self, Error};
use super::lines::{LinesTransport, Watch};
use super::negotiation::{Negotiated, OpenedSession};
use super::notices::Notices;
use super::{Client, Transport};
use crate::protocol::PROTOCOL_VERSION;
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
            Change::Other(_) | Change::Lagged => true,
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
    /// Announcements were dropped: more came than the listener holds
    /// while its reader does not read ([`Client::max_pending_changes`]).
    /// Everything followed may have changed: list again, read again.
    Lagged,
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
///
/// What the server announces is held for the reader, bounded however fast
/// it comes: a list change as one, however often it is announced before it
/// is read (list again once, not once per announcement); other
/// announcements in order, a resource's update once, up to
/// [`Client::max_pending_changes`]; beyond that, they are dropped, and the
/// reader is told so with [`Change::Lagged`].
pub struct Listener {
    held: Arc<Held>,
    _end: End,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener").field("interests", &self.held.interests).finish_non_exhaustive()
    }
}

impl Listener {
    /// The next change, or `None` once the server ended the stream (or the
    /// connection was lost: listen again to go on).
    pub async fn next(&mut self) -> Option<Change> {
        loop {
            let woken = self.held.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            {
                let mut pending = self.held.pending();
                if let Some(change) = pending.take() {
                    return Some(change);
                }
                if pending.ended {
                    return None;
                }
            }
            woken.await;
        }
    }
}

/// What a listener holds for its reader.
struct Held {
    interests: Interests,
    pending: Mutex<Pending>,
    wake: Notify,
}

/// The announcements not read yet.
#[derive(Default)]
struct Pending {
    tools: bool,
    prompts: bool,
    resources: bool,
    /// Resource updates and other announcements, in order.
    queue: VecDeque<Change>,
    /// How many the queue holds at most.
    limit: usize,
    lagged: bool,
    /// The stream ended: nothing more comes.
    ended: bool,
}

impl Held {
    fn new(interests: Interests, limit: usize) -> Arc<Self> {
        Arc::new(Held { interests, pending: Mutex::new(Pending { limit, ..Pending::default() }), wake: Notify::new() })
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        crate::sync::lock(&self.pending)
    }
}

impl Pending {
    /// The change to read first: what was dropped, then the lists, then the
    /// rest in order.
    fn take(&mut self) -> Option<Change> {
        if std::mem::take(&mut self.lagged) {
            return Some(Change::Lagged);
        }
        for (flag, change) in [
            (&mut self.tools, Change::Tools),
            (&mut self.prompts, Change::Prompts),
            (&mut self.resources, Change::Resources),
        ] {
            if std::mem::take(flag) {
                return Some(change);
            }
        }
        self.queue.pop_front()
    }

    fn hold(&mut self, change: Change) {
        match change {
            Change::Tools => self.tools = true,
            Change::Prompts => self.prompts = true,
            Change::Resources => self.resources = true,
            Change::Lagged => self.lagged = true,
            update @ Change::Resource { .. } if self.queue.contains(&update) => {}
            other if self.queue.len() >= self.limit => {
                drop(other);
                self.lagged = true;
            }
            other => self.queue.push_back(other),
        }
    }
}

/// What feeds a listener's announcements; the stream is over once the
/// last clone is dropped.
#[derive(Clone)]
struct Feed(Arc<FeedEnd>);

struct FeedEnd(Arc<Held>);

impl Feed {
    fn new(held: &Arc<Held>) -> Self {
        Feed(Arc::new(FeedEnd(Arc::clone(held))))
    }

    /// Holds what `message` announces, if the listener is to hear of it.
    fn push(&self, message: &Value) {
        let held = &self.0.0;
        let Some(change) = Change::of(message).filter(|change| held.interests.wants(change)) else { return };
        held.pending().hold(change);
        held.wake.notify_one();
    }
}

impl Drop for FeedEnd {
    fn drop(&mut self) {
        self.0.pending().ended = true;
        self.0.wake.notify_one();
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
            Negotiated::Stateless => self.listen_stateless(interests).await,
            Negotiated::Session(session) => self.listen_in_session(session, interests).await,
        }
    }

    async fn listen_stateless(&self, interests: Interests) -> Result<Listener, Error> {
        let id = self.next_id();
        let params = json!({"_meta": self.meta.to_value(), "notifications": interests.notifications()});
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params});
        let held = Held::new(interests, self.limits.pending_changes());
        let feed = Feed::new(&held);
        let end = match &self.transport {
            Transport::Http(http) => {
                let head = self.head(PROTOCOL_VERSION, Some(("subscriptions/listen", None)), None);
                let mut events = self.within(http.open_stream(&message, &head, &id)).await??;
                let first = self.within(events.next()).await??;
                let first = first.ok_or_else(|| Error::Transport("the listen stream ended at once".to_owned()))?;
                acknowledged(&first, &id)?;
                let reader = tokio::spawn(async move {
                    while let Ok(Some(message)) = events.next().await {
                        if message.get("id").is_some() {
                            return;
                        }
                        feed.push(&message);
                    }
                });
                End::Reader(reader.abort_handle())
            }
            Transport::Lines(lines) => {
                let subscription = id.to_value();
                // The acknowledgement comes first, once.
                let (acknowledge, acknowledgement) = tokio::sync::oneshot::channel::<Value>();
                let acknowledge = Mutex::new(Some(acknowledge));
                let watch = lines.watch(
                    id.clone(),
                    Notices::new(move |message: &Value| {
                        let meta = message.pointer("/params/_meta").and_then(|meta| meta.get(SUBSCRIPTION_ID));
                        if meta != Some(&subscription) {
                            return;
                        }
                        match crate::sync::lock(&acknowledge).take() {
                            Some(first) => {
                                let _ = first.send(message.clone());
                            }
                            None => feed.push(message),
                        }
                    }),
                );
                let answered = lines.start(&message, &id).await?;
                let end = End::Cancel { lines: lines.clone(), id: id.clone(), _watch: watch };
                let first = async {
                    tokio::select! {
                        first = acknowledgement => first.map_err(|_| Error::Transport("the server's output ended".to_owned())),
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
            Transport::InProcess(_) => return Err(in_process_listens_not()),
        };
        Ok(Listener { held, _end: end })
    }

    async fn listen_in_session(&self, session: &OpenedSession, interests: Interests) -> Result<Listener, Error> {
        for uri in &interests.uris {
            self.request("resources/subscribe", json!({ "uri": uri })).await?;
        }
        let held = Held::new(interests, self.limits.pending_changes());
        let feed = Feed::new(&held);
        let end = match &self.transport {
            Transport::Http(http) => {
                Client::stop_session_stream(session);
                let head = self.head(session.version.as_str(), None, session.id.as_deref());
                let mut events = self.within(http.standalone_stream(&head)).await??;
                let poster = http.poster(&head);
                let reader = tokio::spawn(async move {
                    while let Ok(Some(message)) = events.next().await {
                        match (message.get("method").is_some(), message.get("id").is_some()) {
                            (true, true) => poster.answer_later(message, None).await,
                            (true, false) => feed.push(&message),
                            _ => {}
                        }
                    }
                });
                End::Reader(reader.abort_handle())
            }
            Transport::Lines(lines) => {
                let key = self.next_id();
                let watch = lines.watch(key, Notices::new(move |message: &Value| feed.push(message)));
                End::Stop { _watch: watch }
            }
            Transport::InProcess(_) => return Err(in_process_listens_not()),
        };
        Ok(Listener { held, _end: end })
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

/// The refusal of a listener of the in-process client: a listen stream
/// outlives its request, and the in-process transport holds none open.
fn in_process_listens_not() -> Error {
    Error::Transport("an in-process client does not listen: announcements need a stream (HTTP or stdio)".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn updated(uri: &str) -> Value {
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
    }

    #[tokio::test]
    async fn a_flood_of_announcements_is_held_bounded_and_the_reader_told_what_was_dropped() {
        let interests = Interests::new().tools().resource("a://1").resource("a://2");
        let uris: Vec<String> = (0..100).map(|i| format!("a://{i}")).collect();
        let interests = uris.iter().fold(interests, |interests, uri| interests.resource(uri.clone()));
        let held = Held::new(interests, 10);
        let feed = Feed::new(&held);
        let reader = tokio::spawn(async {}).abort_handle();
        let mut listener = Listener { held: Arc::clone(&held), _end: End::Reader(reader) };
        // A million list changes are one; a resource's updates are one until read.
        for _ in 0..1_000_000 {
            feed.push(&json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
        }
        for _ in 0..1000 {
            feed.push(&updated("a://1"));
        }
        assert_eq!(held.pending().queue.len(), 1);
        // More updates than are held: the rest dropped, and said so.
        for uri in &uris {
            feed.push(&updated(uri));
        }
        assert_eq!(held.pending().queue.len(), 10, "bounded");
        assert_eq!(listener.next().await, Some(Change::Lagged));
        assert_eq!(listener.next().await, Some(Change::Tools));
        assert_eq!(listener.next().await, Some(Change::Resource { uri: "a://1".into() }));
        for _ in 0..9 {
            assert!(matches!(listener.next().await, Some(Change::Resource { .. })));
        }
        // What is not of interest is not held; the end of the feed ends it.
        feed.push(&json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}));
        drop(feed);
        assert_eq!(listener.next().await, None);
    }
}
