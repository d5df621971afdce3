//! The tool-search data set (`catalog.json`, `queries.json` beside this
//! file) as a server and its queries, and the measures taken on them:
//! shared by the benchmark (`bench/tool-search`) and the test that guards
//! the ranking (`tests/tool_search_recall.rs`).

use std::path::Path;

use mcp_runtime::dispatch::RequestOptions;
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::search::ToolSearch;
use mcp_runtime::{Server, ServerBuilder};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The number of results a query is judged on.
pub(crate) const K: usize = 5;

#[derive(Deserialize)]
struct Catalog {
    servers: Vec<Published>,
}

/// One published server's tools.
#[derive(Deserialize)]
struct Published {
    namespace: String,
    tools: Vec<Definition>,
}

#[derive(Deserialize)]
struct Definition {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(rename = "inputSchema", default)]
    input_schema: Map<String, Value>,
}

/// A query, and the tools that answer it.
#[derive(Deserialize)]
pub(crate) struct Query {
    pub(crate) query: String,
    pub(crate) relevant: Vec<String>,
}

#[derive(Deserialize)]
struct Queries {
    queries: Vec<Query>,
}

/// A gateway's builder: every server of `catalog.json` in `dir` mounted
/// under its namespace, so that each tool is `{namespace}_{name}`; the
/// tools answer nothing of interest.
pub(crate) fn builder(dir: &Path) -> ServerBuilder {
    let text = std::fs::read_to_string(dir.join("catalog.json")).expect("catalog.json");
    let catalog: Catalog = serde_json::from_str(&text).expect("catalog.json reads");
    let mut builder = Server::builder("catalog", "1.0.0").page_size(100_000);
    for published in catalog.servers {
        let mut server = Server::builder(published.namespace.clone(), "1.0.0");
        for tool in published.tools {
            let mut entry = ToolEntry::new(tool.name, || async { "done" }).input_schema(tool.input_schema);
            if let Some(title) = tool.title {
                entry = entry.title(title);
            }
            if let Some(description) = tool.description {
                entry = entry.description(description);
            }
            server = server.tool(entry);
        }
        builder = builder.mount(published.namespace, server.build().expect("a published server builds"));
    }
    builder
}

/// The server of [`builder`] with tool search on, as `search`.
pub(crate) fn searching(dir: &Path, search: ToolSearch) -> Server {
    builder(dir).tool_search(search.max_results(K.max(20))).build().expect("the catalog builds")
}

/// The queries of `queries.json` in `dir`.
pub(crate) fn queries(dir: &Path) -> Vec<Query> {
    let text = std::fs::read_to_string(dir.join("queries.json")).expect("queries.json");
    serde_json::from_str::<Queries>(&text).expect("queries.json reads").queries
}

/// One modern request's bytes, with the `_meta` the revision asks for.
pub(crate) fn request(method: &str, mut params: Value) -> Vec<u8> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string().into_bytes()
}

/// The result of `request` sent to `server`.
pub(crate) async fn answer(server: &Server, request: &[u8]) -> Value {
    let response = server.handle_bytes(request, RequestOptions::default()).await.expect("a response");
    let response: Value = serde_json::from_str(&response.to_json()).expect("JSON");
    response.get("result").cloned().unwrap_or_else(|| panic!("no result: {response}"))
}

/// The names `search_tools` answers `query` with, best first.
pub(crate) async fn search(server: &Server, query: &str, limit: usize) -> Vec<String> {
    let call = json!({"name": "search_tools", "arguments": {"query": query, "limit": limit}});
    let result = answer(server, &request("tools/call", call)).await;
    let tools = result["structuredContent"]["tools"].as_array().unwrap_or_else(|| panic!("no tools: {result}"));
    tools.iter().map(|t| t["name"].as_str().expect("a name").to_owned()).collect()
}

/// How well `found` (best first) answers `query`: the share of its
/// relevant tools among the first [`K`], and whether any is.
pub(crate) fn judge(query: &Query, found: &[String]) -> (f64, bool) {
    let top = &found[..found.len().min(K)];
    let hits = query.relevant.iter().filter(|r| top.contains(r)).count();
    (hits as f64 / query.relevant.len() as f64, hits > 0)
}
