//! Scopes declared on tools, prompts and resources, enforced on an
//! authenticated server for requests over HTTP: 403 with the challenge,
//! lists and discover filtered per caller (`cacheScope: "private"`, page
//! after page), both eras; not over stdio, and not on a server without
//! authentication, where a `Principal` in the request is ignored.
//!
//! The caller is what an authentication layer in front of the service
//! would find: a `Principal` in the HTTP request's extensions.

use http::StatusCode;
use http_body_util::BodyExt as _;
use mcp_runtime::auth::Principal;
use mcp_runtime::protocol::{CacheHints, CacheScope};
use mcp_runtime::transport::http::{HttpConfig, McpService};
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{
    Args, BuildError, Server, ServerBuilder,
    entry::{PromptEntry, ResourceEntry, ToolEntry},
};
use mcp_tests::exchange::request;
use mcp_tests::http_wire::{session_request, stateless_request as http_request};
use mcp_tests::session_schema::assert_valid_session_envelope;
use mcp_tests::wire_schema::assert_valid_message;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

const READ: &str = "notes:read";
const WRITE: &str = "notes:write";

#[derive(serde::Deserialize)]
struct NoteId {
    id: u32,
}

/// Entries with and without scopes, of every kind; public cache hints, so
/// that the private ones of an authenticated server's lists show.
fn builder() -> ServerBuilder {
    Server::builder("scoped", "1.0.0")
        .tool(ToolEntry::new("read_notes", || async { "the notes" }).scopes([READ]))
        .tool(ToolEntry::new("write_note", || async { "written" }).scopes([WRITE, READ]))
        .tool(ToolEntry::new("ping", || async { "pong" }))
        .prompt(PromptEntry::new("summary", || async { "Summarize the notes.".to_owned() }).scopes([READ]))
        .prompt(PromptEntry::new("greeting", || async { "Say hello.".to_owned() }))
        .resource(ResourceEntry::fixed("notes://all", "all_notes", || async { "all" }).scopes([READ]))
        .resource(ResourceEntry::fixed("docs://readme", "readme", || async { "# Hello" }))
        .resource(
            ResourceEntry::template(
                "notes://{id}",
                "note",
                |Args(n): Args<NoteId>| async move { format!("note {}", n.id) },
            )
            .scopes([READ]),
        )
        .resource(ResourceEntry::template("docs://{page}", "doc", || async { "a page" }))
        .cache_hints(CacheHints::new(60_000, CacheScope::Public))
}

fn protected() -> McpService {
    builder().authenticated_by_layer().build().expect("a valid server").http_service(HttpConfig::default())
}

fn caller(scopes: &[&str]) -> Option<Principal> {
    Some(Principal::new("ada").with_scopes(scopes.iter().copied()))
}

struct Reply {
    status: StatusCode,
    challenge: Option<String>,
    body: Value,
}

async fn send(service: &McpService, request: http::Request<String>) -> Reply {
    let response = service.handle(request).await.unwrap_or_else(|never| match never {});
    let status = response.status();
    let challenge = response.headers().get("www-authenticate").map(|v| v.to_str().expect("ASCII").to_owned());
    let bytes = response.into_body().collect().await.expect("a body").to_bytes();
    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8");
    // A JSON body, or the last event of a stream.
    let json = match text.lines().filter_map(|l| l.strip_prefix("data: ")).rfind(|d| !d.is_empty()) {
        Some(data) => data.to_owned(),
        None => text,
    };
    Reply { status, challenge, body: serde_json::from_str(&json).expect("JSON") }
}

async fn call(service: &McpService, method: &str, params: Value, principal: Option<Principal>) -> Reply {
    let message = request(1, method, params);
    let reply = send(service, http_request(&message, principal)).await;
    assert_valid_message(method, &reply.body);
    reply
}

fn names(result: &Value, list: &str, key: &str) -> Vec<String> {
    let items = result[list].as_array().unwrap_or_else(|| panic!("no `{list}` in {result}"));
    items.iter().map(|item| item[key].as_str().expect("a string").to_owned()).collect()
}

#[tokio::test]
async fn a_caller_lacking_a_scope_is_refused_with_403_and_the_scopes_needed() {
    let service = protected();
    let cases = [
        ("tools/call", json!({"name": "write_note"}), r#"scope="notes:write notes:read""#, "tool `write_note`"),
        ("prompts/get", json!({"name": "summary"}), r#"scope="notes:read""#, "prompt `summary`"),
        ("resources/read", json!({"uri": "notes://all"}), r#"scope="notes:read""#, "resource `notes://all`"),
        ("resources/read", json!({"uri": "notes://7"}), r#"scope="notes:read""#, "resource `notes://7`"),
    ];
    for (method, params, scope, named) in cases {
        // A reader may not write; a caller without the token's scopes (or
        // without a Principal at all) may not read either.
        for principal in [caller(&[READ]).filter(|_| method == "tools/call"), caller(&[]), None] {
            let reply = call(&service, method, params.clone(), principal.clone()).await;
            assert_eq!(reply.status, StatusCode::FORBIDDEN, "{method} {params} by {principal:?}");
            let challenge = reply.challenge.expect("a WWW-Authenticate challenge");
            assert_eq!(challenge, format!(r#"Bearer error="insufficient_scope", {scope}"#));
            let error = &reply.body["error"];
            assert_eq!(error["code"], -32600, "{error}");
            let needed = scope.trim_start_matches("scope=\"").trim_end_matches('"');
            assert_eq!(error["data"]["requiredScopes"], json!(needed.split(' ').collect::<Vec<_>>()));
            assert!(error["message"].as_str().is_some_and(|m| m.contains(named)), "{error}");
            assert_eq!(reply.body["id"], 1);
        }
    }
}

#[tokio::test]
async fn a_caller_with_the_scopes_is_served_and_unscoped_entries_serve_anyone() {
    let service = protected();
    let writer = caller(&[READ, WRITE]);
    let cases = [
        ("tools/call", json!({"name": "write_note"}), writer.clone()),
        ("tools/call", json!({"name": "read_notes"}), caller(&[READ])),
        ("prompts/get", json!({"name": "summary"}), caller(&[READ])),
        ("resources/read", json!({"uri": "notes://7"}), caller(&[READ])),
        ("tools/call", json!({"name": "ping"}), None),
        ("prompts/get", json!({"name": "greeting"}), caller(&[])),
        ("resources/read", json!({"uri": "docs://readme"}), None),
        ("resources/read", json!({"uri": "docs://intro"}), None),
    ];
    for (method, params, principal) in cases {
        let reply = call(&service, method, params.clone(), principal).await;
        assert_eq!(reply.status, StatusCode::OK, "{method} {params}: {}", reply.body);
        assert!(reply.challenge.is_none());
        assert!(reply.body.get("result").is_some(), "{method} {params}: {}", reply.body);
    }
    let reply = call(&service, "resources/read", json!({"uri": "notes://7"}), caller(&[READ])).await;
    assert_eq!(reply.body["result"]["contents"][0]["text"], "note 7");
}

#[tokio::test]
async fn every_list_shows_only_what_the_grants_allow_and_is_private() {
    let service = protected();
    let lists = [
        (
            "tools/list",
            "tools",
            "name",
            vec!["ping"],
            vec!["ping", "read_notes"],
            vec!["ping", "read_notes", "write_note"],
        ),
        ("prompts/list", "prompts", "name", vec!["greeting"], vec!["greeting", "summary"], vec!["greeting", "summary"]),
        (
            "resources/list",
            "resources",
            "uri",
            vec!["docs://readme"],
            vec!["notes://all", "docs://readme"],
            vec!["notes://all", "docs://readme"],
        ),
        (
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
            vec!["docs://{page}"],
            vec!["docs://{page}", "notes://{id}"],
            vec!["docs://{page}", "notes://{id}"],
        ),
    ];
    for (method, list, key, nobody, reader, writer) in lists {
        for (principal, expected) in [(None, nobody), (caller(&[READ]), reader), (caller(&[READ, WRITE]), writer)] {
            let reply = call(&service, method, json!({}), principal.clone()).await;
            assert_eq!(reply.status, StatusCode::OK);
            let result = &reply.body["result"];
            assert_eq!(names(result, list, key), expected, "{method} by {principal:?}");
            assert_eq!(result["cacheScope"], "private", "{method}: the list depends on the caller");
        }
    }
    // Without authentication nothing is filtered, and the hints are the server's.
    let open = builder().build().expect("a valid server").http_service(HttpConfig::default());
    let reply = call(&open, "tools/list", json!({}), None).await;
    assert_eq!(names(&reply.body["result"], "tools", "name"), ["ping", "read_notes", "write_note"]);
    assert_eq!(reply.body["result"]["cacheScope"], "public");
}

#[tokio::test]
async fn discover_advertises_only_what_the_caller_can_see() {
    let service = Server::builder("reports", "1.0.0")
        .tool(ToolEntry::new("ping", || async { "pong" }))
        .prompt(PromptEntry::new("quarterly", || async { "Report.".to_owned() }).scopes(["reports"]))
        .discover_cache_hints(CacheHints::new(1_000, CacheScope::Public))
        .authenticated_by_layer()
        .build()
        .expect("a valid server")
        .http_service(HttpConfig::default());
    let reply = call(&service, "server/discover", json!({}), caller(&[])).await;
    let result = &reply.body["result"];
    assert!(result["capabilities"].get("tools").is_some());
    assert!(result["capabilities"].get("prompts").is_none(), "{result}");
    assert_eq!(result["cacheScope"], "private");
    // A capability the caller is not shown does not exist for it.
    let hidden = call(&service, "prompts/list", json!({}), caller(&[])).await;
    assert_eq!((hidden.status, &hidden.body["error"]["code"]), (StatusCode::NOT_FOUND, &json!(-32601)));

    let reply = call(&service, "server/discover", json!({}), caller(&["reports"])).await;
    assert!(reply.body["result"]["capabilities"].get("prompts").is_some());
    assert_eq!(reply.body["result"]["cacheScope"], "private");
    let shown = call(&service, "prompts/list", json!({}), caller(&["reports"])).await;
    assert_eq!(names(&shown.body["result"], "prompts", "name"), ["quarterly"]);
}

#[tokio::test]
async fn pages_of_a_filtered_list_neither_skip_nor_repeat_and_are_all_private() {
    // t00..t19; every third one needs a scope the caller lacks.
    let mut builder =
        Server::builder("many", "1.0.0").page_size(4).list_cache_hints(CacheHints::new(5, CacheScope::Public));
    for i in 0..20 {
        let tool = ToolEntry::new(format!("t{i:02}"), || async { "ok" });
        builder = builder.tool(if i % 3 == 0 { tool.scopes(["admin"]) } else { tool });
    }
    let service = builder.authenticated_by_layer().build().expect("a valid server").http_service(HttpConfig::default());
    let expected: Vec<String> = (0..20).filter(|i| i % 3 != 0).map(|i| format!("t{i:02}")).collect();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let reply = call(&service, "tools/list", params, caller(&[READ])).await;
        let result = &reply.body["result"];
        assert_eq!(result["cacheScope"], "private", "page {pages}");
        let page = names(result, "tools", "name");
        assert!(!page.is_empty() && page.len() <= 4, "page {pages}: {page:?}");
        seen.extend(page);
        pages += 1;
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, expected);
    assert_eq!(pages, expected.len().div_ceil(4), "full pages but the last, and no empty last page");
    // An administrator sees all twenty.
    let reply = call(&service, "tools/list", json!({}), caller(&["admin"])).await;
    assert_eq!(names(&reply.body["result"], "tools", "name")[..4], ["t00", "t01", "t02", "t03"]);
}

#[tokio::test]
async fn a_2025_session_is_held_to_the_same_scopes() {
    let service = builder()
        .authenticated_by_layer()
        .build()
        .expect("a valid server")
        .http_service(HttpConfig::default().buffered_responses(true));
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}});
    let opened = service.handle(session_request(None, &initialize, caller(&[READ]))).await.expect("infallible");
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"].to_str().expect("ASCII").to_owned();
    let session = Some(session.as_str());

    let write =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "write_note", "arguments": {}}});
    let refused = send(&service, session_request(session, &write, caller(&[READ]))).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(
        refused.challenge.as_deref(),
        Some(r#"Bearer error="insufficient_scope", scope="notes:write notes:read""#)
    );
    assert_valid_session_envelope(&refused.body);
    assert_eq!(refused.body["error"]["data"]["requiredScopes"], json!([WRITE, READ]));

    let served = send(&service, session_request(session, &write, caller(&[READ, WRITE]))).await;
    assert_eq!(served.status, StatusCode::OK);
    assert_eq!(served.body["result"]["content"][0]["text"], "written");

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let listed = send(&service, session_request(session, &list, caller(&[READ]))).await;
    assert_valid_session_envelope(&listed.body);
    assert_eq!(names(&listed.body["result"], "tools", "name"), ["ping", "read_notes"]);
    let read = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "notes://3"}});
    let ungranted = send(&service, session_request(session, &read, caller(&[]))).await;
    assert_eq!(ungranted.status, StatusCode::FORBIDDEN);
    // A request without a caller is not the session's owner: to it the
    // session does not exist.
    let anonymous = send(&service, session_request(session, &read, None)).await;
    assert_eq!(anonymous.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn stdio_is_not_authenticated_and_enforces_nothing() {
    let server = builder().authenticated_by_layer().build().expect("a valid server");
    let (client, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn(server.serve_io(server_read, server_write, StdioConfig::default()));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    for (id, method, params) in [
        (1, "tools/call", json!({"name": "write_note", "arguments": {}})),
        (2, "tools/list", json!({})),
        (3, "resources/read", json!({"uri": "notes://all"})),
    ] {
        let mut line = request(id, method, params).to_string();
        line.push('\n');
        client_write.write_all(line.as_bytes()).await.expect("the server reads");
        let answer: Value =
            serde_json::from_str(&lines.next_line().await.expect("a line").expect("an answer")).expect("JSON");
        assert_valid_message(method, &answer);
        assert!(answer.get("result").is_some(), "{method} over stdio: {answer}");
        if method == "tools/list" {
            assert_eq!(names(&answer["result"], "tools", "name"), ["ping", "read_notes", "write_note"]);
        }
    }
    // A half of a split duplex ends the stream only when shut down.
    client_write.shutdown().await.expect("the input closes");
    let ended = tokio::time::timeout(std::time::Duration::from_secs(30), serving).await;
    ended.expect("the server ends with its input").expect("the server task ends").expect("the server ends cleanly");
}

#[tokio::test]
async fn a_principal_on_a_server_without_authentication_is_ignored() {
    let server = builder()
        .tool(ToolEntry::new("whoami", |caller: Option<Principal>| async move {
            caller.and_then(|c| c.subject().map(str::to_owned)).unwrap_or_else(|| "nobody".to_owned())
        }))
        .build()
        .expect("a valid server");
    assert!(!server.is_authenticated());
    let service = server.http_service(HttpConfig::default());
    // No scope is granted, and yet nothing is refused: nothing checks.
    let reply = call(&service, "tools/call", json!({"name": "write_note"}), caller(&[])).await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = call(&service, "tools/call", json!({"name": "whoami"}), caller(&[])).await;
    assert_eq!(reply.body["result"]["content"][0]["text"], "nobody", "an unverified Principal is not trusted");
}

#[tokio::test]
async fn the_handler_reads_the_verified_caller() {
    let mut claims = serde_json::Map::new();
    claims.insert("email".into(), json!("ada@example.com"));
    let service = Server::builder("who", "1.0.0")
        .tool(
            ToolEntry::new("whoami", |caller: Principal| async move {
                let email = caller.claim("email").and_then(Value::as_str).unwrap_or("?").to_owned();
                format!("{} <{email}> via {}", caller.subject().unwrap_or("?"), caller.client_id().unwrap_or("?"))
            })
            .scopes(["profile"]),
        )
        .authenticated_by_layer()
        .build()
        .expect("a valid server")
        .http_service(HttpConfig::default());
    let principal = Principal::new("ada").with_client_id("notes-app").with_scopes(["profile"]).with_claims(claims);
    let reply = call(&service, "tools/call", json!({"name": "whoami"}), Some(principal)).await;
    assert_eq!(reply.body["result"]["content"][0]["text"], "ada <ada@example.com> via notes-app");
}

#[test]
fn a_handler_taking_principal_needs_an_authenticated_server() {
    let whoami =
        || ToolEntry::new("whoami", |caller: Principal| async move { caller.subject().unwrap_or("").to_owned() });
    let error = Server::builder("t", "1").tool(whoami()).build().expect_err("no authentication");
    assert!(matches!(&error, BuildError::Unauthenticated { kind: "tool", name, .. } if name == "whoami"), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("tool `whoami`") && message.contains(file!()), "{message}");
    assert!(Server::builder("t", "1").tool(whoami()).authenticated_by_layer().build().is_ok());
    // Optional, it fits any server.
    let optional = ToolEntry::new("maybe", |caller: Option<Principal>| async move { caller.is_some().to_string() });
    assert!(Server::builder("t", "1").tool(optional).build().is_ok());
    // Nor can one be added to a running server without authentication.
    let server = Server::builder("t", "1").build().expect("a valid server");
    assert!(matches!(server.add_tool(whoami()), Err(BuildError::Unauthenticated { .. })));
}

#[test]
fn scopes_that_break_rfc_6749_are_build_errors_naming_the_entry() {
    let tool = |scopes: &[&str]| ToolEntry::new("edit", || async { "ok" }).scopes(scopes.iter().copied());
    for (scopes, reason) in [
        (&["notes write"][..], "not ` `"),
        (&["say\"hi\""][..], "not `\\\"`"),
        (&["a\\b"][..], "not `\\\\`"),
        (&[""][..], "not empty"),
        (&["é"][..], "not `\\u{e9}`"),
        (&["a", "a"][..], "named twice"),
        (&[][..], "at least one"),
    ] {
        let error = Server::builder("t", "1").tool(tool(scopes)).build().expect_err("invalid scopes");
        assert!(matches!(&error, BuildError::Scope { kind: "tool", name, .. } if name == "edit"), "{error:?}");
        assert!(error.to_string().contains(reason), "{scopes:?}: {error}");
    }
    let prompt = PromptEntry::new("p", || async { String::new() }).scopes(["bad scope"]);
    let error = Server::builder("t", "1").prompt(prompt).build().expect_err("invalid scope");
    assert!(matches!(error, BuildError::Scope { kind: "prompt", .. }), "{error:?}");
    let template = ResourceEntry::template("notes://{id}", "note", || async { "" }).scopes(["x\"y"]);
    let error = Server::builder("t", "1").resource(template).build().expect_err("invalid scope");
    assert!(
        matches!(&error, BuildError::Scope { kind: "resource template", name, .. } if name == "notes://{id}"),
        "{error:?}"
    );
    let server = Server::builder("t", "1").build().expect("a valid server");
    assert!(matches!(server.add_tool(tool(&["a b"])), Err(BuildError::Scope { .. })));
}

#[test]
fn the_server_lists_every_scope_declared() {
    let server = builder().build().expect("a valid server");
    assert_eq!(server.declared_scopes().into_iter().collect::<Vec<_>>(), [READ, WRITE]);
    server.add_tool(ToolEntry::new("admin", || async { "ok" }).scopes(["admin"])).expect("a valid tool");
    assert_eq!(server.declared_scopes().into_iter().collect::<Vec<_>>(), ["admin", READ, WRITE]);
    let tool = server.tools().find(|t| t.definition().name == "write_note").expect("the tool");
    assert_eq!(tool.declared_scopes(), [WRITE, READ]);
    assert!(Server::builder("t", "1").build().expect("a valid server").declared_scopes().is_empty());
}

/// Visibility is what a host shows the model, never an authorization: a
/// tool only for the view (which a host forwards as an ordinary
/// `tools/call`) is held to its scopes like any other.
#[tokio::test]
async fn a_tool_for_the_view_only_is_held_to_its_scopes() {
    use mcp_runtime::apps::{View, Visibility};
    let service = Server::builder("board", "1.0.0")
        .resource(
            ResourceEntry::fixed("ui://board.html", "board", || async { "<!doctype html><html></html>" })
                .view(View::new()),
        )
        .tool(
            ToolEntry::new("remove_from_board", || async { "removed" })
                .view("ui://board.html")
                .visibility(Visibility::App)
                .scopes([WRITE]),
        )
        .authenticated_by_layer()
        .build()
        .expect("a valid server")
        .http_service(HttpConfig::default());
    for principal in [caller(&[READ]), None] {
        let reply = call(&service, "tools/call", json!({"name": "remove_from_board"}), principal.clone()).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{principal:?}");
    }
    let reply = call(&service, "tools/call", json!({"name": "remove_from_board"}), caller(&[WRITE])).await;
    assert_eq!((reply.status, &reply.body["result"]["content"][0]["text"]), (StatusCode::OK, &json!("removed")));
}
