//! `subscriptions/listen`: a request whose answer is a stream of change
//! notifications, filtered to what the client asked for.
//!
//! Nothing about the subscription outlives the request: the filter comes
//! from its params, the stream ends when the client cancels (stdio
//! `notifications/cancelled`, a closed HTTP stream) or when the server
//! closes its streams for shutdown, which ends it gracefully with the
//! closing result.

use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::context_parts::ContextParts;
use super::parts::Route;
use crate::dispatch::decorate::finish;
use crate::dispatch::{Prepared, RequestOptions};
use crate::events::ServerEvent;
use crate::protocol::{
    ErrorObject, ListenParams, META_SUBSCRIPTION_ID, Notification, PROMPTS_LIST_CHANGED, RESOURCES_LIST_CHANGED,
    RESOURCES_UPDATED, RequestId, RequestMeta, ResultType, SUBSCRIPTIONS_ACKNOWLEDGED, ServerCapabilities,
    SubscriptionFilter, TOOLS_LIST_CHANGED, uri,
};
use crate::response::{Response, Stage};
use crate::server::{Server, Snapshot};
use crate::tasks;
#[cfg(feature = "tasks")]
use crate::tasks::TASKS_NOTIFICATION;

/// The filter the stream follows: what the client asked for, as far as
/// the server offers it. Asking for tasks needs the tasks extension.
pub(super) fn route(snapshot: &Snapshot, p: ListenParams, meta: &RequestMeta) -> Result<Route, (ErrorObject, Stage)> {
    if p.notifications.task_ids.as_ref().is_some_and(|ids| !ids.is_empty())
        && !tasks::declared(&meta.client_capabilities)
    {
        return Err((tasks::missing_extension("Following tasks (`taskIds`)"), Stage::Params));
    }
    // Each one is repeated in `notifications/resources/updated`.
    for subscribed in p.notifications.resource_subscriptions.as_deref().unwrap_or_default() {
        uri::check("resourceSubscriptions", subscribed).map_err(|e| (e, Stage::Params))?;
    }
    Ok(Route::Listen(honoured(snapshot.capabilities(), p.notifications)))
}

/// Streams until the client or the server ends it, then closes with an
/// empty result tagged with the subscription.
pub(super) async fn run(p: &Prepared, filter: SubscriptionFilter, parts: ContextParts) -> Response {
    #[cfg_attr(not(feature = "tasks"), expect(unused_variables, reason = "only tasks have owners"))]
    let (cx, options) = parts.split(p);
    #[cfg(feature = "tasks")]
    let owner = filter.task_ids.as_ref().and_then(|_| p.server.tasks().owner_of(&cx));
    let listener = Listener {
        server: &p.server,
        id: &p.id,
        filter: &filter,
        #[cfg(feature = "tasks")]
        owner: owner.as_deref(),
    };
    listener.stream(&options).await;
    let meta = closing_meta(&p.id);
    finish(p, ResultType::Complete, &EmptyBody {}, Some(meta), None)
}

/// The body of a result with no fields of its own.
#[derive(Serialize)]
struct EmptyBody {}

/// The part of the requested filter this server honours.
fn honoured(caps: &ServerCapabilities, asked: SubscriptionFilter) -> SubscriptionFilter {
    let yes = |asked: Option<bool>, offered: bool| (asked == Some(true) && offered).then_some(true);
    let resources = caps.resources.as_ref();
    // Field by field from nothing: a kind of notification this server does
    // not know of is not honoured.
    let mut honoured = SubscriptionFilter::default();
    honoured.tools_list_changed =
        yes(asked.tools_list_changed, caps.tools.as_ref().is_some_and(|c| c.list_changed == Some(true)));
    honoured.prompts_list_changed =
        yes(asked.prompts_list_changed, caps.prompts.as_ref().is_some_and(|c| c.list_changed == Some(true)));
    honoured.resources_list_changed =
        yes(asked.resources_list_changed, resources.is_some_and(|c| c.list_changed == Some(true)));
    honoured.resource_subscriptions = asked
        .resource_subscriptions
        .filter(|uris| !uris.is_empty() && resources.is_some_and(|c| c.subscribe == Some(true)));
    // Every id asked for is acknowledged, known or not: the answer must not
    // tell which tasks exist.
    honoured.task_ids = asked.task_ids.filter(|ids| !ids.is_empty() && super::name::tasks_offered(caps));
    honoured
}

/// The `_meta` tagging every frame of the stream, and its closing result.
fn closing_meta(id: &RequestId) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(META_SUBSCRIPTION_ID.into(), id.to_value());
    meta
}

fn frame(method: &str, id: &RequestId, mut params: Map<String, Value>) -> Notification {
    params.insert("_meta".into(), Value::Object(closing_meta(id)));
    Notification::new(method, Value::Object(params))
}

fn covers(subscribed: &str, uri: &str) -> bool {
    uri == subscribed
        || uri
            .strip_prefix(subscribed)
            .is_some_and(|rest| subscribed.ends_with('/') || rest.starts_with(['/', '?', '#']))
}

fn notification_for(event: &ServerEvent, filter: &SubscriptionFilter, id: &RequestId) -> Option<Notification> {
    match event {
        ServerEvent::ToolsListChanged if filter.tools_list_changed == Some(true) => {
            Some(frame(TOOLS_LIST_CHANGED, id, Map::new()))
        }
        ServerEvent::PromptsListChanged if filter.prompts_list_changed == Some(true) => {
            Some(frame(PROMPTS_LIST_CHANGED, id, Map::new()))
        }
        ServerEvent::ResourcesListChanged if filter.resources_list_changed == Some(true) => {
            Some(frame(RESOURCES_LIST_CHANGED, id, Map::new()))
        }
        ServerEvent::ResourceUpdated { uri } => {
            let subscribed = filter.resource_subscriptions.as_deref().unwrap_or_default();
            subscribed.iter().any(|s| covers(s, uri)).then(|| {
                let mut params = Map::new();
                params.insert("uri".into(), Value::String(uri.clone()));
                frame(RESOURCES_UPDATED, id, params)
            })
        }
        _ => None,
    }
}

/// One notification for every kind the filter follows (each subscribed
/// resource as updated), sent when events were lost: every notification
/// of a listen stream only says "this may have changed, read it again", so
/// announcing them all is the truthful answer to an unknown loss.
fn catch_up(filter: &SubscriptionFilter, id: &RequestId) -> Vec<Notification> {
    let mut events = Vec::new();
    if filter.tools_list_changed == Some(true) {
        events.push(frame(TOOLS_LIST_CHANGED, id, Map::new()));
    }
    if filter.prompts_list_changed == Some(true) {
        events.push(frame(PROMPTS_LIST_CHANGED, id, Map::new()));
    }
    if filter.resources_list_changed == Some(true) {
        events.push(frame(RESOURCES_LIST_CHANGED, id, Map::new()));
    }
    for uri in filter.resource_subscriptions.as_deref().unwrap_or_default() {
        let mut params = Map::new();
        params.insert("uri".into(), Value::String(uri.clone()));
        events.push(frame(RESOURCES_UPDATED, id, params));
    }
    events
}

/// One listen stream: who listens to what.
struct Listener<'a> {
    server: &'a Server,
    id: &'a RequestId,
    filter: &'a SubscriptionFilter,
    /// The owner of the request, whose tasks only it follows.
    #[cfg(feature = "tasks")]
    owner: Option<&'a str>,
}

impl Listener<'_> {
    /// Acknowledges the subscription, then forwards matching events until
    /// the client cancels or the server closes its streams.
    async fn stream(&self, options: &RequestOptions) {
        let (id, filter) = (self.id, self.filter);
        // Subscribe before acknowledging so no change after the ack is missed.
        let mut events = self.server.subscribe_events();
        let closing = self.server.closing().clone();
        let ack = json!({ "notifications": filter });
        let Value::Object(ack) = ack else { return };
        options.sink.send(frame(SUBSCRIPTIONS_ACKNOWLEDGED, id, ack));
        loop {
            tokio::select! {
                () = cancelled(options) => return,
                () = closing.cancelled() => return,
                event = events.recv() => match event {
                    Ok(ServerEvent::TaskStatus { task_id }) => {
                        if let Some(n) = self.task(&task_id).await {
                            options.sink.send(n);
                        }
                    }
                    // The bus lost events on their way here (an outage of
                    // its engine): as for a listener that fell behind.
                    Ok(ServerEvent::EventsMissed) => self.catch_up(options).await,
                    Ok(event) => {
                        if let Some(n) = notification_for(&event, filter, id) {
                            options.sink.send(n);
                        }
                    }
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "a listen stream fell behind; announcing every subscribed kind");
                        self.catch_up(options).await;
                    }
                    Err(RecvError::Closed) => return,
                },
            }
        }
    }

    /// After events were lost that cannot be named: the client is told that
    /// everything it follows may have changed, rather than missing a change
    /// for good.
    async fn catch_up(&self, options: &RequestOptions) {
        for n in catch_up(self.filter, self.id) {
            options.sink.send(n);
        }
        for task_id in self.filter.task_ids.as_deref().unwrap_or_default() {
            if let Some(n) = self.task(task_id).await {
                options.sink.send(n);
            }
        }
    }

    /// `notifications/tasks` with the task as `tasks/get` shows it, if the
    /// stream follows it and it belongs to the listener.
    async fn task(&self, task_id: &str) -> Option<Notification> {
        if !self.filter.task_ids.as_deref().unwrap_or_default().iter().any(|t| t == task_id) {
            return None;
        }
        #[cfg(feature = "tasks")]
        {
            let record = self.server.tasks().peek(task_id).await?;
            if record.owner.as_deref() != self.owner {
                return None;
            }
            match serde_json::to_value(record.wire(true)) {
                Ok(Value::Object(params)) => Some(frame(TASKS_NOTIFICATION, self.id, params)),
                _ => None,
            }
        }
        #[cfg(not(feature = "tasks"))]
        None
    }
}

/// Without a token the stream ends only by being dropped.
async fn cancelled(options: &RequestOptions) {
    match &options.cancellation {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_resources_are_covered() {
        assert!(covers("file:///a", "file:///a"));
        assert!(covers("file:///a", "file:///a/b"));
        assert!(covers("file:///a/", "file:///a/b"));
        assert!(!covers("file:///a", "file:///ab"));
    }
}
