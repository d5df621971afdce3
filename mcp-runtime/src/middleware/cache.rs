//! [`ResultCache`]: results of read-only, idempotent tools answered again
//! from memory for a while.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::{BoxFuture, Layer, McpRequest, Next, Response};
use crate::protocol::{Method, Tool};

/// Where a [`ResultCache`] shared by replicas keeps its results: an
/// existing engine (Redis with
/// [`RedisResultStore`](crate::redis::RedisResultStore), or one of
/// yours), never memory of one process.
///
/// A store that fails is a miss, not an error: the call runs, and the
/// failure is logged.
pub trait ResultStore: Send + Sync + 'static {
    /// The result kept under `key`, if any (JSON text).
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, String>>;
    /// Keeps `result` (JSON text) under `key` for `ttl`.
    fn put<'a>(&'a self, key: &'a str, result: String, ttl: Duration) -> BoxFuture<'a, Result<(), String>>;
}

/// How many results a cache keeps unless told otherwise.
const DEFAULT_ENTRIES: u64 = 10_000;

/// Answers a `tools/call` from the result of an earlier call with the same
/// arguments, for a while (`moka`'s cache: a time to live, and a bound on
/// the number of results, the least used going first). The handler does
/// not run for a call answered from the cache.
///
/// Only tools annotated read-only and idempotent
/// (`annotations(read_only, idempotent)`) are cached: for any other the
/// layer passes the call on, since answering a call that changes something
/// from a cache would skip the change. Only complete results are kept
/// (not errors, tool errors or input requests), by tool, arguments (their
/// JSON with its keys sorted) and protocol revision, and by caller too with
/// [`per_caller`](Self::per_caller) for results that depend on who asks.
///
/// The cache lives in the process (replicas each keep their own), or in a
/// [`ResultStore`] they share with [`shared`](Self::shared).
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::middleware::ResultCache;
///
/// /// Converts an amount at today's rate.
/// #[mcp_runtime::tool(
///     annotations(read_only, idempotent),
///     layer = ResultCache::new(Duration::from_secs(60)),
/// )]
/// async fn convert(amount: f64, from: String, to: String) -> String {
///     format!("{amount} {from} is {} {to}", amount * 1.1)
/// }
/// ```
#[derive(Clone)]
pub struct ResultCache {
    results: moka::sync::Cache<String, Arc<Value>>,
    ttl: Duration,
    per_caller: bool,
    shared: Option<Arc<dyn ResultStore>>,
}

impl std::fmt::Debug for ResultCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultCache")
            .field("ttl", &self.ttl)
            .field("per_caller", &self.per_caller)
            .field("shared", &self.shared.is_some())
            .field("entries", &self.results.entry_count())
            .finish()
    }
}

impl ResultCache {
    /// Results kept for `ttl`, at most 10,000 of them.
    pub fn new(ttl: Duration) -> Self {
        Self::build(ttl, DEFAULT_ENTRIES, false)
    }

    /// At most `entries` results (in memory; a shared store keeps what
    /// its engine's memory policy lets it).
    pub fn max_entries(self, entries: u64) -> Self {
        ResultCache { shared: self.shared, ..Self::build(self.ttl, entries, self.per_caller) }
    }

    /// Keeps results in `store`, shared by the replicas that use it,
    /// instead of in this process's memory.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")]
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use mcp_runtime::middleware::ResultCache;
    /// use mcp_runtime::redis::RedisResultStore;
    ///
    /// let store = RedisResultStore::connect("redis://127.0.0.1:6379/", "rates").await?;
    /// let cache = ResultCache::new(Duration::from_secs(60)).shared(store);
    /// # let _ = cache; Ok(()) }
    /// ```
    pub fn shared(mut self, store: impl ResultStore) -> Self {
        self.shared = Some(Arc::new(store));
        self
    }

    /// Results kept apart for each caller (the principal's subject, else
    /// the client's address).
    pub fn per_caller(mut self) -> Self {
        self.per_caller = true;
        self
    }

    fn build(ttl: Duration, entries: u64, per_caller: bool) -> Self {
        let results = moka::sync::Cache::builder().time_to_live(ttl).max_capacity(entries).build();
        ResultCache { results, ttl, per_caller, shared: None }
    }

    /// The key of a call's result, or `None` when it is not to be cached.
    fn key(&self, request: &McpRequest) -> Option<String> {
        if request.method() != Method::ToolsCall || request.is_later_round() || request.is_task() {
            return None;
        }
        if !request.tool().is_some_and(cacheable) {
            return None;
        }
        // Sorted keys (serde_json's map is ordered): `{"a":1,"b":2}` and
        // `{"b":2,"a":1}` are one call.
        let arguments = match request.arguments() {
            Some(raw) => serde_json::from_str::<Value>(raw.get()).ok()?.to_string(),
            None => "{}".to_owned(),
        };
        let caller = match (self.per_caller, request.principal().and_then(|p| p.subject())) {
            (false, _) => String::new(),
            (true, Some(subject)) => format!("subject:{subject}"),
            (true, None) => request.client_address().map(|a| format!("address:{}", a.ip())).unwrap_or_default(),
        };
        let tool = request.target()?;
        Some(format!("{}\n{tool}\n{caller}\n{arguments}", request.protocol_version()))
    }
}

/// Whether a tool's annotations let its results be reused.
fn cacheable(tool: &Tool) -> bool {
    tool.annotations.as_ref().is_some_and(|a| a.read_only_hint == Some(true) && a.idempotent_hint == Some(true))
}

impl ResultCache {
    async fn kept(&self, key: &str) -> Option<Arc<Value>> {
        let Some(store) = &self.shared else { return self.results.get(key) };
        match store.get(key).await {
            Ok(Some(text)) => serde_json::from_str(&text).ok().map(Arc::new),
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(error = %e, "the shared result cache could not be read: the call runs");
                None
            }
        }
    }

    async fn keep(&self, key: String, result: Value) {
        let Some(store) = &self.shared else { return self.results.insert(key, Arc::new(result)) };
        if let Err(e) = store.put(&key, result.to_string(), self.ttl).await {
            tracing::warn!(error = %e, "the shared result cache could not keep a result");
        }
    }
}

impl Layer for ResultCache {
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let Some(key) = self.key(&request) else { return next.run(request).await };
            if let Some(result) = self.kept(&key).await {
                return request.reply(&*result);
            }
            let response = next.run(request).await;
            if let Some(result) = kept(&response) {
                self.keep(key, result).await;
            }
            response
        })
    }
}

/// A response's result, when it is one to keep: complete, and not a tool
/// error.
fn kept(response: &Response) -> Option<Value> {
    if response.needs_input() {
        return None;
    }
    let result: Value = serde_json::from_str(response.as_result()?).ok()?;
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    Some(result)
}
