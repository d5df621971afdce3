//! Interactive views (MCP Apps): a `ui://` view and the tools bound to it,
//! as both eras list, read and negotiate them. Every message is checked
//! against the official schema of its revision.

use mcp_runtime::apps::{EXTENSION, MIME_TYPE, View, Visibility};
use mcp_runtime::entry::{ResourceEntry, ToolEntry};
use mcp_runtime::protocol::{ClientCapabilities, DiscoverResult, ResourceBody, ResourceContents, Tool};
use mcp_runtime::{BuildError, RequestContext, Server, ServerBuilder};
use mcp_tests::stdio_session::Session;
use mcp_tests::validated_client::checked;
use serde_json::{Value, json};

const BOARD_URI: &str = "ui://notes/board.html";
const BOARD: &str = "<!doctype html><html><body><h1>Notes</h1></body></html>";

fn board() -> View {
    View::new().connect_domains(["https://api.example.com"]).clipboard_write().prefers_border(true)
}

fn builder() -> ServerBuilder {
    Server::builder("notes", "1.0.0")
        .resource(ResourceEntry::fixed(BOARD_URI, "board", || async { BOARD }).view(board()))
        .tool(
            ToolEntry::new("show_board", |cx: RequestContext| async move {
                if cx.client_renders_views() { "3 notes" } else { "3 notes: milk, eggs, bread" }
            })
            .view(BOARD_URI),
        )
        .tool(ToolEntry::new("refresh_board", || async { "refreshed" }).view(BOARD_URI).visibility(Visibility::App))
        .tool(ToolEntry::new("plain", || async { "plain" }))
}

fn renders_views() -> Value {
    json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})
}

fn listed<'a>(list: &'a Value, key: &str, name: &str) -> &'a Value {
    let items = list[key].as_array().expect("a list");
    items.iter().find(|item| item["name"] == name).unwrap_or_else(|| panic!("`{name}` in {list}"))
}

/// The tool named `name` of `tools/list`.
fn listed_tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools.iter().find(|tool| tool.name == name).unwrap_or_else(|| panic!("`{name}` in {tools:?}"))
}

/// The `_meta.ui` of a tool or a resource's contents.
fn ui(meta: Option<&serde_json::Map<String, Value>>) -> Option<&Value> {
    meta.and_then(|meta| meta.get("ui"))
}

/// What `server/discover` declares of the views extension.
fn views_extension(discover: &DiscoverResult) -> Option<&Value> {
    discover.capabilities.extensions.as_ref().and_then(|extensions| extensions.get(EXTENSION))
}

/// The text of a resource's contents, if they are text.
fn text_contents(contents: &ResourceContents) -> Option<&str> {
    match &contents.body {
        ResourceBody::Text(text) => Some(text),
        _ => None,
    }
}

#[tokio::test]
async fn a_view_and_its_tools_are_listed_read_and_declared_in_the_stateless_revision() {
    let server = builder().build().expect("a valid server");
    let capabilities: ClientCapabilities = serde_json::from_value(renders_views()).expect("capabilities");
    let client = checked(server).capabilities(capabilities);

    let discover = client.discover().await.expect("discover");
    assert_eq!(views_extension(&discover), Some(&json!({})), "{discover:?}");

    let tools = client.list_tools().await.expect("tools/list");
    let show_board = ui(listed_tool(&tools, "show_board").meta.as_ref());
    assert_eq!(show_board, Some(&json!({"resourceUri": BOARD_URI})));
    let app_only = ui(listed_tool(&tools, "refresh_board").meta.as_ref());
    assert_eq!(app_only, Some(&json!({"resourceUri": BOARD_URI, "visibility": ["app"]})));
    assert!(listed_tool(&tools, "plain").meta.is_none());

    let board = board_meta();
    let resources = client.request("resources/list", json!({})).await.expect("resources/list");
    let entry = listed(&resources, "resources", "board");
    assert_eq!((entry["mimeType"].as_str(), &entry["_meta"]["ui"]), (Some(MIME_TYPE), &board));
    let read = client.read_resource(BOARD_URI).await.expect("resources/read");
    let content = &read.contents[0];
    assert_eq!((content.mime_type.as_deref(), text_contents(content)), (Some(MIME_TYPE), Some(BOARD)));
    assert_eq!(ui(content.meta.as_ref()), Some(&board));

    let shown = client.call_tool("show_board", json!({})).await.expect("tools/call");
    assert_eq!(shown.first_text(), Some("3 notes"));
    // An app-only tool is served like any other: visibility is the host's business.
    let refreshed = client.call_tool("refresh_board", json!({})).await.expect("tools/call");
    assert_eq!(refreshed.first_text(), Some("refreshed"));
}

fn board_meta() -> Value {
    json!({"csp": {"connectDomains": ["https://api.example.com"]}, "permissions": {"clipboardWrite": {}}, "prefersBorder": true})
}

#[tokio::test]
async fn a_client_that_renders_no_view_is_told_more() {
    let client = checked(builder().build().expect("a valid server"));
    let shown = client.call_tool("show_board", json!({})).await.expect("tools/call");
    assert_eq!(shown.first_text(), Some("3 notes: milk, eggs, bread"));
    // Declaring the extension without the views' MIME type is no support.
    let without_type: ClientCapabilities =
        serde_json::from_value(json!({"extensions": {EXTENSION: {}}})).expect("capabilities");
    let client = checked(builder().build().expect("a valid server")).capabilities(without_type);
    let shown = client.call_tool("show_board", json!({})).await.expect("tools/call");
    assert_eq!(shown.first_text(), Some("3 notes: milk, eggs, bread"));
}

#[tokio::test]
async fn a_server_without_views_declares_no_extension() {
    let server = Server::builder("plain", "1.0.0")
        .tool(ToolEntry::new("plain", || async { "plain" }))
        .build()
        .expect("a valid server");
    assert!(server.capabilities().extensions.is_none_or(|extensions| !extensions.contains_key(EXTENSION)));
}

#[tokio::test]
async fn a_2025_era_session_negotiates_views_in_initialize() {
    let (mut session, initialized) = Session::open(builder().build().expect("a server"), renders_views()).await;
    assert_eq!(initialized["result"]["capabilities"]["extensions"], json!({EXTENSION: {}}), "{initialized}");
    let tools = session.request(1, "tools/list", json!({})).await;
    assert_eq!(listed(&tools["result"], "tools", "show_board")["_meta"]["ui"], json!({"resourceUri": BOARD_URI}));
    let read = session.request(2, "resources/read", json!({"uri": BOARD_URI})).await;
    assert_eq!(read["result"]["contents"][0]["mimeType"], MIME_TYPE);
    assert_eq!(read["result"]["contents"][0]["_meta"]["ui"], board_meta());
    let shown = session.request(3, "tools/call", json!({"name": "show_board"})).await;
    assert_eq!(shown["result"]["content"][0]["text"], "3 notes", "the session's client renders views");

    let (mut plain, _) = Session::open(builder().build().expect("a server"), json!({})).await;
    let shown = plain.request(1, "tools/call", json!({"name": "show_board"})).await;
    assert_eq!(shown["result"]["content"][0]["text"], "3 notes: milk, eggs, bread");
}

fn refused(builder: ServerBuilder) -> String {
    match builder.build() {
        Err(error @ BuildError::View { .. }) => error.to_string(),
        Err(other) => panic!("another error: {other}"),
        Ok(_) => panic!("built"),
    }
}

#[test]
fn a_view_declared_wrongly_is_a_build_error_naming_it() {
    let view = |uri: &str| ResourceEntry::fixed(uri, "v", || async { BOARD }).view(View::new());
    let error = refused(Server::builder("s", "1").resource(view("https://example.com/board.html")));
    assert!(error.starts_with("resource `https://example.com/board.html` (at "), "{error}");
    assert!(error.contains("starts with `ui://`"), "{error}");

    let template = ResourceEntry::template("ui://notes/{id}", "v", || async { BOARD }).view(View::new());
    assert!(refused(Server::builder("s", "1").resource(template)).contains("not a template"));

    let bad_domain = ResourceEntry::fixed(BOARD_URI, "v", || async { BOARD })
        .view(View::new().connect_domains(["https://api.example.com/v1"]));
    assert!(refused(Server::builder("s", "1").resource(bad_domain)).contains("is not an origin"));

    let unbound = ToolEntry::new("show", || async { "x" }).view("ui://nowhere.html");
    let error = refused(Server::builder("s", "1").tool(unbound));
    assert!(error.starts_with("tool `show` (at "), "{error}");
    assert!(error.contains("bound to the view `ui://nowhere.html`, which no resource serves"), "{error}");
    // A resource at the URI that is not a view does not count.
    let not_a_view = ResourceEntry::fixed(BOARD_URI, "v", || async { BOARD });
    let tool = ToolEntry::new("show", || async { "x" }).view(BOARD_URI);
    assert!(refused(Server::builder("s", "1").resource(not_a_view).tool(tool)).contains("which no resource serves"));
}

/// The macro board.
#[mcp_runtime::resource(
    "ui://notes/macro-board.html",
    view(connect_domains = ["https://api.example.com"], clipboard_write, prefers_border = true)
)]
fn macro_board() -> &'static str {
    BOARD
}

/// Refreshes the macro board.
#[mcp_runtime::tool(view = "ui://notes/macro-board.html", visibility = app)]
fn refresh_macro_board() -> String {
    "refreshed".to_owned()
}

#[tokio::test]
async fn the_macros_declare_the_same_view_and_binding() {
    let server = Server::builder("macros", "1.0.0")
        .resources(mcp_runtime::resources![macro_board])
        .tools(mcp_runtime::tools![refresh_macro_board])
        .build()
        .expect("a valid server");
    let client = checked(server);
    let tools = client.list_tools().await.expect("tools/list");
    let refresh = ui(listed_tool(&tools, "refresh_macro_board").meta.as_ref());
    assert_eq!(refresh, Some(&json!({"resourceUri": "ui://notes/macro-board.html", "visibility": ["app"]})));
    let read = client.read_resource("ui://notes/macro-board.html").await.expect("resources/read");
    assert_eq!(read.contents[0].mime_type.as_deref(), Some(MIME_TYPE));
    assert_eq!(ui(read.contents[0].meta.as_ref()), Some(&board_meta()));
    let discover = client.discover().await.expect("discover");
    assert_eq!(views_extension(&discover), Some(&json!({})));
}
