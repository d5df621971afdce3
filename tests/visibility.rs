//! Visibility by caller (`visible_to`): entries shown only to the callers a
//! rule admits. Two callers see two lists, in both eras; an entry hidden
//! from a caller is answered, when it calls it, exactly as a name no entry
//! has; tool search never offers it; the lists that depend on the caller
//! are private.
//!
//! The caller is what an authentication layer in front of the service
//! would find: a `Principal` in the HTTP request's extensions.

use http::StatusCode;
use http_body_util::BodyExt as _;
use mcp_runtime::auth::Principal;
use mcp_runtime::entry::{PromptEntry, ResourceEntry, ToolEntry, Viewer};
use mcp_runtime::protocol::{CacheHints, CacheScope};
use mcp_runtime::search::ToolSearch;
use mcp_runtime::transport::http::{HttpConfig, McpService};
use mcp_runtime::{Server, ServerBuilder};
use mcp_tests::exchange::request;
use mcp_tests::http_wire::{session_request, stateless_request};
use mcp_tests::wire_schema::assert_valid_message;
use serde_json::{Value, json};

/// A rule admitting the callers of one tenant (the `tenant` claim).
fn tenant(name: &'static str) -> impl Fn(&Viewer<'_>) -> bool + Send + Sync + 'static {
    move |viewer| viewer.principal().and_then(|p| p.claim("tenant")).and_then(Value::as_str) == Some(name)
}

fn builder() -> ServerBuilder {
    Server::builder("tenants", "1.0.0")
        .tool(ToolEntry::new("ping", || async { "pong" }))
        .tool(ToolEntry::new("acme_report", || async { "acme's figures" }).visible_to(tenant("acme")))
        .tool(ToolEntry::new("globex_report", || async { "globex's figures" }).visible_to(tenant("globex")))
        // Hidden and scoped: to those it is hidden from, unknown rather than forbidden.
        .tool(ToolEntry::new("acme_admin", || async { "admin" }).visible_to(tenant("acme")).scopes(["admin"]))
        .prompt(PromptEntry::new("acme_brief", || async { "Brief acme.".to_owned() }).visible_to(tenant("acme")))
        .prompt(PromptEntry::new("hello", || async { "Say hello.".to_owned() }))
        .resource(ResourceEntry::fixed("acme://plan", "acme_plan", || async { "the plan" }).visible_to(tenant("acme")))
        .resource(ResourceEntry::fixed("docs://readme", "readme", || async { "# Hello" }))
        .resource(
            ResourceEntry::template("acme://notes/{id}", "acme_note", || async { "a note" }).visible_to(tenant("acme")),
        )
        .cache_hints(CacheHints::new(60_000, CacheScope::Public))
}

fn service(builder: ServerBuilder) -> McpService {
    builder.authenticated_by_layer().build().expect("a valid server").http_service(HttpConfig::default())
}

fn member(of: &str) -> Option<Principal> {
    let claims = json!({"tenant": of}).as_object().cloned().unwrap_or_default();
    Some(Principal::new(format!("{of}-user")).with_claims(claims))
}

struct Reply {
    status: StatusCode,
    body: Value,
}

async fn send(service: &McpService, request: http::Request<String>) -> Reply {
    let response = service.handle(request).await.unwrap_or_else(|never| match never {});
    let status = response.status();
    let bytes = response.into_body().collect().await.expect("a body").to_bytes();
    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8");
    let json = match text.lines().filter_map(|l| l.strip_prefix("data: ")).rfind(|d| !d.is_empty()) {
        Some(data) => data.to_owned(),
        None => text,
    };
    Reply { status, body: serde_json::from_str(&json).expect("JSON") }
}

async fn call(service: &McpService, method: &str, params: Value, principal: Option<Principal>) -> Reply {
    let message = request(1, method, params);
    let reply = send(service, stateless_request(&message, principal)).await;
    assert_valid_message(method, &reply.body);
    reply
}

fn names(result: &Value, list: &str, key: &str) -> Vec<String> {
    let items = result[list].as_array().unwrap_or_else(|| panic!("no `{list}` in {result}"));
    items.iter().map(|item| item[key].as_str().expect("a string").to_owned()).collect()
}

/// The reply to a request for `hidden`, and to the same request for
/// `unknown`, read back with the names swapped: the same status and the
/// same bytes.
async fn indistinguishable(
    service: &McpService,
    method: &str,
    params: impl Fn(&str) -> Value,
    hidden: &str,
    unknown: &str,
    principal: Option<Principal>,
) {
    let to_hidden = call(service, method, params(hidden), principal.clone()).await;
    let to_unknown = call(service, method, params(unknown), principal).await;
    assert_eq!(to_hidden.status, to_unknown.status, "{method} {hidden}");
    let unknown_as_hidden = to_unknown.body.to_string().replace(unknown, hidden);
    assert_eq!(to_hidden.body.to_string(), unknown_as_hidden, "{method} {hidden}");
    assert!(to_hidden.body.get("error").is_some(), "{method} {hidden}: {}", to_hidden.body);
}

#[tokio::test]
async fn two_callers_see_two_lists_each_private() {
    let service = service(builder());
    let lists = [
        ("tools/list", "tools", "name", ["acme_report", "ping"].as_slice(), ["globex_report", "ping"].as_slice()),
        ("prompts/list", "prompts", "name", &["acme_brief", "hello"], &["hello"]),
        ("resources/list", "resources", "uri", &["acme://plan", "docs://readme"], &["docs://readme"]),
        ("resources/templates/list", "resourceTemplates", "uriTemplate", &["acme://notes/{id}"], &[]),
    ];
    for (method, key, field, acme, globex) in lists {
        for (principal, expected) in [(member("acme"), acme), (member("globex"), globex)] {
            let reply = call(&service, method, json!({}), principal).await;
            let result = &reply.body["result"];
            let mut shown = names(result, key, field);
            shown.sort();
            assert_eq!(shown, expected, "{method}");
            assert_eq!(result["cacheScope"], "private", "{method}: the list depends on the caller");
        }
    }
}

#[tokio::test]
async fn a_hidden_entry_is_answered_as_an_unknown_one() {
    let service = service(builder());
    let globex = member("globex");
    let tool = |name: &str| json!({"name": name, "arguments": {}});
    indistinguishable(&service, "tools/call", tool, "acme_report", "no_such_tool", globex.clone()).await;
    indistinguishable(&service, "tools/call", tool, "acme_admin", "no_such_tool", globex.clone()).await;
    let prompt = |name: &str| json!({"name": name});
    indistinguishable(&service, "prompts/get", prompt, "acme_brief", "no_such_prompt", globex.clone()).await;
    let read = |uri: &str| json!({"uri": uri});
    indistinguishable(&service, "resources/read", read, "acme://plan", "acme://none", globex.clone()).await;
    indistinguishable(&service, "resources/read", read, "acme://notes/7", "acme://nothing/7", globex.clone()).await;
    let complete =
        |name: &str| json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": "a", "value": ""}});
    indistinguishable(&service, "completion/complete", complete, "acme_brief", "no_such_prompt", globex.clone()).await;
    // To the tenant, it is there.
    let acme = member("acme");
    let served = call(&service, "tools/call", tool("acme_report"), acme.clone()).await;
    assert_eq!(served.body["result"]["content"][0]["text"], "acme's figures");
    let read = call(&service, "resources/read", json!({"uri": "acme://notes/7"}), acme.clone()).await;
    assert_eq!(read.body["result"]["contents"][0]["text"], "a note");
    // Visible but not granted: refused for its scope, as before.
    let admin = call(&service, "tools/call", tool("acme_admin"), acme).await;
    assert_eq!(admin.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn tool_search_never_offers_a_hidden_tool_nor_calls_it() {
    let service = service(builder().tool_search(ToolSearch::bm25()));
    let search = json!({"name": "search_tools", "arguments": {"query": "report figures"}});
    for (who, expected) in [("acme", "acme_report"), ("globex", "globex_report")] {
        let reply = call(&service, "tools/call", search.clone(), member(who)).await;
        let found = names(&reply.body["result"]["structuredContent"], "tools", "name");
        assert!(found.contains(&expected.to_owned()), "{who}: {found:?}");
        assert!(found.iter().all(|name| !name.ends_with("_report") || name == expected), "{who}: {found:?}");
    }
    let through = |name: &str| json!({"name": "call_tool", "arguments": {"name": name, "arguments": {}}});
    indistinguishable(&service, "tools/call", through, "acme_report", "no_such_tool", member("globex")).await;
}

#[tokio::test]
async fn a_2025_session_sees_its_callers_list_and_not_the_hidden_entries() {
    let service = builder()
        .authenticated_by_layer()
        .build()
        .expect("a valid server")
        .http_service(HttpConfig::default().buffered_responses(true));
    let mut lists = Vec::new();
    for who in ["acme", "globex"] {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}});
        let opened = service.handle(session_request(None, &initialize, member(who))).await.expect("infallible");
        assert_eq!(opened.status(), 200);
        let session = opened.headers()["mcp-session-id"].to_str().expect("ASCII").to_owned();
        let session = Some(session.as_str());
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        let listed = send(&service, session_request(session, &list, member(who))).await;
        lists.push(names(&listed.body["result"], "tools", "name"));
        if who == "globex" {
            let call = |name: &str| json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}});
            let hidden = send(&service, session_request(session, &call("acme_report"), member(who))).await;
            let unknown = send(&service, session_request(session, &call("no_such_tool"), member(who))).await;
            assert_eq!(hidden.status, unknown.status);
            assert_eq!(hidden.body.to_string(), unknown.body.to_string().replace("no_such_tool", "acme_report"));
            assert!(hidden.body.get("error").is_some() || hidden.body["result"]["isError"] == true, "{}", hidden.body);
            let admin = send(&service, session_request(session, &call("acme_admin"), member(who))).await;
            assert_eq!(admin.status, unknown.status, "hidden, not forbidden");
        }
    }
    assert_eq!(lists, [vec!["acme_report", "ping"], vec!["globex_report", "ping"]]);
}

#[tokio::test]
async fn without_a_verified_caller_a_rule_sees_no_one() {
    // A server without authentication: a Principal in the request vouches
    // for nothing, so a rule that asks for one hides its entry from all.
    let open = builder().build().expect("a valid server").http_service(HttpConfig::default());
    let reply = call(&open, "tools/list", json!({}), member("acme")).await;
    assert_eq!(names(&reply.body["result"], "tools", "name"), ["ping"]);
}
