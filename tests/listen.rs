//! `subscriptions/listen` through the dispatcher: acknowledgement, filtering,
//! tagging, run-time changes, cancellation and graceful closing.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::dispatch::{Request, RequestOptions, Response};
use mcp_runtime::events::ServerEvent;
use mcp_runtime::protocol::{Notification, RequestId, RequestMeta};
use mcp_runtime::{CancellationToken, NotificationSink, PromptEntry, ResourceEntry, Server, ToolEntry};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

struct ChannelSink(mpsc::UnboundedSender<Notification>);

impl NotificationSink for ChannelSink {
    fn send(&self, notification: Notification) {
        let _ = self.0.send(notification);
    }
}

fn server() -> Server {
    Server::builder("listen", "1.0.0")
        .tool(ToolEntry::new("a", || async { "a" }))
        .prompt(PromptEntry::new("p", || async { "p" }))
        .resource(ResourceEntry::fixed("mem://doc", "doc", || async { "doc" }))
        .build()
        .expect("valid server")
}

struct Listening {
    notifications: mpsc::UnboundedReceiver<Notification>,
    cancel: CancellationToken,
    task: JoinHandle<Response>,
}

fn listen(server: &Server, id: RequestId, filter: Value) -> Listening {
    let meta = RequestMeta::new("2026-07-28").to_value();
    let params = serde_json::value::to_raw_value(&json!({"_meta": meta, "notifications": filter})).unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let options = RequestOptions { sink: Arc::new(ChannelSink(tx)), cancellation: Some(cancel.clone()) };
    let server = server.clone();
    let task = tokio::spawn(async move {
        server.handle(Request::new(id, "subscriptions/listen", Some(params)), None, options).await
    });
    Listening { notifications: rx, cancel, task }
}

async fn next(l: &mut Listening) -> Notification {
    tokio::time::timeout(Duration::from_secs(5), l.notifications.recv()).await.expect("a notification").expect("open")
}

async fn nothing_more(l: &mut Listening) {
    assert!(tokio::time::timeout(Duration::from_millis(50), l.notifications.recv()).await.is_err());
}

#[tokio::test]
async fn discover_advertises_list_changed_and_subscribe() {
    let caps = server().capabilities();
    let caps = serde_json::to_value(caps).unwrap();
    assert_eq!(caps["tools"], json!({"listChanged": true}));
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert_eq!(caps["resources"], json!({"listChanged": true, "subscribe": true}));
}

#[tokio::test]
async fn ack_first_then_only_requested_kinds_tagged_with_the_id() {
    let server = server();
    let mut l = listen(
        &server,
        RequestId::string("L1"),
        json!({"toolsListChanged": true, "resourceSubscriptions": ["mem://doc"]}),
    );
    let ack = next(&mut l).await;
    assert_eq!(ack.method, "notifications/subscriptions/acknowledged");
    let params = ack.params.unwrap();
    assert_eq!(params["_meta"]["io.modelcontextprotocol/subscriptionId"], "L1");
    assert_eq!(params["notifications"], json!({"toolsListChanged": true, "resourceSubscriptions": ["mem://doc"]}));

    server.notify(ServerEvent::PromptsListChanged);
    server.notify_resource_updated("mem://other");
    nothing_more(&mut l).await;

    server.add_tool(ToolEntry::new("b", || async { "b" })).unwrap();
    let changed = next(&mut l).await;
    assert_eq!(changed.method, "notifications/tools/list_changed");
    assert_eq!(changed.params.unwrap()["_meta"]["io.modelcontextprotocol/subscriptionId"], "L1");
    assert_eq!(server.tool_names(), ["a", "b"]);

    server.notify_resource_updated("mem://doc");
    let updated = next(&mut l).await;
    assert_eq!(updated.method, "notifications/resources/updated");
    assert_eq!(updated.params.unwrap()["uri"], "mem://doc");

    l.cancel.cancel();
    let _ = l.task.await.unwrap();
}

#[tokio::test]
async fn unsupported_kinds_are_dropped_from_the_ack() {
    let server = Server::builder("tools-only", "1.0.0").tool(ToolEntry::new("a", || async { "a" })).build().unwrap();
    let mut l = listen(&server, RequestId::from(7), json!({"toolsListChanged": true, "promptsListChanged": true}));
    let ack = next(&mut l).await;
    let params = ack.params.unwrap();
    assert_eq!(params["notifications"], json!({"toolsListChanged": true}));
    assert_eq!(params["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    l.cancel.cancel();
}

#[tokio::test]
async fn closing_streams_ends_with_the_tagged_result() {
    let server = server();
    let mut l = listen(&server, RequestId::from(9), json!({"promptsListChanged": true}));
    next(&mut l).await;
    server.close_streams();
    let response = tokio::time::timeout(Duration::from_secs(5), l.task).await.unwrap().unwrap().to_value();
    assert_eq!(response["id"], 9);
    assert_eq!(response["result"]["resultType"], "complete");
    assert_eq!(response["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9);
}

#[tokio::test]
async fn the_subscription_id_is_the_request_id_exactly_or_the_request_is_refused() {
    let server = server();
    for (id, expected) in [
        ("18446744073709551615", json!(18446744073709551615_u64)),
        ("-9223372036854775808", json!(i64::MIN)),
        ("-0", json!(0)),
        (r#""L-1""#, json!("L-1")),
    ] {
        let mut l = listen(&server, RequestId::from_json(id).unwrap(), json!({"toolsListChanged": true}));
        let ack = next(&mut l).await;
        let params = ack.params.unwrap_or_default();
        assert_eq!(params["_meta"]["io.modelcontextprotocol/subscriptionId"], expected, "{id}");
        l.cancel.cancel();
    }
    // Beyond 64 bits a `Value` cannot hold the id: refused rather than tagged with another number.
    for id in ["12345678901234567890123", "-9223372036854775809"] {
        let l = listen(&server, RequestId::from_json(id).unwrap(), json!({"toolsListChanged": true}));
        let response = tokio::time::timeout(Duration::from_secs(5), l.task).await.unwrap().unwrap();
        assert_eq!(response.as_error().map(|e| e.code), Some(-32602), "{id}");
        let text = response.to_json();
        assert!(text.contains(&format!(r#""id":{id}"#)), "the error echoes the id exactly: {text}");
    }
}

#[tokio::test]
async fn listen_without_notifications_is_invalid_params_and_without_capabilities_not_found() {
    let server = server();
    let meta = RequestMeta::new("2026-07-28").to_value();
    let params = serde_json::value::to_raw_value(&json!({"_meta": meta})).unwrap();
    let r = server
        .handle(Request::new(RequestId::from(1), "subscriptions/listen", Some(params)), None, RequestOptions::default())
        .await;
    assert_eq!(r.as_error().unwrap().code, -32602);

    let quiet = Server::builder("quiet", "1.0.0")
        .list_changed(false)
        .tool(ToolEntry::new("a", || async { "a" }))
        .build()
        .unwrap();
    let params = serde_json::value::to_raw_value(
        &json!({"_meta": RequestMeta::new("2026-07-28").to_value(), "notifications": {}}),
    )
    .unwrap();
    let r = quiet
        .handle(Request::new(RequestId::from(2), "subscriptions/listen", Some(params)), None, RequestOptions::default())
        .await;
    assert_eq!(r.as_error().unwrap().code, -32601);
}

#[tokio::test]
async fn removing_entries_changes_lists_and_notifies() {
    let server = server();
    let mut l = listen(&server, RequestId::from(3), json!({"promptsListChanged": true, "resourcesListChanged": true}));
    next(&mut l).await;
    assert!(server.remove_prompt("p"));
    assert_eq!(next(&mut l).await.method, "notifications/prompts/list_changed");
    assert!(server.remove_resource("mem://doc"));
    assert_eq!(next(&mut l).await.method, "notifications/resources/list_changed");
    // Removing what is not there changes nothing and announces nothing.
    assert!(!server.remove_prompt("p"));
    nothing_more(&mut l).await;
    l.cancel.cancel();
}
