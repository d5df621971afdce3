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
use super::message::Reply;
use super::notices::Notices;
use crate::handler::BoxFuture;
use crate::handler::context::NotificationSink;
use crate::protocol::{Notification, RequestId};

/// A server of this process, as the in-process transport speaks to it.
pub(crate) trait LocalServer: Send + Sync + 'static {
    /// The server's name, for `Debug`.
    fn name(&self) -> &str;

    /// Serves one JSON-RPC message, the request's notifications to
    /// `sink`; the response's JSON text, `None` for a notification.
    fn serve(&self, message: Vec<u8>, sink: Arc<dyn NotificationSink>) -> BoxFuture<'_, Option<Vec<u8>>>;
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
    pub(super) async fn send(&self, text: Vec<u8>, id: &RequestId, notices: Option<&Notices>) -> Result<Reply, Error> {
        let sink = Arc::new(Hearing(notices.cloned()));
        match self.server.serve(text, sink).await {
            Some(response) => Ok(Reply::Text(response)),
            None => Err(Error::Invalid(format!("no answer to request {id}"))),
        }
    }

    /// Hands a notification to the server (which answers none).
    pub(super) async fn notify(&self, message: &Value) -> Result<(), Error> {
        let _ = self.server.serve(message.to_string().into_bytes(), Arc::new(Hearing(None))).await;
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

    use serde_json::Value;

    use crate::client::{Client, Error, MessageKind};
    use crate::entry::ToolEntry;
    use crate::extract::{Logger, Progress};
    use crate::input::Elicitation;
    use crate::protocol::{CallToolResult, ElicitRequest, ElicitResult, LoggingLevel};
    use crate::{Input, Server};

    /// The text of a result's first block.
    fn text(result: &CallToolResult) -> &str {
        result.first_text().unwrap_or_else(|| panic!("no text first: {result:?}"))
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
            .tool(ToolEntry::new("chatty", |log: Logger| async move {
                log.info("one");
                log.info("two");
                "done"
            }))
            .tool(ToolEntry::new("two_steps", |input: Input| async move {
                let a = input.elicit("a", Elicitation::form("A?").text("v", true)).await;
                let b = input.elicit("b", Elicitation::form("B?").text("v", true)).await;
                format!("{}{}", a.field("v").unwrap_or_default(), b.field("v").unwrap_or_default())
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
        assert_eq!(tools, ["chatty", "count", "greet", "ping", "two_steps"]);
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

    type Log = Arc<Mutex<Vec<(MessageKind, String, Value)>>>;

    fn logged(client: Client) -> (Client, Log) {
        let log = Log::default();
        let into = log.clone();
        let client = client.observe(move |m| into.lock().unwrap().push((m.kind, m.method.to_owned(), m.to_value())));
        (client, log)
    }

    #[tokio::test]
    async fn the_observer_sees_each_message_in_wire_order() {
        let (client, log) = logged(Client::in_process(server()).log_level(LoggingLevel::Info));
        client.call_tool("chatty", json!({})).await.unwrap();
        let log = log.lock().unwrap();
        let kinds: Vec<MessageKind> = log.iter().map(|(kind, _, _)| *kind).collect();
        use MessageKind::*;
        assert_eq!(kinds, [Request, Notification, Notification, Response]);
        assert!(log.iter().all(|(_, method, _)| method == "tools/call"));
        assert_eq!(log[1].2["params"]["data"], "one");
        assert_eq!(log[0].2["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "info");
    }

    #[tokio::test]
    async fn each_retry_is_a_new_request_echoing_the_state_verbatim() {
        let client = Client::in_process(server()).on_elicitation(|request| async move {
            let ElicitRequest::Form { message, .. } = request else { return ElicitResult::cancel() };
            ElicitResult::accept(json!({"v": message.trim_end_matches('?')}))
        });
        let (client, log) = logged(client);
        assert_eq!(text(&client.call_tool("two_steps", json!({})).await.unwrap()), "AB");
        let log = log.lock().unwrap();
        let of = |kind| log.iter().filter(move |(k, _, _)| *k == kind).map(|(_, _, m)| m).collect::<Vec<&Value>>();
        let (requests, responses) = (of(MessageKind::Request), of(MessageKind::Response));
        assert_eq!(requests.len(), 3);
        assert_eq!(requests.iter().map(|r| r["id"].clone()).collect::<Vec<_>>(), [json!(1), json!(2), json!(3)]);
        for (retry, asked) in requests[1..].iter().zip(&responses) {
            assert_eq!(retry["params"]["requestState"], asked["result"]["requestState"]);
            assert_eq!(retry["params"]["name"], "two_steps");
            assert_eq!(retry["params"]["_meta"], requests[0]["params"]["_meta"]);
        }
        // Only the answers of the round: earlier ones travel in the sealed state.
        assert_eq!(requests[1]["params"]["inputResponses"], json!({"a": {"action": "accept", "content": {"v": "A"}}}));
        assert_eq!(requests[2]["params"]["inputResponses"], json!({"b": {"action": "accept", "content": {"v": "B"}}}));
    }

    #[tokio::test]
    async fn the_round_limit_gives_up_with_the_last_question() {
        let client = Client::in_process(server())
            .on_elicitation(|_| async { ElicitResult::accept(json!({"v": "x"})) })
            .max_rounds(1);
        let err = client.call_tool("two_steps", json!({})).await.unwrap_err();
        let Error::TooManyRounds { rounds: 1, last } = &err else { panic!("gave up otherwise: {err}") };
        assert!(last["inputRequests"].get("b").is_some(), "{last}");
        // What the server wrote stays out of the message a user is shown.
        assert!(!err.to_string().contains("B?"), "{err}");
    }

    #[tokio::test]
    async fn params_that_are_not_an_object_are_refused_before_sending() {
        let (client, log) = logged(Client::in_process(server()));
        let err = client.request("tools/call", json!("chatty")).await.unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{err}");
        assert!(log.lock().unwrap().is_empty());
    }
}
