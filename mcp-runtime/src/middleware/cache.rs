//! [`ResultCache`]: results of read-only, idempotent tools answered again
//! from memory (or a shared store) for a while, to the caller that got
//! them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest as _, Sha256};

use super::{BoxFuture, Layer, McpRequest, Next, Response};
use crate::protocol::{Method, Tool};

/// Where a [`ResultCache`] shared by replicas keeps its results: an
/// existing engine (Redis with [`RedisResultStore`], or one of yours),
/// never memory of one process.
///
/// Keys are digests (SHA-256, in URL-safe base64) of everything a result
/// depends on, the server's name and the caller included: a store needs
/// no more than a prefix of its own in front of them.
///
/// A store that fails is a miss, not an error: the call runs, and the
/// failure is logged.
///
/// A tool's results are invalidated by moving the tool to a new
/// *generation*, a number that is part of every key: the results kept
/// before are then never read again, and expire with their time to live.
/// The generations are the store's, so that an invalidation on one
/// replica holds for all.
#[cfg_attr(feature = "redis", doc = "\n\n[`RedisResultStore`]: crate::redis::RedisResultStore")]
// Without the feature, the name leads to what the store implements.
#[cfg_attr(not(feature = "redis"), doc = "\n\n[`RedisResultStore`]: ResultStore")]
pub trait ResultStore: Send + Sync + 'static {
    /// The result kept under `key`, if any (JSON text).
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, String>>;
    /// Keeps `result` (JSON text) under `key` for `ttl`.
    fn put<'a>(&'a self, key: &'a str, result: String, ttl: Duration) -> BoxFuture<'a, Result<(), String>>;
    /// The generation of `tool`'s results: 0 until they are first
    /// invalidated.
    fn generation<'a>(&'a self, tool: &'a str) -> BoxFuture<'a, Result<u64, String>>;
    /// Moves `tool`'s results to their next generation, for every replica.
    fn invalidate<'a>(&'a self, tool: &'a str) -> BoxFuture<'a, Result<(), String>>;
}

/// How many results a cache keeps unless told otherwise.
const DEFAULT_ENTRIES: u64 = 10_000;

/// How many bytes of results a cache keeps in memory unless told otherwise.
const DEFAULT_BYTES: u64 = 64 * 1024 * 1024;

/// What a result costs beyond its text and key (the map's own entry).
const ENTRY_OVERHEAD: u64 = 64;

/// Answers a `tools/call` from the result of an earlier call with the same
/// arguments by the same caller, for a while (`moka`'s cache: a time to
/// live, and bounds on the number of results and on their size, the least
/// used going first). The handler does not run for a call answered from
/// the cache.
///
/// Only tools annotated read-only and idempotent
/// (`annotations(read_only, idempotent)`) are cached: for any other the
/// layer passes the call on, since answering a call that changes something
/// from a cache would skip the change. A server-wide cache skips them; a
/// cache put on one such tool (`#[tool(layer = ...)]`) is a
/// [`BuildError::Cache`](crate::BuildError::Cache), since it would never
/// cache anything.
///
/// A call that changes what a cached tool answers declares it:
/// `#[tool(invalidates = ["search_articles"])]` (or
/// [`ToolEntry::invalidates`](crate::entry::ToolEntry::invalidates)) on
/// `add_article` invalidates `search_articles`' results, every caller's, in
/// every `ResultCache` of the server (server-wide, and the tool's own)
/// once a call of `add_article` has answered with a result (not an error):
/// the next call of `search_articles` runs. Code that changes things
/// otherwise calls [`invalidate`](Self::invalidate) on a clone of the
/// cache (clones share their results). Only complete results are kept
/// (not errors, tool errors or input requests), by the server's name, the
/// protocol revision, the tool, the arguments (their JSON with its keys
/// sorted) and the [caller](super::Caller): a result is only ever served
/// to the caller who got it, whatever it depends on. Results that are the
/// same for everyone are shared with
/// [`same_for_every_caller`](Self::same_for_every_caller).
///
/// Over HTTP, a caller is known by its principal or its address; a call
/// over HTTP whose caller is not known (a mounted service whose host gives
/// no address, see [`PeerAddress`])
/// is not cached, unless results are the same for everyone. Over stdio,
/// the one client is the caller.
///
/// The cache lives in the process (replicas each keep their own): at most
/// 10,000 results and 64 MiB ([`max_entries`](Self::max_entries),
/// [`max_bytes`](Self::max_bytes)); or in a [`ResultStore`] the replicas
/// share, with [`shared`](Self::shared).
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::middleware::ResultCache;
///
/// /// Converts an amount at today's rate.
/// #[mcp_runtime::tool(
///     annotations(read_only, idempotent),
///     layer = ResultCache::new(Duration::from_secs(60)).same_for_every_caller(),
/// )]
/// async fn convert(amount: f64, from: String, to: String) -> String {
///     format!("{amount} {from} is {} {to}", amount * 1.1)
/// }
/// ```
#[cfg_attr(feature = "http", doc = "\n\n[`PeerAddress`]: crate::transport::http::PeerAddress")]
#[cfg_attr(not(feature = "http"), doc = "\n\n[`PeerAddress`]: crate::transport")]
#[derive(Clone)]
pub struct ResultCache {
    results: moka::sync::Cache<String, Arc<RawValue>>,
    /// Each invalidated tool's generation, when results are kept in
    /// memory (a shared store keeps its own).
    generations: Arc<std::sync::Mutex<std::collections::HashMap<String, u64>>>,
    ttl: Duration,
    entries: u64,
    bytes: u64,
    every_caller: bool,
    shared: Option<Arc<dyn ResultStore>>,
    /// Whether the uncached calls of unknown callers were reported.
    warned: Arc<AtomicBool>,
}

impl std::fmt::Debug for ResultCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultCache")
            .field("ttl", &self.ttl)
            .field("max_entries", &self.entries)
            .field("max_bytes", &self.bytes)
            .field("same_for_every_caller", &self.every_caller)
            .field("shared", &self.shared.is_some())
            .field("entries", &self.results.entry_count())
            .finish()
    }
}

impl ResultCache {
    /// Results kept for `ttl`, at most 10,000 of them and 64 MiB, each for
    /// the caller who got it.
    pub fn new(ttl: Duration) -> Self {
        ResultCache {
            results: cache(ttl, DEFAULT_ENTRIES, DEFAULT_BYTES),
            generations: Arc::default(),
            ttl,
            entries: DEFAULT_ENTRIES,
            bytes: DEFAULT_BYTES,
            every_caller: false,
            shared: None,
            warned: Arc::default(),
        }
    }

    /// At most `entries` results in memory (at least 1; a shared store
    /// keeps what its engine's memory policy lets it).
    pub fn max_entries(mut self, entries: u64) -> Self {
        self.entries = entries.max(1);
        self.results = cache(self.ttl, self.entries, self.bytes);
        self
    }

    /// At most `bytes` of results in memory, their JSON text and keys
    /// counted (at least 1 KiB).
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.bytes = bytes.max(1024);
        self.results = cache(self.ttl, self.entries, self.bytes);
        self
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

    /// Serves one caller's result to every caller who makes the same call:
    /// for tools whose results depend on their arguments alone (a
    /// currency's rate, a public document), never on who asks. A result
    /// that depends on the caller (what a user may see, their own data)
    /// must stay per caller, the default.
    pub fn same_for_every_caller(mut self) -> Self {
        self.every_caller = true;
        self
    }

    /// Results kept apart for each caller: the default, so this changes
    /// nothing; kept for code written when it was not.
    #[deprecated(note = "results are kept per caller by default; `same_for_every_caller` shares them")]
    pub fn per_caller(mut self) -> Self {
        self.every_caller = false;
        self
    }

    /// Invalidates every result of `tool` this cache keeps, every
    /// caller's: the next call of it runs. With a [shared](Self::shared)
    /// store, for every replica.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::middleware::ResultCache;
    ///
    /// # mcp_runtime::tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let articles = ResultCache::new(Duration::from_secs(60));
    /// // Kept in the server's state, a clone reaches the same results:
    /// let handle = articles.clone();
    /// handle.invalidate("search_articles").await;
    /// # });
    /// ```
    pub async fn invalidate(&self, tool: &str) {
        let Some(store) = &self.shared else {
            let mut generations = crate::sync::lock(&self.generations);
            *generations.entry(tool.to_owned()).or_default() += 1;
            return;
        };
        if let Err(e) = store.invalidate(tool).await {
            tracing::error!(
                error = %e, tool,
                "the shared result cache could not invalidate a tool's results: they may be served until they expire"
            );
        }
    }

    /// The generation of `tool`'s results; `None` when the shared store
    /// cannot tell (the call then runs, and its result is not kept).
    async fn generation(&self, tool: &str) -> Option<u64> {
        let Some(store) = &self.shared else {
            let generations = crate::sync::lock(&self.generations);
            return Some(generations.get(tool).copied().unwrap_or(0));
        };
        match store.generation(tool).await {
            Ok(generation) => Some(generation),
            Err(e) => {
                tracing::warn!(error = %e, tool, "the shared result cache could not be read: the call runs");
                None
            }
        }
    }

    /// The key of a call's result, or `None` when it is not to be cached.
    fn key(&self, request: &McpRequest, generation: u64) -> Option<String> {
        // A call that carries answers or a state may be answered otherwise
        // than its arguments alone say.
        if request.method() != Method::ToolsCall || request.0.carries_input || request.is_task() {
            return None;
        }
        if !request.tool().is_some_and(cacheable) {
            return None;
        }
        let caller = request.caller();
        if !self.every_caller && !caller.is_known() && request.0.over_http {
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    tool = request.target(),
                    "ResultCache: calls over HTTP whose caller is unknown (no principal, no address) are not \
                     cached, lest one caller's result reach another; give the mounted service the client's \
                     address (PeerAddress), or use same_for_every_caller() for results that depend on nothing else"
                );
            }
            return None;
        }
        // Sorted keys (serde_json's map is ordered): `{"a":1,"b":2}` and
        // `{"b":2,"a":1}` are one call.
        let arguments = match request.arguments() {
            Some(raw) => serde_json::from_str::<Value>(raw.get()).ok()?.to_string(),
            None => "{}".to_owned(),
        };
        let caller = if self.every_caller { String::new() } else { caller.to_string() };
        let generation = generation.to_string();
        let mut digest = Sha256::new();
        // Each part with its length first: no choice of names runs two
        // parts into one.
        for part in [
            request.0.answers.server_name(),
            request.protocol_version(),
            request.target()?,
            &generation,
            &caller,
            &arguments,
        ] {
            digest.update((part.len() as u64).to_be_bytes());
            digest.update(part.as_bytes());
        }
        Some(URL_SAFE_NO_PAD.encode(digest.finalize()))
    }
}

/// A cache of at most `entries` results and `bytes` of them: every result
/// weighs its size, and at least an even share of `bytes`, so that the
/// total weight bounds both.
fn cache(ttl: Duration, entries: u64, bytes: u64) -> moka::sync::Cache<String, Arc<RawValue>> {
    let share = (bytes / entries).max(1);
    moka::sync::Cache::builder()
        .time_to_live(ttl)
        .weigher(move |key: &String, result: &Arc<RawValue>| {
            let size = key.len() as u64 + result.get().len() as u64 + ENTRY_OVERHEAD;
            u32::try_from(size.max(share)).unwrap_or(u32::MAX)
        })
        .max_capacity(bytes)
        .build()
}

/// The result caches among `layers`.
pub(crate) fn caches_in(layers: &[Arc<dyn Layer>]) -> impl Iterator<Item = &ResultCache> {
    layers.iter().filter_map(|layer| {
        let layer: &dyn std::any::Any = &**layer;
        layer.downcast_ref::<ResultCache>()
    })
}

/// Whether a tool's annotations let its results be reused.
pub(crate) fn cacheable(tool: &Tool) -> bool {
    tool.annotations.as_ref().is_some_and(|a| a.read_only_hint == Some(true) && a.idempotent_hint == Some(true))
}

impl ResultCache {
    async fn kept(&self, key: &str) -> Option<Arc<RawValue>> {
        let Some(store) = &self.shared else { return self.results.get(key) };
        match store.get(key).await {
            Ok(Some(text)) => RawValue::from_string(text).ok().map(Arc::from),
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(error = %e, "the shared result cache could not be read: the call runs");
                None
            }
        }
    }

    async fn keep(&self, key: String, result: Box<RawValue>) {
        let Some(store) = &self.shared else { return self.results.insert(key, Arc::from(result)) };
        if let Err(e) = store.put(&key, result.get().to_owned(), self.ttl).await {
            tracing::warn!(error = %e, "the shared result cache could not keep a result");
        }
    }
}

impl Layer for ResultCache {
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let generation = match request.target() {
                Some(tool) if self.might_keep(&request) => self.generation(tool).await,
                _ => None,
            };
            let Some(key) = generation.and_then(|generation| self.key(&request, generation)) else {
                return next.run(request).await;
            };
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

impl ResultCache {
    /// Whether a call of a tool may be answered from this cache (the
    /// generation is only read for those).
    fn might_keep(&self, request: &McpRequest) -> bool {
        request.method() == Method::ToolsCall && request.tool().is_some_and(cacheable)
    }
}

/// A response's result, when it is one to keep: complete, and not a tool
/// error.
pub(crate) fn kept(response: &Response) -> Option<Box<RawValue>> {
    if response.needs_input() {
        return None;
    }
    #[derive(serde::Deserialize)]
    struct Flags {
        #[serde(rename = "isError", default)]
        is_error: bool,
    }
    let text = response.as_result()?;
    if serde_json::from_str::<Flags>(text).ok()?.is_error {
        return None;
    }
    RawValue::from_string(text.to_owned()).ok()
}
