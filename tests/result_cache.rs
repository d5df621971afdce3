//! Invalidating `ResultCache`d results: a call of a tool that declares
//! `invalidates` makes the next call of the stale tool run again, for every
//! caller, whether the cache is the tool's own or the server's, in memory or
//! in Redis; a failed call invalidates nothing; and a declaration that could
//! never work stops the build.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::client::Client;
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::middleware::ResultCache;
use mcp_runtime::protocol::{CallToolResult, ContentBlock, ToolAnnotations};
use mcp_runtime::redis::RedisResultStore;
use mcp_runtime::{Args, BuildError, Server, ServerBuilder};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    title: String,
}

/// The articles, and how many times `search_articles` ran.
#[derive(Default)]
struct Shelf {
    articles: std::sync::Mutex<Vec<String>>,
    searches: AtomicUsize,
}

fn search(shelf: Arc<Shelf>, cache: Option<ResultCache>) -> ToolEntry {
    let tool = ToolEntry::new("search_articles", move || {
        let shelf = Arc::clone(&shelf);
        async move {
            shelf.searches.fetch_add(1, Ordering::SeqCst);
            shelf.articles.lock().unwrap().join(", ")
        }
    })
    .annotations(ToolAnnotations::default().with_read_only_hint(true).with_idempotent_hint(true));
    match cache {
        Some(cache) => tool.layer(cache),
        None => tool,
    }
}

fn add(shelf: Arc<Shelf>) -> ToolEntry {
    ToolEntry::new("add_article", move |Args(a): Args<Add>| {
        let shelf = Arc::clone(&shelf);
        async move {
            if a.title.is_empty() {
                return CallToolResult::error("an article needs a title");
            }
            shelf.articles.lock().unwrap().push(a.title);
            CallToolResult::text("added")
        }
    })
    .invalidates("search_articles")
}

async fn listed(client: &Client) -> String {
    let result = client.call_tool("search_articles", json!({})).await.expect("tools/call");
    match result.content.first() {
        Some(ContentBlock::Text(text)) => text.text.clone(),
        other => panic!("text, not {other:?}"),
    }
}

/// Searches twice (the second from the cache), adds, searches again.
async fn check(client: &Client, shelf: &Shelf) {
    assert_eq!(listed(client).await, "");
    assert_eq!(listed(client).await, "");
    assert_eq!(shelf.searches.load(Ordering::SeqCst), 1, "the second search came from the cache");
    // A call that fails changes nothing, and invalidates nothing.
    client.call_tool("add_article", json!({"title": ""})).await.expect("tools/call");
    assert_eq!(listed(client).await, "");
    assert_eq!(shelf.searches.load(Ordering::SeqCst), 1, "a failed call invalidated the results");
    client.call_tool("add_article", json!({"title": "Caching"})).await.expect("tools/call");
    assert_eq!(listed(client).await, "Caching", "the search answered from before the article was added");
    assert_eq!(shelf.searches.load(Ordering::SeqCst), 2);
    assert_eq!(listed(client).await, "Caching");
    assert_eq!(shelf.searches.load(Ordering::SeqCst), 2, "cached again after the invalidation");
}

fn articles(shelf: &Arc<Shelf>) -> ServerBuilder {
    Server::builder("articles", "1.0.0").tool(add(Arc::clone(shelf)))
}

#[mcp_runtime::test]
async fn a_call_that_changes_things_invalidates_the_tools_it_declares_in_the_tools_own_cache() {
    let shelf = Arc::new(Shelf::default());
    let cache = ResultCache::new(Duration::from_secs(600));
    let server = articles(&shelf).tool(search(Arc::clone(&shelf), Some(cache))).build().expect("a server");
    check(&Client::in_process(server), &shelf).await;
}

#[mcp_runtime::test]
async fn a_server_wide_cache_is_invalidated_too() {
    let shelf = Arc::new(Shelf::default());
    let server = articles(&shelf)
        .layer(ResultCache::new(Duration::from_secs(600)))
        .tool(search(Arc::clone(&shelf), None))
        .build()
        .expect("a server");
    check(&Client::in_process(server), &shelf).await;
}

#[mcp_runtime::test]
async fn invalidate_by_hand_reaches_the_clones_of_a_cache() {
    let shelf = Arc::new(Shelf::default());
    let cache = ResultCache::new(Duration::from_secs(600));
    let handle = cache.clone();
    let server = Server::builder("articles", "1.0.0").tool(search(Arc::clone(&shelf), Some(cache))).build().unwrap();
    let client = Client::in_process(server);
    listed(&client).await;
    listed(&client).await;
    assert_eq!(shelf.searches.load(Ordering::SeqCst), 1);
    handle.invalidate("search_articles").await;
    listed(&client).await;
    assert_eq!(shelf.searches.load(Ordering::SeqCst), 2);
}

#[mcp_runtime::test]
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
async fn an_invalidation_on_one_replica_holds_on_every_replica_sharing_redis() {
    let redis = mcp_tests::redis::start().await;
    let shelf = Arc::new(Shelf::default());
    let replica = || async {
        let store = RedisResultStore::connect(&redis.url, "invalidation-test").await.expect("Redis");
        let cache = ResultCache::new(Duration::from_secs(600)).shared(store);
        let server = articles(&shelf).tool(search(Arc::clone(&shelf), Some(cache))).build().expect("a server");
        Client::in_process(server)
    };
    let (a, b) = (replica().await, replica().await);
    assert_eq!(listed(&a).await, "");
    assert_eq!(listed(&b).await, "");
    assert_eq!(shelf.searches.load(Ordering::SeqCst), 1, "b answered from what a kept");
    a.call_tool("add_article", json!({"title": "Replicas"})).await.expect("tools/call");
    assert_eq!(listed(&b).await, "Replicas", "b answered from before a's invalidation");
    assert_eq!(listed(&a).await, "Replicas");
    assert_eq!(shelf.searches.load(Ordering::SeqCst), 2, "a answered from what b kept after the invalidation");
}

#[test]
fn an_invalidation_of_no_tool_stops_the_build() {
    let shelf = Arc::new(Shelf::default());
    let error = articles(&shelf).build().expect_err("search_articles is not served");
    assert!(matches!(&error, BuildError::Cache { tool, .. } if tool == "add_article"), "{error}");
    assert!(error.to_string().contains("it invalidates `search_articles`, which is no tool of this server"), "{error}");
}

/// The catalogue, as `extend` leaves it.
#[mcp_runtime::tool(annotations(read_only, idempotent), layer = ResultCache::new(Duration::from_secs(60)))]
async fn catalogue() -> String {
    "the catalogue".to_owned()
}

/// Adds to the catalogue.
#[mcp_runtime::tool(invalidates = ["catalogue"])]
async fn extend() -> String {
    "extended".to_owned()
}

#[mcp_runtime::test]
async fn the_attribute_declares_it() {
    let server = Server::builder("attr", "1.0.0").tools(mcp_runtime::tools![catalogue, extend]).build().unwrap();
    let client = Client::in_process(server);
    client.call_tool("catalogue", json!({})).await.expect("tools/call");
    client.call_tool("extend", json!({})).await.expect("tools/call");
    let error = Server::builder("attr", "1.0.0").tools(mcp_runtime::tools![extend]).build().expect_err("no catalogue");
    assert!(error.to_string().contains("it invalidates `catalogue`"), "{error}");
}
