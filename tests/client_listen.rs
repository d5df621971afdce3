//! The client hearing what a server announces ([`Client::listen`]) in
//! both eras and over both transports: list changes it asked for, updates
//! of the resources it follows, and nothing it did not ask for; a
//! 2025-era session ended with `DELETE` ([`Client::close`]); and a gateway
//! following the list changes and resource updates of the remotes it
//! mounts, serving their templates and forwarding completions.

use std::time::Duration;

use mcp_runtime::client::{Change, Client, Error, Interests, Listener, Remote, Revision};
use mcp_runtime::entry::{PromptEntry, ResourceEntry, ToolEntry};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{Args, Server};
use serde_json::Value;

const README: &str = "docs://readme";

fn server() -> Server {
    Server::builder("listen-test", "1.0.0")
        .tool(ToolEntry::new("echo", |Args(args): Args<Value>| async move { args.to_string() }))
        .prompt(PromptEntry::new("greet", || async { "Say hello." }))
        .resource(ResourceEntry::fixed(README, "readme", || async { "# Readme" }))
        .resource(ResourceEntry::fixed("docs://other", "other", || async { "# Other" }))
        .build()
        .expect("a server")
}

async fn over_http(server: &Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let serving = server.clone().serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending());
    tokio::spawn(serving);
    url
}

fn over_pipe(server: &Server) -> Client {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    tokio::spawn(server.clone().serve_io(their_read, their_write, StdioConfig::default()));
    let (read, write) = tokio::io::split(ours);
    Client::stdio(read, write)
}

async fn next(changes: &mut Listener) -> Change {
    tokio::time::timeout(Duration::from_secs(10), changes.next())
        .await
        .expect("a change in time")
        .expect("the stream goes on")
}

/// Listens for tool list changes and updates of the readme; then changes
/// the prompts (not asked for), the tools, another resource (not followed)
/// and the readme: only the tools and the readme are heard, in order.
async fn hears_what_it_asked_for(server: &Server, client: &Client) {
    let mut changes = client.listen(Interests::new().tools().resource(README)).await.expect("listening");
    server.add_prompt(PromptEntry::new("late_prompt", || async { "Late." })).expect("a prompt");
    server.add_tool(ToolEntry::new("late", || async { "late" })).expect("a tool");
    assert_eq!(next(&mut changes).await, Change::Tools);
    server.notify_resource_updated("docs://other");
    server.notify_resource_updated(README);
    assert_eq!(next(&mut changes).await, Change::Resource { uri: README.to_owned() });
    // What was heard can be acted on with the same client.
    let names: Vec<String> = client.list_tools().await.expect("tools/list").into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"late".to_owned()), "{names:?}");
}

#[tokio::test]
async fn a_listener_hears_what_it_asked_for_in_2026_07_28_over_http() {
    let server = server();
    let client = Client::http(over_http(&server).await);
    hears_what_it_asked_for(&server, &client).await;
}

#[tokio::test]
async fn a_listener_hears_what_it_asked_for_in_2026_07_28_over_a_pipe() {
    let server = server();
    let client = over_pipe(&server);
    hears_what_it_asked_for(&server, &client).await;
}

#[tokio::test]
async fn a_listener_hears_what_it_asked_for_in_a_2025_era_session_over_http() {
    let server = server();
    let client = Client::http(over_http(&server).await).revision(Revision::Session);
    assert_eq!(client.protocol_version().await.expect("a session"), "2025-11-25");
    hears_what_it_asked_for(&server, &client).await;
}

#[tokio::test]
async fn a_listener_hears_what_it_asked_for_in_a_2025_era_session_over_a_pipe() {
    let server = server();
    let client = over_pipe(&server).revision(Revision::Session);
    assert_eq!(client.protocol_version().await.expect("a session"), "2025-11-25");
    hears_what_it_asked_for(&server, &client).await;
}

#[tokio::test]
async fn a_listener_can_be_dropped_and_another_begun() {
    let server = server();
    let client = over_pipe(&server);
    let first = client.listen(Interests::new().tools()).await.expect("listening");
    drop(first);
    let mut second = client.listen(Interests::new().tools()).await.expect("listening again");
    server.add_tool(ToolEntry::new("late", || async { "late" })).expect("a tool");
    assert_eq!(next(&mut second).await, Change::Tools);
}

#[tokio::test]
async fn a_2025_era_session_is_ended_with_delete() {
    let server = server();
    let client = Client::http(over_http(&server).await).revision(Revision::Session);
    client.list_tools().await.expect("in the session");
    client.close().await.expect("ended");
    match client.list_tools().await {
        Err(Error::Http { status: 404, .. }) => {}
        Err(Error::Rpc(error)) => assert!(error.message.to_lowercase().contains("session"), "{error:?}"),
        other => panic!("a request after the end of the session: {other:?}"),
    }
    // Closing a client that keeps no session is nothing.
    Client::http(over_http(&server).await).close().await.expect("nothing to end");
}

async fn tool_names(client: &Client) -> Vec<String> {
    client.list_tools().await.expect("tools/list").into_iter().map(|t| t.name).collect()
}

#[tokio::test]
async fn a_gateway_follows_the_list_changes_of_the_remotes_it_mounts() {
    let web = server();
    let old = server();
    let web_client = Client::http(over_http(&web).await);
    let old_client = over_pipe(&old).revision(Revision::Session);
    let gateway = Server::builder("gateway", "1.0.0")
        .mount_remote("web", Remote::connect(web_client).await.expect("the stateless remote"))
        .mount_remote("old", Remote::connect(old_client).await.expect("the 2025-era remote"))
        .build()
        .expect("a gateway");
    let client = Client::http(over_http(&gateway).await);
    let mut changes = client.listen(Interests::new().tools().prompts()).await.expect("listening");
    assert_eq!(tool_names(&client).await, ["old_echo", "web_echo"]);

    // A tool added at a remote is served by the gateway, and called there.
    web.add_tool(ToolEntry::new("late", || async { "late" })).expect("a tool");
    assert_eq!(next(&mut changes).await, Change::Tools);
    assert_eq!(tool_names(&client).await, ["old_echo", "web_echo", "web_late"]);
    let late = client.call_tool("web_late", serde_json::json!({})).await.expect("the new tool");
    assert_eq!(serde_json::to_value(&late.content).expect("JSON")[0]["text"], "late");

    // A tool removed at a 2025-era remote goes; a prompt added comes.
    assert!(old.remove_tool("echo"));
    assert_eq!(next(&mut changes).await, Change::Tools);
    assert_eq!(tool_names(&client).await, ["web_echo", "web_late"]);
    old.add_prompt(PromptEntry::new("late_prompt", || async { "Late." })).expect("a prompt");
    assert_eq!(next(&mut changes).await, Change::Prompts);
    let prompts: Vec<Value> = client.list_prompts().await.expect("prompts/list");
    assert!(prompts.iter().any(|p| p["name"] == "old_late_prompt"), "{prompts:?}");

    // An update of a remote's resource is announced for its URI here, in
    // either era of the remote.
    let (web_readme, old_readme) = ("docs://web/readme", "docs://old/readme");
    let mut updates =
        client.listen(Interests::new().resource(web_readme).resource(old_readme)).await.expect("listening");
    web.notify_resource_updated(README);
    assert_eq!(next(&mut updates).await, Change::Resource { uri: web_readme.to_owned() });
    old.notify_resource_updated(README);
    assert_eq!(next(&mut updates).await, Change::Resource { uri: old_readme.to_owned() });
}

#[tokio::test]
async fn a_gateway_serves_the_resource_templates_of_a_remote_and_follows_them() {
    let web = Server::builder("templates", "1.0.0")
        .resource(ResourceEntry::template("notes://{id}", "note", |Args(args): Args<Value>| async move {
            format!("note {}", args["id"].as_str().unwrap_or_default())
        }))
        .build()
        .expect("a server");
    let remote = Remote::connect(Client::http(over_http(&web).await)).await.expect("the remote");
    assert_eq!(remote.resource_templates().len(), 1);
    let gateway = Server::builder("gateway", "1.0.0").mount_remote("web", remote).build().expect("a gateway");
    let client = Client::http(over_http(&gateway).await);
    let templates = client.list_resource_templates().await.expect("resources/templates/list");
    assert_eq!(templates[0]["uriTemplate"], "notes://web/{id}", "{templates:?}");
    let read = client.read_resource("notes://web/7").await.expect("a read through the gateway");
    let contents = serde_json::to_value(&read.contents).expect("JSON");
    assert_eq!(contents[0]["uri"], "notes://web/7", "{contents}");
    assert_eq!(contents[0]["text"], "note 7", "{contents}");

    // A template the remote adds later is served too.
    let mut changes = client.listen(Interests::new().resources()).await.expect("listening");
    web.add_resource(ResourceEntry::template("drafts://{id}", "draft", |Args(args): Args<Value>| async move {
        format!("draft {}", args["id"].as_str().unwrap_or_default())
    }))
    .expect("a template");
    assert_eq!(next(&mut changes).await, Change::Resources);
    let read = client.read_resource("drafts://web/3").await.expect("the new template");
    assert_eq!(serde_json::to_value(&read.contents).expect("JSON")[0]["text"], "draft 3");
}

#[tokio::test]
async fn a_gateway_forwards_completions_to_the_remote_in_either_era() {
    use mcp_runtime::extract::CompleteCall;
    use mcp_runtime::protocol::{Completion, CompletionReference};

    let languages = |c: CompleteCall| async move {
        let known = ["en", "fr", "fi"].into_iter().filter(|l| l.starts_with(c.value())).map(str::to_owned);
        Ok(Completion::from_values(known.collect::<Vec<_>>()))
    };
    let remote_server = Server::builder("completing", "1.0.0")
        .prompt(
            PromptEntry::new(
                "greet",
                |Args(args): Args<Value>| async move { format!("Hello in {}", args["language"]) },
            )
            .argument("language", "A language", true)
            .completer(languages),
        )
        .resource(
            ResourceEntry::template("docs://{language}", "doc", |Args(args): Args<Value>| async move {
                args["language"].to_string()
            })
            .completer(languages),
        )
        .build()
        .expect("a server");
    for revision in [Revision::Stateless, Revision::Session] {
        let remote = over_pipe(&remote_server).revision(revision);
        let gateway = Server::builder("gateway", "1.0.0")
            .mount_remote("web", Remote::connect(remote).await.expect("the remote"))
            .build()
            .expect("a gateway");
        let client = Client::http(over_http(&gateway).await);
        let none = Default::default();
        let prompt = CompletionReference::Prompt { name: "web_greet".into(), title: None };
        let completion = client.complete(prompt, "language", "f", &none).await.expect("completed");
        assert_eq!(completion.values, ["fr", "fi"], "{revision:?}");
        let template = CompletionReference::Resource { uri: "docs://web/{language}".into() };
        let completion = client.complete(template, "language", "e", &none).await.expect("completed");
        assert_eq!(completion.values, ["en"], "{revision:?}");
    }
}
