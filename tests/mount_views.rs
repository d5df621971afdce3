//! Interactive views (MCP Apps) through mounts: a server with a view,
//! mounted in process or behind a gateway (`mount_remote`), namespaced or
//! not, serves its view under the mount's URI, names it so on the tools
//! bound to it, declares the extension, and its view's calls of the tools
//! by their own names reach them.

use mcp_runtime::apps::{EXTENSION, MIME_TYPE, View, Visibility};
use mcp_runtime::client::{Client, Remote};
use mcp_runtime::entry::{ResourceEntry, ToolEntry};
use mcp_runtime::protocol::{ClientCapabilities, ResourceBody, Tool};
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{Args, Server};
use mcp_tests::validated_client::checked;
use serde_json::{Value, json};

const BOARD: &str = "<!doctype html><html><body><h1>Board</h1></body></html>";

/// A server with a view, a tool bound to it, an app-only tool, and one its
/// view calls that is bound to nothing.
fn notes(name: &str) -> Server {
    Server::builder(name, "1.0.0")
        .resource(
            ResourceEntry::fixed("ui://notes/board.html", "board", || async { BOARD })
                .view(View::new().prefers_border(true)),
        )
        .tool(ToolEntry::new("show_board", || async { "the board" }).view("ui://notes/board.html"))
        .tool(
            ToolEntry::new("remove_from_board", || async { "removed" })
                .view("ui://notes/board.html")
                .visibility(Visibility::App),
        )
        .tool(ToolEntry::new("add_note", |Args(a): Args<Value>| async move {
            format!("added {}", a["title"].as_str().unwrap_or_default())
        }))
        .build()
        .expect("a server with a view")
}

fn over_pipe(server: Server) -> Client {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    tokio::spawn(server.serve_io(their_read, their_write, StdioConfig::default()));
    let (read, write) = tokio::io::split(ours);
    Client::stdio(read, write)
}

/// The `_meta.ui` of the tool named `name`, which must be listed.
fn ui_of(tools: &[Tool], name: &str) -> Value {
    let tool = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("`{name}` in {tools:?}"));
    tool.meta.as_ref().and_then(|meta| meta.get("ui")).cloned().unwrap_or_default()
}

fn renders_views() -> ClientCapabilities {
    serde_json::from_value(json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})).expect("capabilities")
}

/// What a host does with a server whose view is served as `notes_…` under
/// `ui://notes/notes/…`: lists the tool, reads its view, and lets the view
/// call the tools as its own server names them.
async fn a_host_renders_the_mounted_view(gateway: Server) {
    let client = checked(gateway).capabilities(renders_views());
    let discover = client.discover().await.expect("discover");
    let extension = discover.capabilities.extensions.as_ref().and_then(|extensions| extensions.get(EXTENSION));
    assert_eq!(extension, Some(&json!({})), "the extension is declared: {discover:?}");
    let tools = client.list_tools().await.expect("tools/list");
    let uri = ui_of(&tools, "notes_show_board")["resourceUri"].as_str().expect("a view").to_owned();
    assert_eq!(uri, "ui://notes/notes/board.html", "named as the mount serves it");
    assert_eq!(ui_of(&tools, "notes_remove_from_board")["visibility"], json!(["app"]));
    let read = client.read_resource(&uri).await.expect("the view read");
    let contents = &read.contents[0];
    assert_eq!(contents.mime_type.as_deref(), Some(MIME_TYPE), "{read:?}");
    assert_eq!(contents.body, ResourceBody::Text(BOARD.to_owned()));
    let ui = contents.meta.as_ref().and_then(|meta| meta.get("ui"));
    assert_eq!(ui.map(|ui| &ui["prefersBorder"]), Some(&json!(true)), "{read:?}");
    // The view calls its server's tools by their own names.
    let added = client.call_tool("add_note", json!({"title": "milk"})).await.expect("the view's call");
    assert_eq!(added.first_text(), Some("added milk"));
    let shown = client.call_tool("show_board", json!({})).await.expect("the view's call");
    assert_eq!(shown.first_text(), Some("the board"));
    // Which is no name of a list.
    assert!(!tools.iter().any(|t| t.name == "add_note"), "an alias is not listed");
}

#[tokio::test]
async fn a_remote_with_a_view_is_served_through_a_namespaced_mount() {
    let remote = Remote::connect(over_pipe(notes("notes"))).await.expect("listed");
    let gateway = Server::builder("gateway", "1.0.0").mount_remote("notes", remote).build().expect("a gateway");
    a_host_renders_the_mounted_view(gateway).await;
}

#[tokio::test]
async fn a_server_with_a_view_is_served_through_an_in_process_mount() {
    let gateway = Server::builder("product", "1.0.0").mount("notes", notes("notes")).build().expect("a server");
    a_host_renders_the_mounted_view(gateway).await;
}

#[tokio::test]
async fn a_proxied_remote_with_a_view_is_served_as_it_is() {
    let remote = Remote::connect(over_pipe(notes("notes"))).await.expect("listed");
    let gateway = Server::builder("gateway", "1.0.0").proxy(remote).build().expect("a gateway");
    let client = checked(gateway).capabilities(renders_views());
    let tools = client.list_tools().await.expect("tools/list");
    assert_eq!(ui_of(&tools, "show_board")["resourceUri"], "ui://notes/board.html");
    let read = client.read_resource("ui://notes/board.html").await.expect("the view read");
    assert_eq!(read.contents[0].mime_type.as_deref(), Some(MIME_TYPE));
}

#[tokio::test]
async fn a_name_two_mounted_views_call_reaches_neither() {
    let gateway = Server::builder("product", "1.0.0")
        .mount("one", notes("one"))
        .mount("two", notes("two"))
        .tool(ToolEntry::new("show_board", || async { "the product's own" }))
        .build()
        .expect("a server");
    let client = checked(gateway);
    let error = client.call_tool("add_note", json!({"title": "x"})).await.expect_err("ambiguous");
    assert!(format!("{error:?}").contains("Unknown tool"), "{error:?}");
    // A name the server has is the server's.
    let own = client.call_tool("show_board", json!({})).await.expect("its own");
    assert_eq!(own.first_text(), Some("the product's own"));
    // Each mount's own names still work.
    let one = client.call_tool("one_add_note", json!({"title": "y"})).await.expect("namespaced");
    assert_eq!(one.first_text(), Some("added y"));
}
