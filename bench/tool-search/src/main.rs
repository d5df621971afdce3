//! Tool search on the catalog of real tools beside this crate
//! (`catalog.json`, `queries.json`; see BENCHMARKS.md).
//!
//! `bench-tool-search report` prints the `tools/list` bytes without and
//! with tool search, and recall@5 and hit@5 of the BM25 ranking over the
//! queries. `bench-tool-search queries ROUNDS` answers every query
//! ROUNDS times after one warm-up search, for `bench/tool-search.sh`,
//! which counts the instructions under callgrind. `bench-tool-search
//! search QUERY` prints the ten best tools for QUERY.

use std::path::Path;

use mcp_runtime::search::ToolSearch;
use serde_json::json;

#[path = "../load.rs"]
mod load;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    match args.first().map(String::as_str) {
        None | Some("report") => runtime.block_on(report(dir)),
        Some("queries") => {
            let rounds = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1);
            let mode = args.get(2).map_or("bm25", String::as_str);
            queries(&runtime, dir, rounds, mode);
        }
        Some("search") if args.len() == 2 => runtime.block_on(async {
            let server = load::searching(dir, ToolSearch::bm25());
            println!("{:?}", load::search(&server, &args[1], 10).await);
        }),
        Some(other) => {
            eprintln!("usage: bench-tool-search [report | queries ROUNDS [bm25|regex] | search QUERY], not {other}");
            std::process::exit(2);
        }
    }
}

async fn report(dir: &Path) {
    let plain = load::builder(dir).build().expect("the catalog builds");
    let searching = load::searching(dir, ToolSearch::bm25());
    let list = load::request("tools/list", json!({}));
    let bytes = |result: serde_json::Value| result["tools"].to_string().len();
    let before = bytes(load::answer(&plain, &list).await);
    let after = bytes(load::answer(&searching, &list).await);
    let tools = plain.tool_names().len();
    println!("tools: {tools}");
    println!("tools/list bytes: {before} without tool search, {after} with it");
    // Recall is the BM25 mode's: the queries are what a model says, not
    // patterns.
    let queries = load::queries(dir);
    let (mut recall, mut hits) = (0.0, 0);
    for query in &queries {
        let found = load::search(&searching, &query.query, load::K).await;
        let (share, hit) = load::judge(query, &found);
        recall += share;
        hits += usize::from(hit);
    }
    let n = queries.len() as f64;
    println!("bm25: recall@5 {:.3}, hit@5 {:.3} over {} queries", recall / n, hits as f64 / n, queries.len());
}

fn queries(runtime: &tokio::runtime::Runtime, dir: &Path, rounds: usize, mode: &str) {
    let search = if mode == "regex" { ToolSearch::regex() } else { ToolSearch::bm25() };
    let server = load::searching(dir, search);
    let requests: Vec<Vec<u8>> = load::queries(dir)
        .iter()
        .map(|q| {
            load::request(
                "tools/call",
                json!({"name": "search_tools", "arguments": {"query": q.query, "limit": load::K}}),
            )
        })
        .collect();
    // The index is built at the first search, outside the rounds counted.
    let started = std::time::Instant::now();
    respond(runtime, &server, &requests[0]);
    eprintln!("the index built and the first search answered in {:?}", started.elapsed());
    let mut bytes = 0;
    for _ in 0..rounds {
        for request in &requests {
            bytes += respond(runtime, &server, request).len();
        }
    }
    println!("{} searches, {bytes} bytes answered", rounds * requests.len());
}

/// The server's answer to `request`, as the bytes a transport writes: what
/// `bench/tool-search.sh` counts (callgrind's `--toggle-collect`).
#[inline(never)]
fn respond(runtime: &tokio::runtime::Runtime, server: &mcp_runtime::Server, request: &[u8]) -> Vec<u8> {
    let answer = server.handle_bytes(request, mcp_runtime::dispatch::RequestOptions::default());
    runtime.block_on(answer).map(|response| response.into_bytes()).unwrap_or_default()
}
