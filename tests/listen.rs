//! `subscriptions/listen` through the dispatcher: acknowledgement, filtering,
//! tagging, run-time changes, cancellation, graceful closing, events racing
//! the acknowledgement and listeners that fall behind. Every frame and
//! result is checked against the official schema.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::dispatch::{Request, RequestOptions, Response};
use mcp_runtime::events::{LocalBus, ServerEvent};
use mcp_runtime::protocol::{Notification, RequestId, RequestMeta};
use mcp_runtime::{
    CancellationToken, Server,
    dispatch::NotificationSink,
    entry::{PromptEntry, ResourceEntry, ToolEntry},
};
use mcp_tests::wire_schema::{assert_valid_line, assert_valid_notification};
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

/// The next frame, checked against the schema.
async fn next(l: &mut Listening) -> Notification {
    let n = tokio::time::timeout(Duration::from_secs(5), l.notifications.recv())
        .await
        .expect("a notification")
        .expect("open");
    assert_valid_notification(&serde_json::to_value(&n).expect("a notification serializes"));
    n
}

async fn nothing_more(l: &mut Listening) {
    assert!(tokio::time::timeout(Duration::from_millis(50), l.notifications.recv()).await.is_err());
}

/// The listen request's final response, checked against the schema.
async fn finished(task: JoinHandle<Response>) -> Value {
    let response = tokio::time::timeout(Duration::from_secs(5), task).await.expect("the stream ends").expect("joins");
    assert_valid_line("subscriptions/listen", &response.to_json())
}

/// Cancels the stream (as stdio's `notifications/cancelled` or a closed HTTP
/// stream does) and checks that it ends at once with its tagged closing
/// result (which the transport then discards) and that it let go of its
/// sink, so nothing can be sent for it any more.
async fn cancel_and_finish(l: Listening, id: Value) {
    let Listening { notifications, cancel, task } = l;
    cancel.cancel();
    let response = finished(task).await;
    assert_eq!(response["id"], id);
    assert_eq!(response["result"]["resultType"], "complete");
    assert_eq!(response["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id);
    assert!(notifications.is_closed(), "the ended stream still holds its sink");
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

    cancel_and_finish(l, json!("L1")).await;
}

#[tokio::test]
async fn unsupported_kinds_are_dropped_from_the_ack() {
    let server = Server::builder("tools-only", "1.0.0").tool(ToolEntry::new("a", || async { "a" })).build().unwrap();
    let mut l = listen(&server, RequestId::from(7), json!({"toolsListChanged": true, "promptsListChanged": true}));
    let ack = next(&mut l).await;
    let params = ack.params.unwrap();
    assert_eq!(params["notifications"], json!({"toolsListChanged": true}));
    assert_eq!(params["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    cancel_and_finish(l, json!(7)).await;
}

#[tokio::test]
async fn closing_streams_ends_with_the_tagged_result() {
    let server = server();
    let mut l = listen(&server, RequestId::from(9), json!({"promptsListChanged": true}));
    next(&mut l).await;
    server.close_streams();
    let response = finished(l.task).await;
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

/// A subscribed URI is repeated in every `notifications/resources/updated`,
/// which the schema types `format: uri`: one that is not a URI is refused
/// before the stream opens, and nothing is acknowledged.
#[tokio::test]
async fn a_subscription_to_what_is_not_a_uri_is_invalid_params() {
    let server = server();
    for bad in ["mem://doc[1]", "no scheme", ""] {
        let mut l = listen(&server, RequestId::from(1), json!({"resourceSubscriptions": ["mem://doc", bad]}));
        let response = tokio::time::timeout(Duration::from_secs(5), &mut l.task).await.expect("answered").unwrap();
        let error = response.as_error().expect("an error");
        assert_eq!(error.code, -32602, "for {bad:?}");
        assert!(error.message.contains("`resourceSubscriptions` must be an absolute URI"), "{}", error.message);
        assert!(l.notifications.try_recv().is_err(), "nothing acknowledged for {bad:?}");
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
    cancel_and_finish(l, json!(3)).await;
}

/// A sink that announces a change the instant the acknowledgement goes out,
/// from inside the listen request itself: the closest an event can come to
/// racing the acknowledgement.
struct AnnounceOnAck {
    server: Server,
    frames: mpsc::UnboundedSender<Notification>,
}

impl NotificationSink for AnnounceOnAck {
    fn send(&self, notification: Notification) {
        let ack = notification.method == "notifications/subscriptions/acknowledged";
        let _ = self.frames.send(notification);
        if ack {
            self.server.notify_resource_updated("mem://doc/at-ack");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_racing_the_acknowledgement_comes_after_it_and_is_not_lost() {
    let server = server();
    let meta = RequestMeta::new("2026-07-28").to_value();
    let params = serde_json::value::to_raw_value(
        &json!({"_meta": meta, "notifications": {"resourceSubscriptions": ["mem://doc"]}}),
    )
    .unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let sink = Arc::new(AnnounceOnAck { server: server.clone(), frames: tx });
    let options = RequestOptions { sink, cancellation: Some(cancel.clone()) };
    // Changes announced all along, from another thread, while the stream starts.
    let publisher = {
        let server = server.clone();
        tokio::spawn(async move {
            for i in 0..200 {
                server.notify_resource_updated(format!("mem://doc/{i}"));
                tokio::task::yield_now().await;
            }
        })
    };
    let listening = {
        let server = server.clone();
        tokio::spawn(async move {
            server.handle(Request::new(RequestId::from(5), "subscriptions/listen", Some(params)), None, options).await
        })
    };
    let mut l = Listening { notifications: rx, cancel, task: listening };
    let ack = next(&mut l).await;
    assert_eq!(ack.method, "notifications/subscriptions/acknowledged", "the acknowledgement comes first");
    publisher.await.expect("the publisher ends");
    // The change announced as the acknowledgement went out arrives; the
    // background ones that arrive do so in order, with nothing lost between.
    let mut seen = Vec::new();
    loop {
        let n = next(&mut l).await;
        assert_eq!(n.method, "notifications/resources/updated");
        let uri = n.params.expect("params")["uri"].as_str().expect("a uri").to_owned();
        if uri == "mem://doc/at-ack" {
            break;
        }
        seen.push(uri.trim_start_matches("mem://doc/").parse::<u32>().expect("a numbered change"));
    }
    assert!(seen.windows(2).all(|w| w[1] == w[0] + 1), "changes lost or reordered: {seen:?}");
    cancel_and_finish(l, json!(5)).await;
}

#[tokio::test]
async fn a_listener_that_falls_behind_is_told_what_may_have_changed() {
    // Room for two undelivered events per listener.
    let server = Server::builder("small-bus", "1.0.0")
        .event_bus(LocalBus::new(2))
        .tool(ToolEntry::new("a", || async { "a" }))
        .prompt(PromptEntry::new("p", || async { "p" }))
        .resource(ResourceEntry::fixed("mem://doc", "doc", || async { "doc" }))
        .build()
        .expect("valid server");
    let filter = json!({"toolsListChanged": true, "promptsListChanged": true, "resourceSubscriptions": ["mem://doc"]});
    let mut l = listen(&server, RequestId::from(4), filter);
    next(&mut l).await;
    // Five changes while the stream cannot run (this test has one thread):
    // the tool and resource changes are lost from the bus.
    server.notify(ServerEvent::ToolsListChanged);
    server.notify_resource_updated("mem://doc");
    for _ in 0..3 {
        server.notify(ServerEvent::PromptsListChanged);
    }
    let mut methods = Vec::new();
    while let Ok(Some(n)) = tokio::time::timeout(Duration::from_millis(200), l.notifications.recv()).await {
        assert_valid_notification(&serde_json::to_value(&n).expect("serializes"));
        let params = n.params.unwrap_or_default();
        methods.push(format!("{} {}", n.method, params["uri"].as_str().unwrap_or_default()).trim_end().to_owned());
    }
    assert!(methods.contains(&"notifications/tools/list_changed".to_owned()), "the lost tool change: {methods:?}");
    assert!(
        methods.contains(&"notifications/resources/updated mem://doc".to_owned()),
        "the lost resource change: {methods:?}"
    );
    assert_eq!(methods.last().map(String::as_str), Some("notifications/prompts/list_changed"), "{methods:?}");
    cancel_and_finish(l, json!(4)).await;
}
