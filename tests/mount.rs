//! Servers mounted in another one: their entries under a namespace, with
//! their own state, layers and completions, collisions refused at build,
//! and their changes followed by the mounting server's listeners. Every
//! message of the in-process client is checked against the official schema.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http_body_util::BodyExt as _;
use mcp_runtime::auth::Principal;
use mcp_runtime::dispatch::{NotificationSink, Request, RequestOptions};
use mcp_runtime::entry::{PromptEntry, ResourceEntry, ToolEntry};
use mcp_runtime::extract::{Call, CompleteCall};
use mcp_runtime::middleware::{self, McpRequest, Next};
use mcp_runtime::protocol::{
    Completion, ContentBlock, Notification, RequestId, RequestMeta, ResourceBody, ResourceContents,
};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Args, BuildError, CancellationToken, RequestContext, Server, State};
use mcp_tests::validated_client::checked;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The text of a content block, if it is text.
fn text(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::Text(text) => Some(&text.text),
        _ => None,
    }
}

/// The text of a resource's contents, if they are text.
fn text_contents(contents: &ResourceContents) -> Option<&str> {
    match &contents.body {
        ResourceBody::Text(text) => Some(text),
        _ => None,
    }
}

/// The root of the files server: its own state, which the mounting server
/// does not have.
#[derive(Clone)]
struct Root(String);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Path {
    path: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Page {
    page: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

fn files(layer_passes: Arc<AtomicUsize>) -> Server {
    Server::builder("files", "1.0.0")
        .state(Root("/srv".to_owned()))
        .layer(middleware::from_fn(move |request: McpRequest, next: Next| {
            let passes = Arc::clone(&layer_passes);
            async move {
                passes.fetch_add(1, Ordering::SeqCst);
                next.run(request).await
            }
        }))
        .tool(ToolEntry::new("read", |root: State<Root>, Args(p): Args<Path>| async move {
            format!("{}/{}", root.0.0, p.path)
        }))
        .prompt(
            PromptEntry::new("explain", |Args(n): Args<Name>| async move { format!("Explain {}", n.name) })
                .argument("name", "A file", true)
                .completer(|c: CompleteCall| async move {
                    let root = c.context().state::<Root>().expect("the files server's state").0;
                    let known = [format!("{root}/readme.md"), format!("{root}/main.rs")];
                    let typed = format!("{root}/{}", c.value());
                    Ok(Completion::from_values(known.into_iter().filter(|k| k.starts_with(&typed)).collect::<Vec<_>>()))
                }),
        )
        .resource(ResourceEntry::fixed("file://readme", "readme", || async { "the readme" }))
        .resource(ResourceEntry::template(
            "file://docs/{page}",
            "doc",
            |root: State<Root>, Args(p): Args<Page>| async move { format!("{} under {}", p.page, root.0.0) },
        ))
        .build()
        .expect("the files server")
}

fn product(files: Server) -> Server {
    Server::builder("product", "1.0.0")
        .tool(ToolEntry::new("hello", || async { "hello" }))
        .mount("files", files)
        .build()
        .expect("the product server")
}

#[tokio::test]
async fn a_mounted_server_is_served_under_its_namespace_with_its_own_state_and_layers() {
    let passes = Arc::new(AtomicUsize::new(0));
    let server = product(files(Arc::clone(&passes)));
    assert_eq!(server.tool_names(), ["files_read", "hello"]);
    let client = checked(server);

    let read = client.call_tool("files_read", json!({"path": "a.txt"})).await.expect("tools/call");
    assert_eq!(read.first_text(), Some("/srv/a.txt"), "the files server's state");
    assert_eq!(passes.load(Ordering::SeqCst), 1, "the files server's layer ran");
    client.call_tool("hello", json!({})).await.expect("tools/call");
    assert_eq!(passes.load(Ordering::SeqCst), 1, "and only for its own tools");

    let prompt = client.get_prompt("files_explain", json!({"name": "main.rs"})).await.expect("prompts/get");
    assert_eq!(text(&prompt.messages[0].content), Some("Explain main.rs"));
    let completion = client
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "files_explain"}, "argument": {"name": "name", "value": "re"}}),
        )
        .await
        .expect("completion/complete");
    assert_eq!(completion["completion"]["values"], json!(["/srv/readme.md"]), "{completion}");

    let resources = client.request("resources/list", json!({})).await.expect("resources/list");
    assert_eq!(resources["resources"][0]["uri"], "file://files/readme", "{resources}");
    let templates = client.request("resources/templates/list", json!({})).await.expect("templates");
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "file://files/docs/{page}");
    let readme = client.read_resource("file://files/readme").await.expect("resources/read");
    assert_eq!(readme.contents[0].uri, "file://files/readme");
    assert_eq!(text_contents(&readme.contents[0]), Some("the readme"));
    let page = client.read_resource("file://files/docs/intro").await.expect("resources/read");
    assert_eq!(page.contents[0].uri, "file://files/docs/intro");
    assert_eq!(
        text_contents(&page.contents[0]),
        Some("intro under /srv"),
        "the template's variables, and the files server's state"
    );
}

#[test]
fn a_mounted_name_that_is_taken_or_a_bad_namespace_stops_the_build() {
    let taken = Server::builder("product", "1.0.0")
        .tool(ToolEntry::new("files_read", || async { "mine" }))
        .mount("files", files(Arc::default()))
        .build();
    match taken {
        Err(e @ BuildError::Duplicate { .. }) => {
            let text = e.to_string();
            assert!(text.starts_with("duplicate tool `files_read`: defined at tests/mount.rs:"), "{text}");
            assert_eq!(text.matches("tests/mount.rs:").count(), 2, "both definitions: {text}");
        }
        other => panic!("a duplicate, not {:?}", other.map(|s| s.tool_names())),
    }
    match Server::builder("product", "1.0.0").mount("my files", files(Arc::default())).build() {
        Err(e @ BuildError::Mount { .. }) => {
            assert_eq!(
                e.to_string(),
                "the server mounted at `my files`: a namespace is 1 to 64 characters from `A-Z a-z 0-9 _ - .`, as tool names are"
            );
        }
        other => panic!("a bad namespace, not {:?}", other.map(|s| s.tool_names())),
    }
}

struct ChannelSink(mpsc::UnboundedSender<Notification>);

impl NotificationSink for ChannelSink {
    fn send(&self, notification: Notification) {
        let _ = self.0.send(notification);
    }
}

async fn next(notifications: &mut mpsc::UnboundedReceiver<Notification>) -> Value {
    let n = tokio::time::timeout(Duration::from_secs(5), notifications.recv()).await.expect("a notification");
    serde_json::to_value(n.expect("open")).expect("JSON")
}

#[tokio::test]
async fn changes_of_a_mounted_server_reach_the_mounting_servers_listeners() {
    let files = files(Arc::default());
    let server = product(files.clone());
    let meta = RequestMeta::new("2026-07-28").to_value();
    let filter = json!({"toolsListChanged": true, "resourceSubscriptions": ["file://files/readme"]});
    let params = serde_json::value::to_raw_value(&json!({"_meta": meta, "notifications": filter})).unwrap();
    let (tx, mut notifications) = mpsc::unbounded_channel();
    let options = RequestOptions { sink: Arc::new(ChannelSink(tx)), cancellation: Some(CancellationToken::new()) };
    let listening = server.clone();
    tokio::spawn(async move {
        listening.handle(Request::new(RequestId::from(1), "subscriptions/listen", Some(params)), None, options).await
    });
    let acknowledged = next(&mut notifications).await;
    assert_eq!(acknowledged["method"], "notifications/subscriptions/acknowledged", "{acknowledged}");

    files.add_tool(ToolEntry::new("write", || async { "written" })).expect("a tool");
    assert_eq!(next(&mut notifications).await["method"], "notifications/tools/list_changed");
    assert_eq!(server.tool_names(), ["files_read", "files_write", "hello"]);
    let written = checked(server.clone()).call_tool("files_write", json!({})).await.expect("tools/call");
    assert_eq!(written.first_text(), Some("written"));

    files.remove_tool("read");
    assert_eq!(next(&mut notifications).await["method"], "notifications/tools/list_changed");
    assert_eq!(server.tool_names(), ["files_write", "hello"]);

    // A resource update the files server announces, under the URI the
    // product server serves it at.
    files.notify_resource_updated("file://readme");
    let updated = next(&mut notifications).await;
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "file://files/readme", "{updated}");
}

#[tokio::test]
async fn a_handler_of_a_mounted_server_sees_that_server() {
    let files = Server::builder("files", "1.0.0")
        .tool(ToolEntry::new("who", |cx: RequestContext| async move { cx.server().info().name.clone() }))
        .build()
        .expect("the files server");
    let client = checked(product(files));
    let who = client.call_tool("files_who", json!({})).await.expect("tools/call");
    assert_eq!(who.first_text(), Some("files"));
}

fn scoped() -> Server {
    Server::builder("notes", "1.0.0")
        .tool(ToolEntry::new("erase", || async { "erased" }).scopes(["notes:write"]))
        .tool(ToolEntry::new("whoami", |caller: Principal| async move { caller.subject().unwrap_or("?").to_owned() }))
        .authenticated_by_layer()
        .build()
        .expect("the notes server")
}

fn call_as(name: &str, scopes: &[&str]) -> http::Request<String> {
    mcp_tests::http_wire::call_as(name, Some(Principal::new("ada").with_scopes(scopes.iter().copied())))
}

#[tokio::test]
async fn a_mounted_tools_scopes_and_caller_are_checked_by_the_mounting_server() {
    let service = Server::builder("product", "1.0.0")
        .mount("notes", scoped())
        .authenticated_by_layer()
        .build()
        .expect("the product server")
        .http_service(HttpConfig::default());
    let handle = |request| async { service.handle(request).await.unwrap_or_else(|never| match never {}) };
    assert_eq!(handle(call_as("notes_erase", &["notes:read"])).await.status(), 403);
    assert_eq!(handle(call_as("notes_erase", &["notes:write"])).await.status(), 200);
    let who = handle(call_as("notes_whoami", &[])).await;
    let body = who.into_body().collect().await.expect("a body").to_bytes();
    assert!(String::from_utf8_lossy(&body).contains(r#""text":"ada""#), "{}", String::from_utf8_lossy(&body));

    // A server that verifies no caller cannot serve a tool that needs one.
    match Server::builder("open", "1.0.0").mount("notes", scoped()).build() {
        Err(e) => assert!(e.to_string().contains("whoami"), "{e}"),
        Ok(_) => panic!("a tool that takes the caller, on a server that verifies none"),
    }
}

#[tokio::test]
async fn a_2025_era_session_calls_a_mounted_tool_as_any_other() {
    let (mut session, _) = mcp_tests::stdio_session::Session::open(product(files(Arc::default())), json!({})).await;
    let listed = session.request(1, "tools/list", json!({})).await;
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["files_read", "hello"]);
    let read = session.request(2, "tools/call", json!({"name": "files_read", "arguments": {"path": "b.txt"}})).await;
    assert_eq!(read["result"]["content"][0]["text"], "/srv/b.txt", "{read}");
    let page = session.request(3, "resources/read", json!({"uri": "file://files/docs/intro"})).await;
    assert_eq!(page["result"]["contents"][0]["text"], "intro under /srv", "{page}");
}
