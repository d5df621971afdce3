use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::{MessageKind, TestClient};
use crate::entry::ToolEntry;
use crate::extract::Logger;
use crate::input::Elicitation;
use crate::protocol::ElicitResult;
use crate::response::Stage;
use crate::{Input, Server};

fn server() -> Server {
    Server::builder("t", "1.0.0")
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

type Log = Arc<Mutex<Vec<(MessageKind, String, Value)>>>;

fn logged(client: TestClient) -> (TestClient, Log) {
    let log = Log::default();
    let into = log.clone();
    let client = client.observe(move |m| into.lock().unwrap().push((m.kind, m.method.to_owned(), m.to_value())));
    (client, log)
}

#[tokio::test]
async fn params_are_sent_as_written_and_judged_by_the_server() {
    let (client, log) = logged(TestClient::new(server()));
    // Not an object: sent as is, and turned away as any client's would be.
    let exchange = client.exchange("tools/call", json!("chatty")).await;
    assert_eq!(exchange.response.stage(), Stage::Meta, "{}", exchange.response.to_json());
    assert_eq!(exchange.response.as_error().map(|e| e.code), Some(-32602));
    let log = log.lock().unwrap();
    let (kind, method, request) = &log[0];
    assert_eq!((kind, method.as_str()), (&MessageKind::Request, "tools/call"));
    assert_eq!(request, &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "chatty"}));
}

#[tokio::test]
async fn the_observer_sees_each_message_in_wire_order() {
    let (client, log) = logged(TestClient::new(server()).with_log_level(crate::protocol::LoggingLevel::Info));
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
    let client = TestClient::new(server()).on_elicitation(|request| async move {
        let crate::protocol::ElicitRequest::Form { message, .. } = request else { return ElicitResult::cancel() };
        ElicitResult::accept(json!({"v": message.trim_end_matches('?')}))
    });
    let (client, log) = logged(client);
    assert_eq!(client.call_tool("two_steps", json!({})).await.unwrap()["content"][0]["text"], "AB");
    let log = log.lock().unwrap();
    let requests: Vec<&Value> = log.iter().filter(|(k, _, _)| *k == MessageKind::Request).map(|(_, _, m)| m).collect();
    let responses: Vec<&Value> =
        log.iter().filter(|(k, _, _)| *k == MessageKind::Response).map(|(_, _, m)| m).collect();
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
async fn zero_rounds_allowed_gives_up_at_the_first_question() {
    let client = TestClient::new(server()).on_elicitation(|_| async { ElicitResult::decline() }).with_max_rounds(0);
    let err = client.call_tool("two_steps", json!({})).await.unwrap_err();
    assert!(matches!(err, super::ClientError::TooManyRounds { rounds: 0, .. }), "{err}");
}
