//! Changes announced to a 2025-era session: `*/list_changed` to every
//! session, `notifications/resources/updated` to those subscribed to the URI.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::live::Session;
use crate::events::ServerEvent;
use crate::server::Server;

/// Forwards the server's changes to `session`'s standalone stream until the
/// session ends.
pub(crate) fn watch(server: &Server, session: &Arc<Session>) {
    let list_changed = server.capabilities().tools.is_some_and(|t| t.list_changed == Some(true))
        || server.capabilities().prompts.is_some_and(|p| p.list_changed == Some(true))
        || server.capabilities().resources.is_some_and(|r| r.list_changed == Some(true));
    let mut events = server.subscribe_events();
    let session = Arc::clone(session);
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = session.ended() => return,
                event = events.recv() => event,
            };
            match event {
                Ok(event) if event != ServerEvent::EventsMissed => {
                    if let Some(message) = notification(&session, &event, list_changed) {
                        session.send_standalone(message);
                    }
                }
                // Missed changes (this watcher fell behind, or the bus lost
                // events on their way): say every list may have changed, and
                // every resource subscribed to.
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    let lists = [
                        ServerEvent::ToolsListChanged,
                        ServerEvent::PromptsListChanged,
                        ServerEvent::ResourcesListChanged,
                    ];
                    let updates = session.subscribed().into_iter().map(|uri| ServerEvent::ResourceUpdated { uri });
                    for event in lists.into_iter().chain(updates) {
                        if let Some(message) = notification(&session, &event, list_changed) {
                            session.send_standalone(message);
                        }
                    }
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
}

fn notification(session: &Session, event: &ServerEvent, list_changed: bool) -> Option<String> {
    let method = match event {
        ServerEvent::ToolsListChanged if list_changed => "notifications/tools/list_changed",
        ServerEvent::PromptsListChanged if list_changed => "notifications/prompts/list_changed",
        ServerEvent::ResourcesListChanged if list_changed => "notifications/resources/list_changed",
        ServerEvent::ResourceUpdated { uri } if session.is_subscribed(uri) => {
            let message =
                json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": uri } });
            return Some(message.to_string());
        }
        _ => return None,
    };
    Some(json!({ "jsonrpc": "2.0", "method": method }).to_string())
}
