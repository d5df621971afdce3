//! The client with servers that speak only the 2025-era revisions, or
//! both: the revision it settles on by itself (`Revision::Auto`) or is told
//! (`Revision::Session`), over HTTP (a session by `Mcp-Session-Id`) and over
//! a pipe; and a server's request for input refused at once, not left to
//! hang.

use std::time::Duration;

use mcp_runtime::client::{Client, Error, Revision};
use mcp_runtime::entry::{PromptEntry, ResourceEntry, ToolEntry};
use mcp_runtime::input::Elicitation;
use mcp_runtime::server::Eras;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{Input, Server};
use serde_json::json;

fn server(eras: Eras) -> Server {
    Server::builder("session-client-test", "1.0.0")
        .eras(eras)
        .instructions("Call echo.")
        .tool(ToolEntry::new("echo", |mcp_runtime::Args(args): mcp_runtime::Args<serde_json::Value>| async move {
            args["text"].as_str().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("ask", |input: Input| async move {
            match input.elicit("name", Elicitation::form("Your name?").text("name", true)).await.field("name") {
                Some(name) => format!("Hello, {name}!"),
                None => "no name".to_owned(),
            }
        }))
        .prompt(PromptEntry::new("greet", || async { "Say hello." }).description("A greeting."))
        .resource(ResourceEntry::fixed("docs://readme", "readme", || async { "# Old" }).mime_type("text/markdown"))
        .build()
        .expect("a server")
}

async fn serve(eras: Eras) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(server(eras).serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    url
}

fn over_pipe(eras: Eras) -> Client {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    tokio::spawn(server(eras).serve_io(their_read, their_write, StdioConfig::default()));
    let (read, write) = tokio::io::split(ours);
    Client::stdio(read, write)
}

async fn echo(client: &Client, text: &str) -> String {
    let result = client.call_tool("echo", json!({"text": text})).await.expect("tools/call");
    serde_json::to_value(&result.content).expect("JSON")[0]["text"].as_str().expect("text").to_owned()
}

#[tokio::test]
async fn a_server_of_the_2025_era_alone_is_opened_a_session_over_http() {
    let client = Client::http(serve(Eras::Session).await);
    assert_eq!(client.protocol_version().await.expect("negotiated"), "2025-11-25");
    let discover = client.discover().await.expect("from initialize");
    assert_eq!(discover.supported_versions, ["2025-11-25"]);
    assert!(discover.capabilities.tools.is_some(), "{discover:?}");
    assert_eq!(discover.instructions.as_deref(), Some("Call echo."));
    let names: Vec<String> = client.list_tools().await.expect("tools/list").into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["ask", "echo"]);
    assert_eq!(echo(&client, "in a session").await, "in a session");
    // Clones share the session.
    assert_eq!(echo(&client.clone(), "again").await, "again");
}

#[tokio::test]
async fn a_server_of_both_eras_is_spoken_to_in_2026_07_28_unless_told_otherwise() {
    let url = serve(Eras::Dual).await;
    let auto = Client::http(&url);
    assert_eq!(auto.protocol_version().await.expect("negotiated"), "2026-07-28");
    assert_eq!(echo(&auto, "stateless").await, "stateless");
    let session = Client::http(&url).revision(Revision::Session);
    assert_eq!(session.protocol_version().await.expect("negotiated"), "2025-11-25");
    assert_eq!(echo(&session, "in a session").await, "in a session");
}

#[tokio::test]
async fn over_a_pipe_a_server_of_the_2025_era_is_opened_a_session_too() {
    let client = over_pipe(Eras::Session);
    assert_eq!(client.protocol_version().await.expect("negotiated"), "2025-11-25");
    assert_eq!(echo(&client, "over a pipe").await, "over a pipe");
    let stateless = over_pipe(Eras::Session).revision(Revision::Stateless);
    match stateless.call_tool("echo", json!({"text": "refused"})).await {
        Err(Error::Rpc(error)) => assert!(format!("{error:?}").contains("2025-11-25"), "{error:?}"),
        other => panic!("told that only 2025-era revisions are spoken, not {other:?}"),
    }
}

#[tokio::test]
async fn a_2025_era_servers_request_for_input_is_refused_at_once_not_left_to_hang() {
    let capabilities: mcp_runtime::protocol::ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {}})).expect("capabilities");
    for client in [Client::http(serve(Eras::Session).await), over_pipe(Eras::Session)] {
        let client = client.capabilities(capabilities.clone()).timeout(Duration::from_secs(20));
        match client.call_tool("ask", json!({})).await {
            Err(Error::Rpc(error)) => assert!(error.message.contains("elicitation/create"), "{error:?}"),
            other => panic!("the server's request refused, and the call answered with that, not {other:?}"),
        }
        assert_eq!(echo(&client, "still serving").await, "still serving");
    }
}

#[tokio::test]
async fn a_2025_era_server_is_mounted_behind_a_gateway_that_speaks_2026_07_28() {
    let remote = mcp_runtime::client::Remote::connect(over_pipe(Eras::Session)).await.expect("connected");
    let gateway = Server::builder("gateway", "1.0.0").mount_remote("old", remote).build().expect("a gateway");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(gateway.serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    let client = Client::http(url).revision(Revision::Stateless);
    let result = client.call_tool("old_echo", json!({"text": "through the gateway"})).await.expect("forwarded");
    assert_eq!(serde_json::to_value(&result.content).expect("JSON")[0]["text"], "through the gateway");

    // Its prompts and resources too, under the same rule as a mounted server's.
    let prompts = client.list_prompts().await.expect("prompts/list");
    assert_eq!(prompts, [json!({"name": "old_greet", "description": "A greeting."})]);
    let prompt = client.get_prompt("old_greet", json!({})).await.expect("prompts/get forwarded");
    assert_eq!(serde_json::to_value(&prompt.messages).expect("JSON")[0]["content"]["text"], "Say hello.");
    let resources = client.list_resources().await.expect("resources/list");
    assert_eq!(resources[0]["uri"], "docs://old/readme", "{resources:?}");
    assert_eq!(resources[0]["mimeType"], "text/markdown");
    let readme = client.read_resource("docs://old/readme").await.expect("resources/read forwarded");
    let contents = serde_json::to_value(&readme.contents).expect("JSON");
    assert_eq!(contents, json!([{"uri": "docs://old/readme", "mimeType": "text/markdown", "text": "# Old"}]));
}
