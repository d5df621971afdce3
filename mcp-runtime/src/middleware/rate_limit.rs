//! [`RateLimit`]: calls per caller (and per tool) within a rate.
//!
//! The buckets are GCRA's (the generic cell rate algorithm, as `governor`
//! and most limiters implement a token bucket): one instant per caller, the
//! time at which its bucket would be full again. Kept here rather than in
//! `governor`'s keyed limiter, which can neither tell whether a caller has
//! a bucket nor drop one: the number of buckets must stay bounded whatever
//! addresses a flood comes from.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, json};

use super::{BoxFuture, Caller, Layer, McpRequest, Next, Response};
use crate::input::request_state::Round;
use crate::protocol::{CallToolResult, Method};

/// The `_meta` key of a refused call's result that says, in seconds, when
/// to try again.
pub const RETRY_AFTER: &str = "retryAfterSeconds";

/// How often the buckets of callers not seen for a while are dropped.
const PRUNE_EVERY: u32 = 4096;

/// How many callers have a bucket of their own unless told otherwise.
const DEFAULT_MAX_CALLERS: usize = 100_000;

/// How many later rounds are remembered as granted at once: one more is
/// counted as a call (the safe side) until some of their states expire.
const MAX_GRANTED_ROUNDS: usize = 65_536;

/// Limits the `tools/call`s of each caller to a rate (a token bucket, with
/// GCRA): a call over it is answered with a tool error (`isError`,
/// which the model reads, as it would the tool's own failure) saying when
/// to try again, in its text and, in seconds, in its `_meta`'s
/// [`retryAfterSeconds`](RETRY_AFTER); its handler does not run. (Not a
/// JSON-RPC error: the codes left to servers by JSON-RPC, `-32000` to
/// `-32099`, are the protocol's own to assign.)
///
/// The caller is the request's [`Caller`]: the authenticated principal
/// (its issuer, subject and client together), else the client's address
/// over HTTP (an IPv6 address by its /64; behind a proxy, the address it
/// forwarded, once told to trust it with
/// [`HttpConfig::trusted_proxies`]),
/// else everyone shares one bucket (stdio has one client). On the builder
/// it limits every tool together (or each tool apart with
/// [`each_tool`](Self::each_tool)); on one tool
/// (`#[tool(layer = RateLimit::per_minute(10))]`), that tool's calls.
///
/// Only `tools/call` is counted (lists, reads and prompts pass). A later
/// round of a call that asked for input is the same call, and is not
/// counted again, but only when it carries a `requestState` this server
/// sealed for this caller ([`McpRequest::is_later_round`]), and only once
/// per state: a state sent again is counted like a new call. The limit is
/// checked before anything else of the call happens
/// ([`Layer::admit`]): a refused call creates no task.
///
/// Buckets live in the process (replicas each count their own), one per
/// caller for up to 100,000 callers seen recently
/// ([`max_callers`](Self::max_callers)); callers beyond that share one
/// bucket until the others' are dropped, so that a flood of new addresses
/// takes no more memory, and is limited as one.
///
/// ```
/// use mcp_runtime::middleware::RateLimit;
///
/// /// Sends a text message: at most 10 a minute per caller, 3 at once.
/// #[mcp_runtime::tool(layer = RateLimit::per_minute(10).burst(3))]
/// async fn send_sms(to: String, text: String) -> String {
///     format!("sent to {to}: {text}")
/// }
/// ```
#[cfg_attr(
    feature = "http",
    doc = "\n\n[`HttpConfig::trusted_proxies`]: crate::transport::http::HttpConfig::trusted_proxies"
)]
#[cfg_attr(not(feature = "http"), doc = "\n\n[`HttpConfig::trusted_proxies`]: crate::transport")]
pub struct RateLimit {
    /// The time one call's token takes to come back.
    interval: Duration,
    /// How many calls may be made at once.
    burst: u32,
    /// When each caller's bucket is full again (GCRA's "theoretical
    /// arrival time"): a bucket full already is as good as none.
    buckets: Mutex<HashMap<Key, Instant>>,
    each_tool: bool,
    max_callers: usize,
    checks: AtomicU32,
    /// The later rounds let through uncounted, with when their state
    /// expires (milliseconds since the Unix epoch).
    granted: Mutex<HashMap<[u8; 16], u64>>,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("interval", &self.interval)
            .field("burst", &self.burst)
            .field("each_tool", &self.each_tool)
            .field("max_callers", &self.max_callers)
            .finish()
    }
}

/// Whose bucket a call takes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    /// `None`: the shared bucket of the callers beyond the bound.
    caller: Option<Caller>,
    tool: Option<String>,
}

impl RateLimit {
    /// `calls` a second, as many at once.
    pub fn per_second(calls: u32) -> Self {
        Self::within(Duration::from_secs(1), calls)
    }

    /// `calls` a minute, as many at once.
    pub fn per_minute(calls: u32) -> Self {
        Self::within(Duration::from_secs(60), calls)
    }

    /// `calls` an hour, as many at once.
    pub fn per_hour(calls: u32) -> Self {
        Self::within(Duration::from_secs(3600), calls)
    }

    /// At most `calls` at once (the bucket's size; at least 1), refilled
    /// at the same rate.
    pub fn burst(mut self, calls: u32) -> Self {
        self.burst = calls.max(1);
        self
    }

    /// A bucket per caller and tool, instead of one per caller for all
    /// the tools.
    pub fn each_tool(mut self) -> Self {
        self.each_tool = true;
        self
    }

    /// How many callers get a bucket of their own (default 100,000, at
    /// least 1; with [`each_tool`](Self::each_tool), caller and tool
    /// pairs). The callers seen after that share one bucket until buckets
    /// of callers no longer seen are dropped.
    pub fn max_callers(mut self, callers: usize) -> Self {
        self.max_callers = callers.max(1);
        self
    }

    fn within(period: Duration, calls: u32) -> Self {
        let calls = calls.max(1);
        RateLimit {
            interval: period / calls,
            burst: calls,
            buckets: Mutex::new(HashMap::new()),
            each_tool: false,
            max_callers: DEFAULT_MAX_CALLERS,
            checks: AtomicU32::new(0),
            granted: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `round` has not been granted before, and is now.
    fn grant(&self, round: &Round) -> bool {
        let now = now_ms();
        let mut granted = crate::sync::lock(&self.granted);
        if granted.len() >= MAX_GRANTED_ROUNDS {
            granted.retain(|_, expires| *expires >= now);
        }
        if granted.len() >= MAX_GRANTED_ROUNDS || granted.contains_key(&round.id) {
            return false;
        }
        granted.insert(round.id, round.expires_at_ms);
        true
    }

    /// When the caller may call again, if not now; a call that may is
    /// taken from its bucket.
    fn refused(&self, request: &McpRequest) -> Option<Duration> {
        let now = Instant::now();
        let tool = self.each_tool.then(|| request.target().unwrap_or_default().to_owned());
        let mut key = Key { caller: Some(request.caller()), tool };
        let mut buckets = crate::sync::lock(&self.buckets);
        let prune = self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1;
        if prune || (buckets.len() >= self.max_callers && !buckets.contains_key(&key)) {
            // A bucket full again is as good as none.
            buckets.retain(|_, full_at| *full_at > now);
            if prune {
                buckets.shrink_to_fit();
            }
            if buckets.len() >= self.max_callers && !buckets.contains_key(&key) {
                key.caller = None;
            }
        }
        // GCRA: a call fits while the bucket's "full again" instant is no
        // further than the burst's worth of intervals away, less one.
        let tolerance = self.interval * (self.burst - 1);
        let full_at = buckets.get(&key).copied().unwrap_or(now).max(now);
        let fits_until = now + tolerance;
        if full_at > fits_until {
            return Some(full_at - fits_until);
        }
        buckets.insert(key, full_at + self.interval);
        None
    }
}

impl Layer for RateLimit {
    fn admit(&self, request: &McpRequest) -> Option<Response> {
        if request.method() != Method::ToolsCall {
            return None;
        }
        if let Some(round) = &request.0.round
            && self.grant(round)
        {
            return None;
        }
        let wait = self.refused(request)?;
        let seconds = (wait.as_secs_f64() * 10.0).ceil() / 10.0;
        let tool = request.target().unwrap_or_default();
        let mut result = CallToolResult::error(format!("Rate limit exceeded for `{tool}`: try again in {seconds} s"));
        result.meta = Some(Map::from_iter([(RETRY_AFTER.to_owned(), json!(seconds))]));
        Some(request.reply(&result))
    }

    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        Box::pin(next.run(request))
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_millis() as u64
}
