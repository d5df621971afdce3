//! Tool search (`ServerBuilder::tool_search`): the listing shows
//! `search_tools` and `call_tool` (and the tools kept listed); search
//! offers only tools the caller may call and that are for the model; a
//! call through `call_tool` is the named tool's call in every respect
//! (scopes, layers, errors); every tool stays callable by its name; tools
//! added or removed later are found or gone at once; both eras.

use std::sync::{Arc, Mutex};

use http::StatusCode;
use http_body_util::BodyExt as _;
use mcp_runtime::apps::{View, Visibility};
use mcp_runtime::auth::Principal;
use mcp_runtime::client::{Client, Revision};
use mcp_runtime::middleware::{BoxFuture, Layer, McpRequest, Next, Response};
use mcp_runtime::protocol::{CacheHints, CacheScope};
use mcp_runtime::search::ToolSearch;
use mcp_runtime::transport::http::{HttpConfig, McpService};
use mcp_runtime::{
    Args, BuildError, Server, ServerBuilder,
    entry::{ResourceEntry, ToolEntry},
};
use mcp_tests::exchange::{request, send};
use mcp_tests::http_wire::stateless_request;
use mcp_tests::wire_schema::assert_valid_message;
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Sum {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct City {
    /// The city's name.
    city: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Title {
    title: String,
}

const READ: &str = "notes:read";
const WRITE: &str = "notes:write";

fn builder() -> ServerBuilder {
    Server::builder("many", "1.0.0")
        .tool(ToolEntry::new("add", |Args(s): Args<Sum>| async move { s.a + s.b }).description("Adds two numbers."))
        .tool(
            ToolEntry::new("weather", |Args(c): Args<City>| async move { format!("sunny in {}", c.city) })
                .description("Today's weather forecast for a city."),
        )
        .tool(
            ToolEntry::new("create_pull_request", |Args(t): Args<Title>| async move { format!("opened {}", t.title) })
                .description("Opens a pull request from a branch."),
        )
}

fn names(items: &Value) -> Vec<&str> {
    items.as_array().expect("an array").iter().map(|t| t["name"].as_str().expect("a name")).collect()
}

async fn call(server: &Server, name: &str, arguments: Value) -> Value {
    let reply = send(server, &request(1, "tools/call", json!({"name": name, "arguments": arguments}))).await;
    reply.response().clone()
}

async fn search(server: &Server, query: &str) -> Vec<String> {
    let response = call(server, "search_tools", json!({"query": query})).await;
    let result = &response["result"];
    assert_ne!(result["isError"], true, "{result}");
    names(&result["structuredContent"]["tools"]).into_iter().map(str::to_owned).collect()
}

#[tokio::test]
async fn the_listing_shows_the_two_tools_and_those_kept_while_every_tool_stays_callable() {
    let server = builder().tool_search(ToolSearch::bm25().keep_listed(["add", "no_such_tool"])).build().unwrap();
    let listed = send(&server, &request(1, "tools/list", json!({}))).await;
    assert_eq!(names(&listed.result()["tools"]), ["add", "call_tool", "search_tools"]);
    assert_eq!(server.tool_names(), ["add", "create_pull_request", "weather"]);

    let found = search(&server, "what is the weather forecast in Paris").await;
    assert_eq!(found[0], "weather", "{found:?}");
    let response = call(&server, "search_tools", json!({"query": "open a pull request", "limit": 1})).await;
    let tools = &response["result"]["structuredContent"]["tools"];
    assert_eq!(names(tools), ["create_pull_request"]);
    // The definition as `tools/list` would have shown it.
    assert_eq!(tools[0]["description"], "Opens a pull request from a branch.");
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["title"]));

    let through = call(&server, "call_tool", json!({"name": "weather", "arguments": {"city": "Paris"}})).await;
    let direct = call(&server, "weather", json!({"city": "Paris"})).await;
    assert_eq!(through["result"]["content"][0]["text"], "sunny in Paris");
    assert_eq!(through["result"], direct["result"]);
}

#[tokio::test]
async fn bad_arguments_are_answered_as_for_the_tool_itself() {
    let server = builder().tool_search(ToolSearch::bm25().max_results(3)).build().unwrap();
    // Unknown and invalid, through `call_tool` as directly.
    let through = call(&server, "call_tool", json!({"name": "nope", "arguments": {}})).await;
    let direct = call(&server, "nope", json!({})).await;
    assert_eq!(through["error"], direct["error"]);
    assert_eq!(through["error"]["code"], -32602);
    let through = call(&server, "call_tool", json!({"name": "add", "arguments": {"a": "one"}})).await;
    let direct = call(&server, "add", json!({"a": "one"})).await;
    assert_eq!(through, direct);

    for arguments in [json!({}), json!({"name": 7}), json!({"name": "add", "extra": 1}), json!({"name": "call_tool"})] {
        let response = call(&server, "call_tool", arguments.clone()).await;
        assert_eq!(response["error"]["code"], -32602, "{arguments}: {response}");
    }
    for (arguments, message) in [
        (json!({"query": "add", "limit": 4}), "`limit` is 4; it must be from 1 to 3"),
        (json!({"query": "add", "limit": 0}), "`limit` is 0; it must be from 1 to 3"),
        (json!({"query": "  "}), "The query is empty"),
        (json!({"query": "x".repeat(1025)}), "at most 1024 are taken"),
        (json!({}), "missing field `query`"),
    ] {
        let response = call(&server, "search_tools", arguments.clone()).await;
        let result = &response["result"];
        assert_eq!(result["isError"], true, "{arguments}: {response}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(message), "{arguments}: {text}");
    }
}

#[tokio::test]
async fn the_regex_mode_ranks_name_matches_first_and_bounds_the_pattern() {
    let server = builder().tool_search(ToolSearch::regex()).build().unwrap();
    assert_eq!(search(&server, "pull.?request").await, ["create_pull_request"]);
    // `add` by name ranks above the tools that only mention "a".
    assert_eq!(search(&server, "^add$|city").await, ["add", "weather"]);
    for (pattern, message) in [
        ("(".to_owned(), "does not compile"),
        ("a".repeat(257), "at most 256 are taken"),
        (r"\w{1000}\w{1000}\w{1000}".to_owned(), "does not compile"),
    ] {
        let response = call(&server, "search_tools", json!({"query": pattern})).await;
        let text = response["result"]["content"][0]["text"].as_str().unwrap().to_owned();
        assert_eq!(response["result"]["isError"], true, "{pattern}: {response}");
        assert!(text.contains(message), "{pattern}: {text}");
    }
}

#[tokio::test]
async fn tools_added_or_removed_later_are_found_or_gone_at_once() {
    let server = builder().tool_search(ToolSearch::bm25()).build().unwrap();
    assert!(search(&server, "translate text into French").await.is_empty());
    let translate = ToolEntry::new("translate", || async { "traduit" }).description("Translates text.");
    server.add_tool(translate).unwrap();
    assert_eq!(search(&server, "translate text into French").await, ["translate"]);
    assert!(server.remove_tool("translate"));
    assert!(search(&server, "translate text into French").await.is_empty());
}

#[test]
fn a_tool_named_as_one_of_search_s_own_is_refused() {
    let error = builder()
        .tool(ToolEntry::new("call_tool", || async { "mine" }))
        .tool_search(ToolSearch::bm25())
        .build()
        .unwrap_err();
    assert!(matches!(error, BuildError::Setting { setting: "ServerBuilder::tool_search", .. }), "{error}");
    assert!(error.to_string().contains("a tool named `call_tool`"), "{error}");
    // Nor can one be added while serving: it would be shadowed.
    let server = builder().tool_search(ToolSearch::bm25()).build().unwrap();
    let error = server.add_tool(ToolEntry::new("search_tools", || async { "mine" })).unwrap_err();
    assert!(error.to_string().contains("a tool named `search_tools`"), "{error}");
    assert_eq!(server.tool_names(), ["add", "create_pull_request", "weather"]);
}

#[tokio::test]
async fn a_tool_for_its_view_only_is_neither_offered_nor_called_through_call_tool() {
    let server = builder()
        .resource(ResourceEntry::fixed("ui://board.html", "board", || async { "<p>board</p>" }).view(View::new()))
        .tool(
            ToolEntry::new("move_weather_card", || async { "moved" })
                .description("Moves the weather card on the board.")
                .view("ui://board.html")
                .visibility(Visibility::App),
        )
        .tool_search(ToolSearch::bm25())
        .build()
        .unwrap();
    assert_eq!(search(&server, "weather").await, ["weather"]);
    let response = call(&server, "call_tool", json!({"name": "move_weather_card"})).await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    // Its view still calls it by name, and hosts still see it listed.
    assert_eq!(call(&server, "move_weather_card", json!({})).await["result"]["content"][0]["text"], "moved");
    let listed = send(&server, &request(1, "tools/list", json!({}))).await;
    assert_eq!(names(&listed.result()["tools"]), ["call_tool", "move_weather_card", "search_tools"]);
}

/// Records the tool each request names, as layers see it.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

impl Layer for Seen {
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        self.0.lock().unwrap().push(request.target().unwrap_or_default().to_owned());
        Box::pin(next.run(request))
    }
}

#[tokio::test]
async fn call_tool_passes_the_layers_of_the_tool_it_calls() {
    let (outer, own) = (Seen::default(), Seen::default());
    let server = Server::builder("layered", "1.0.0")
        .tool(ToolEntry::new("weather", |Args(c): Args<City>| async move { c.city }).layer(own.clone()))
        .layer(outer.clone())
        .tool_search(ToolSearch::bm25())
        .build()
        .unwrap();
    call(&server, "search_tools", json!({"query": "weather"})).await;
    call(&server, "call_tool", json!({"name": "weather", "arguments": {"city": "Oslo"}})).await;
    assert_eq!(*outer.0.lock().unwrap(), ["search_tools", "weather"]);
    assert_eq!(*own.0.lock().unwrap(), ["weather"]);
}

fn scoped() -> McpService {
    Server::builder("scoped", "1.0.0")
        .tool(ToolEntry::new("read_notes", || async { "the notes" }).description("Reads the notes.").scopes([READ]))
        .tool(
            ToolEntry::new("write_note", || async { "written" })
                .description("Writes one of the notes.")
                .scopes([WRITE, READ]),
        )
        .tool(ToolEntry::new("count_notes", || async { "3" }).description("Counts the notes."))
        .cache_hints(CacheHints::new(60_000, CacheScope::Public))
        .tool_search(ToolSearch::bm25())
        .authenticated_by_layer()
        .build()
        .unwrap()
        .http_service(HttpConfig::default())
}

/// A stateless request over HTTP, carrying `scopes` as an authentication
/// layer would.
async fn over_http(service: &McpService, method: &str, params: Value, scopes: &[&str]) -> (StatusCode, Value) {
    let message = request(1, method, params);
    let request = stateless_request(&message, Some(Principal::new("ada").with_scopes(scopes.iter().copied())));
    let response = service.handle(request).await.unwrap_or_else(|never| match never {});
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_valid_message(method, &body);
    (status, body)
}

#[tokio::test]
async fn search_never_offers_a_tool_outside_the_callers_scopes() {
    let service = scoped();
    for (scopes, expected) in [
        (&[READ, WRITE][..], &["count_notes", "read_notes", "write_note"][..]),
        (&[READ][..], &["count_notes", "read_notes"][..]),
        (&[][..], &["count_notes"][..]),
    ] {
        let (_, body) =
            over_http(&service, "tools/call", json!({"name": "search_tools", "arguments": {"query": "notes"}}), scopes)
                .await;
        let mut found = names(&body["result"]["structuredContent"]["tools"]);
        found.sort_unstable();
        assert_eq!(found, expected, "{scopes:?}");
        let (_, listed) = over_http(&service, "tools/list", json!({}), scopes).await;
        assert_eq!(names(&listed["result"]["tools"]), ["call_tool", "search_tools"]);
        assert_eq!(listed["result"]["cacheScope"], "private", "the listing depends on the caller");
    }
    // Through `call_tool`, a tool outside the caller's scopes is refused
    // exactly as it is by name.
    let (status, through) =
        over_http(&service, "tools/call", json!({"name": "call_tool", "arguments": {"name": "write_note"}}), &[READ])
            .await;
    let (direct_status, direct) = over_http(&service, "tools/call", json!({"name": "write_note"}), &[READ]).await;
    assert_eq!((status, direct_status), (StatusCode::FORBIDDEN, StatusCode::FORBIDDEN));
    assert_eq!(through["error"], direct["error"]);
}

#[tokio::test]
async fn a_2025_session_lists_searches_and_calls_in_its_own_shape() {
    let server = builder().tool_search(ToolSearch::bm25()).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    for revision in [Revision::Session, Revision::Stateless] {
        let client = Client::http(url.clone()).revision(revision);
        let listed: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(listed, ["call_tool", "search_tools"], "{revision:?}");
        let found = client.call_tool("search_tools", json!({"query": "weather in a city"})).await.unwrap();
        let tools = &found.structured_content.expect("structured content")["tools"];
        assert_eq!(names(tools)[0], "weather", "{revision:?}");
        let called =
            client.call_tool("call_tool", json!({"name": "add", "arguments": {"a": 2, "b": 3}})).await.unwrap();
        assert_eq!(called.first_text(), Some("5"), "{revision:?}");
    }
}

#[tokio::test]
async fn call_tool_runs_as_a_task_and_asks_for_input_as_the_tool_does() {
    use mcp_runtime::Input;
    use mcp_runtime::input::Elicitation;
    use mcp_runtime::protocol::{ClientCapabilities, ElicitRequest, ElicitResult};
    use mcp_runtime::tasks::TaskSupport;

    const TASKS: &str = "io.modelcontextprotocol/tasks";
    let server = || {
        Server::builder("rounds", "1.0.0")
            .tool(ToolEntry::new("report", || async { "done" }).task(TaskSupport::required()))
            .tool(ToolEntry::new("greet", |input: Input| async move {
                let answer = input.elicit("user_name", Elicitation::form("Your name?").text("name", true)).await;
                format!("Hello, {}!", answer.field("name").unwrap_or_default())
            }))
            .tool_search(ToolSearch::bm25())
            .build()
            .unwrap()
    };
    // A task, as the tool's own call is one; refused the same way without
    // the extension.
    let tasks =
        Client::in_process(server()).capabilities(ClientCapabilities::default().with_extension(TASKS, json!({})));
    let created = tasks.request("tools/call", json!({"name": "call_tool", "arguments": {"name": "report"}})).await;
    assert_eq!(created.unwrap()["resultType"], "task");
    let plain = Client::in_process(server());
    let through = plain.request("tools/call", json!({"name": "call_tool", "arguments": {"name": "report"}})).await;
    let direct = plain.request("tools/call", json!({"name": "report"})).await;
    assert_eq!(format!("{:?}", through.unwrap_err()), format!("{:?}", direct.unwrap_err()));
    // Input asked for, answered, and the call resumed: each round through `call_tool`.
    let asking = Client::in_process(server()).on_elicitation(|request| async move {
        match request {
            ElicitRequest::Form { .. } => ElicitResult::accept(json!({"name": "Bo"})),
            _ => ElicitResult::decline(),
        }
    });
    let greeted = asking.call_tool("call_tool", json!({"name": "greet"})).await.unwrap();
    assert_eq!(greeted.first_text(), Some("Hello, Bo!"));
}
