//! The in-process transport: each request handed to a server of this
//! process as JSON text, so that a client in a test goes through the same
//! envelope and `_meta` reading as a client over a wire. Always compiled:
//! no feature, no socket, no task of its own.
//!
//! The client knows the server only as a [`LocalServer`], which the
//! dispatcher implements (with [`Client::in_process`](super::Client::in_process)):
//! the server may mount remotes through a client, so the client does not
//! reach up to it.
//!
//! It speaks the stateless revision only: a 2025-era session lives in a
//! transport (a stdio process, an HTTP endpoint), and there is none here.

use std::sync::Arc;

use serde_json::Value;

use super::error::Error;
use super::notices::Notices;
use crate::handler::BoxFuture;
use crate::handler::context::NotificationSink;
use crate::protocol::{Notification, RequestId};

/// A server of this process, as the in-process transport speaks to it.
pub(crate) trait LocalServer: Send + Sync + 'static {
    /// The server's name, for `Debug`.
    fn name(&self) -> &str;

    /// Serves one JSON-RPC message, the request's notifications to
    /// `sink`; the response, `None` for a notification.
    fn serve(&self, message: String, sink: Arc<dyn NotificationSink>) -> BoxFuture<'_, Option<Value>>;
}

/// A server of this process, served one request at a time per call.
#[derive(Clone)]
pub(super) struct InProcessTransport {
    server: Arc<dyn LocalServer>,
}

impl InProcessTransport {
    pub(super) fn new(server: Arc<dyn LocalServer>) -> Self {
        InProcessTransport { server }
    }

    /// The name of the server requests go to.
    pub(super) fn name(&self) -> &str {
        self.server.name()
    }

    /// Serves request `id` and returns its response. What the server
    /// sends within the request (progress, log messages) goes to
    /// `notices`; given up (the future dropped), the handler is cancelled
    /// as for a closed connection.
    pub(super) async fn send(
        &self,
        message: &Value,
        id: &RequestId,
        notices: Option<&Notices>,
    ) -> Result<Value, Error> {
        let sink = Arc::new(Hearing(notices.cloned()));
        match self.server.serve(message.to_string(), sink).await {
            Some(response) => Ok(response),
            None => Err(Error::Invalid(format!("no answer to request {id}"))),
        }
    }

    /// Hands a notification to the server (which answers none).
    pub(super) async fn notify(&self, message: &Value) -> Result<(), Error> {
        let _ = self.server.serve(message.to_string(), Arc::new(Hearing(None))).await;
        Ok(())
    }
}

/// Hands the notifications of one request to what hears them, if anything
/// does.
struct Hearing(Option<Notices>);

impl NotificationSink for Hearing {
    fn send(&self, notification: Notification) {
        if let (Some(notices), Ok(notification)) = (&self.0, serde_json::to_value(notification)) {
            notices.hear(&notification);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use crate::client::{Client, Error};
    use crate::entry::ToolEntry;
    use crate::extract::Progress;
    use crate::input::Elicitation;
    use crate::protocol::{CallToolResult, ContentBlock, ElicitResult};
    use crate::{Input, Server};

    /// The text of a result's first block.
    fn text(result: &CallToolResult) -> &str {
        match result.content.first() {
            Some(ContentBlock::Text(text)) => &text.text,
            other => panic!("no text first: {other:?}"),
        }
    }

    fn server() -> Server {
        Server::builder("local", "1.0.0")
            .tool(ToolEntry::new("ping", || async { "pong" }))
            .tool(ToolEntry::new("greet", |input: Input| async move {
                let answer = input.elicit("who", Elicitation::form("Your name?").text("name", true)).await;
                format!("Hello, {}!", answer.field("name").unwrap_or_default())
            }))
            .tool(ToolEntry::new("count", |progress: Progress| async move {
                for step in 1..=3 {
                    progress.report(f64::from(step), Some(3.0));
                }
                "counted"
            }))
            .build()
            .expect("a valid server")
    }

    #[tokio::test]
    async fn the_server_is_spoken_to_statelessly_through_its_wire_entry() {
        let client = Client::in_process(server());
        assert_eq!(client.protocol_version().await.expect("settled"), "2026-07-28");
        let discovered = client.discover().await.expect("discovered");
        assert_eq!(discovered.supported_versions[0], "2026-07-28");
        let tools: Vec<String> = client.list_tools().await.expect("listed").into_iter().map(|t| t.name).collect();
        assert_eq!(tools, ["count", "greet", "ping"]);
        assert_eq!(text(&client.call_tool("ping", json!({})).await.expect("called")), "pong");
        // A request the server refuses comes back as its JSON-RPC error.
        let refused = client.request("tools/nope", json!({})).await.expect_err("no such method");
        assert!(matches!(refused, Error::Rpc(ref e) if e.code == -32601), "{refused:?}");
    }

    #[tokio::test]
    async fn a_question_is_answered_by_the_callback_and_the_call_sent_again() {
        // Without a callback, nothing declares elicitation: the server says so.
        let undeclared = Client::in_process(server()).call_tool("greet", json!({})).await;
        assert!(matches!(undeclared, Err(Error::Rpc(ref e)) if e.code == -32021), "{undeclared:?}");
        let client =
            Client::in_process(server()).on_elicitation(|_| async { ElicitResult::accept(json!({"name": "Ada"})) });
        let result = client.call_tool("greet", json!({})).await.expect("answered");
        assert_eq!(text(&result), "Hello, Ada!");
    }

    #[tokio::test]
    async fn the_progress_of_a_call_is_heard() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let hear = Arc::clone(&heard);
        let client = Client::in_process(server());
        let result = client
            .call_tool_with_progress("count", json!({}), move |p| hear.lock().unwrap().push(p.progress))
            .await
            .expect("called");
        assert_eq!(text(&result), "counted");
        assert_eq!(*heard.lock().unwrap(), [1.0, 2.0, 3.0]);
    }
}
