//! The catalog snapshot (what `--dump-catalog` writes), the snapshot test
//! helper, and the server-wide schema profile with its call-time undoing.

use std::sync::{Arc, Mutex};

use mcp_runtime::client::Client;
use mcp_runtime::protocol::ContentBlock;
use mcp_runtime::testing::assert_catalog_snapshot;
use mcp_runtime::{
    Args, BuildError, Server,
    entry::ToolEntry,
    server::{CatalogDump, SchemaProfile},
};
use serde_json::json;

#[mcp_runtime::derives(Deserialize, JsonSchema)]
struct Search {
    /// What to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
    /// Narrowing options.
    #[serde(default)]
    filter: Filter,
}

#[mcp_runtime::derives(Deserialize, JsonSchema)]
#[derive(Default)]
struct Filter {
    tag: Option<String>,
    #[serde(default)]
    archived: bool,
}

async fn search(Args(s): Args<Search>) -> String {
    format!("{}|{:?}|{:?}|{}", s.query, s.limit, s.filter.tag, s.filter.archived)
}

fn builder() -> mcp_runtime::ServerBuilder {
    Server::builder("catalog-test", "1.0.0")
        .tool(ToolEntry::new("search", search).description("Searches."))
        .tool(ToolEntry::new("ping", || async { "pong" }))
        .instructions("Be kind.")
}

#[test]
fn the_snapshot_is_what_the_lists_and_discover_answer() {
    let server = builder().build().expect("valid");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = Client::in_process(server.clone());
    // Both as the server answered them: the first page of tools, and discover.
    let (listed, discovered) = rt.block_on(async {
        let listed = client.request("tools/list", json!({})).await.expect("tools/list");
        (listed, client.request("server/discover", json!({})).await.expect("discover"))
    });
    let snapshot = server.catalog_snapshot();
    assert_eq!(snapshot["tools"], listed["tools"]);
    assert_eq!(snapshot["discover"]["capabilities"], discovered["capabilities"]);
    assert_eq!(snapshot["discover"]["instructions"], "Be kind.");
    assert_eq!(snapshot["prompts"], json!([]));
    // Stable text: sorted members, a final newline, the same twice over.
    let text = server.catalog_json();
    assert!(text.ends_with("}\n") && text == builder().build().expect("valid").catalog_json());
    let tools = text.find("\"tools\"").expect("tools");
    assert!(
        text.find("\"discover\"").expect("discover") < tools
            && tools < text.find("\"resources\"").unwrap_or(0).max(tools + 1)
    );
}

#[test]
fn the_builder_method_dumps_instead_of_serving() {
    let path = std::env::temp_dir().join(format!("mcp-catalog-dump-{}.json", std::process::id()));
    let server = builder().dump_catalog(CatalogDump::File(path.clone())).build().expect("valid");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    // Returns at once: nothing is bound, nothing read from stdin.
    rt.block_on(server.clone().serve_http("127.0.0.1:0")).expect("dumped");
    let written = std::fs::read_to_string(&path).expect("written");
    std::fs::remove_file(&path).ok();
    assert_eq!(written, server.catalog_json());
}

/// What a server served by other means (nested in axum) calls after
/// `build()`: it writes the dump asked for and says so, and without one
/// does nothing.
#[test]
fn a_server_served_otherwise_answers_the_dump_itself() {
    let path = std::env::temp_dir().join(format!("mcp-catalog-answer-{}.json", std::process::id()));
    let server = builder().dump_catalog(CatalogDump::File(path.clone())).build().expect("valid");
    assert!(server.answer_catalog_dump().expect("written"), "a dump was asked for");
    let written = std::fs::read_to_string(&path).expect("written");
    std::fs::remove_file(&path).ok();
    assert_eq!(written, server.catalog_json());
    let plain = builder().catalog_flag(false).build().expect("valid");
    assert!(!plain.answer_catalog_dump().expect("nothing to write"), "no dump was asked for");
}

#[test]
fn the_snapshot_helper_accepts_the_same_catalog_and_shows_changes() {
    let dir = std::env::temp_dir().join(format!("mcp-catalog-helper-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("catalog.json");
    let server = builder().build().expect("valid");
    std::fs::write(&path, server.catalog_json()).expect("write");
    assert_catalog_snapshot(&server, &path);

    let changed = builder().tool(ToolEntry::new("extra", || async { "x" })).build().expect("valid");
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| assert_catalog_snapshot(&changed, &path)))
        .expect_err("differs");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    assert!(message.contains("UPDATE_SNAPSHOTS=1"), "{message}");
    assert!(message.contains("- tool `extra`: added"), "{message}");
    assert!(message.contains("+      \"name\": \"extra\""), "{message}");
}

/// Where `f` panicked, as the panic hook is told (the place a failing
/// test's output points at), and the message.
fn panic_site(f: impl FnOnce()) -> (String, u32, String) {
    type Hook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync>;
    let here = std::thread::current().id();
    let seen = Arc::new(Mutex::new(None));
    let previous: Arc<Hook> = Arc::new(std::panic::take_hook());
    let (record, others) = (seen.clone(), previous.clone());
    // Other tests run on other threads meanwhile: their panics go on to the
    // hook that was there.
    std::panic::set_hook(Box::new(move |info| match info.location() {
        Some(at) if std::thread::current().id() == here => {
            *record.lock().unwrap() = Some((at.file().to_owned(), at.line()));
        }
        _ => others(info),
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(Box::new(move |info| previous(info)));
    let payload = outcome.expect_err("a panic");
    let message = payload.downcast_ref::<String>().cloned().unwrap_or_default();
    let (file, line) = seen.lock().unwrap().take().expect("the hook saw the panic");
    (file, line, message)
}

#[test]
fn the_snapshot_helper_fails_at_the_line_of_the_test() {
    let dir = std::env::temp_dir().join(format!("mcp-catalog-site-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("catalog.json");
    let server = builder().build().expect("valid");

    let (file, line, message) = panic_site(|| assert_catalog_snapshot(&server, &path));
    assert_eq!((file.as_str(), line), (file!(), line!() - 1), "a missing snapshot: {message}");
    assert!(message.contains("run with UPDATE_SNAPSHOTS=1 to create it"), "{message}");

    std::fs::write(&path, "{}\n").expect("write");
    let (file, line, message) = panic_site(|| assert_catalog_snapshot(&server, &path));
    assert_eq!((file.as_str(), line), (file!(), line!() - 1), "a different snapshot: {message}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_openai_profile_fits_inputs_and_handlers_see_what_they_saw() {
    let server = builder().schema_profile(SchemaProfile::OpenAi).build().expect("fits");
    let schema = &server.catalog_snapshot()["tools"][1]["inputSchema"];
    assert_eq!(schema["required"], json!(["query", "filter", "limit"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["properties"]["limit"]["type"], json!(["integer", "null"]));
    assert_eq!(schema["properties"]["filter"]["additionalProperties"], json!(false));
    assert_eq!(schema["properties"]["filter"]["required"], json!(["archived", "tag"]));
    let problems = mcp_catalog_check(&server);
    assert!(problems.is_empty(), "{problems:?}");

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = Client::in_process(server);
    let result = rt.block_on(
        client.call_tool("search", json!({"query": "q", "limit": null, "filter": {"tag": null, "archived": null}})),
    );
    // `archived` is a plain bool with a serde default: its `null` is dropped, so the default applies.
    let result = result.expect("called");
    let ContentBlock::Text(text) = &result.content[0] else { panic!("a text block: {result:?}") };
    assert_eq!(text.text, "q|None|None|false");
}

/// What `mcp-catalog check --profile openai` reports against the served tools.
fn mcp_catalog_check(server: &Server) -> Vec<String> {
    let reports = mcp_catalog::profile::check_snapshot(SchemaProfile::OpenAi, &server.catalog_snapshot());
    reports.iter().flat_map(|r| r.tool_violations.iter().chain(&r.input)).map(ToString::to_string).collect()
}

#[test]
fn a_tool_that_cannot_fit_fails_the_build_by_name() {
    #[mcp_runtime::derives(Deserialize, JsonSchema)]
    struct Scores {
        by_name: std::collections::HashMap<String, f64>,
    }
    let error = builder()
        .tool(ToolEntry::new("scores", |Args(s): Args<Scores>| async move { s.by_name.len().to_string() }))
        .tool(ToolEntry::new("dotted.name", || async { "" }))
        .schema_profile(SchemaProfile::OpenAi)
        .build()
        .expect_err("refused");
    let BuildError::SchemaProfile { profile, refused } = &error else { panic!("{error}") };
    assert_eq!(*profile, "openai");
    let names: Vec<&str> = refused.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(names, ["dotted.name", "scores"]);
    let text = error.to_string();
    assert!(
        text.contains("tool `scores`") && text.contains("/properties/by_name: an object with free-form keys"),
        "{text}"
    );
    assert!(text.contains("contains `.`") && text.contains("OpenAI"), "{text}");
}

#[test]
fn tools_added_while_serving_are_fitted_too() {
    let server = builder().schema_profile(SchemaProfile::OpenAi).build().expect("fits");
    server.add_tool(ToolEntry::new("again", search)).expect("fits");
    let again = server.tools().find(|t| t.definition().name == "again").expect("added");
    assert_eq!(again.definition().input_schema["additionalProperties"], json!(false));
    // Rebuilding the catalog does not fit the fitted schemas a second time.
    let first = server.catalog_snapshot();
    server.add_tool(ToolEntry::new("more", || async { "" })).expect("fits");
    let search_now =
        server.catalog_snapshot()["tools"].as_array().unwrap().iter().find(|t| t["name"] == "search").cloned();
    let search_before = first["tools"].as_array().unwrap().iter().find(|t| t["name"] == "search").cloned();
    assert_eq!(search_now, search_before);
}
