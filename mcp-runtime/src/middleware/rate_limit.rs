//! [`RateLimit`]: calls per caller (and per tool) within a rate.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use governor::clock::Clock as _;
use governor::{DefaultKeyedRateLimiter, Quota};
use serde_json::{Map, json};

use super::{BoxFuture, Layer, McpRequest, Next, Response};
use crate::protocol::{CallToolResult, Method};

/// The `_meta` key of a refused call's result that says, in seconds, when
/// to try again.
pub const RETRY_AFTER: &str = "retryAfterSeconds";

/// How often the buckets of callers not seen for a while are dropped.
const PRUNE_EVERY: u32 = 4096;

/// Limits the `tools/call`s of each caller to a rate (a token bucket, with
/// `governor`): a call over it is answered with a tool error (`isError`,
/// which the model reads, as it would the tool's own failure) saying when
/// to try again, in its text and, in seconds, in its `_meta`'s
/// [`retryAfterSeconds`](RETRY_AFTER); its handler does not run. (Not a
/// JSON-RPC error: the codes left to servers by JSON-RPC, `-32000` to
/// `-32099`, are the protocol's own to assign.)
///
/// The caller is the principal's subject on an authenticated server, else
/// the client's IP address over HTTP, else everyone shares one bucket
/// (stdio has one client). On the builder it limits every tool together
/// (or each tool apart with [`each_tool`](Self::each_tool)); on one tool
/// (`#[tool(layer = RateLimit::per_minute(10))]`), that tool's calls.
///
/// Only `tools/call` is counted (lists, reads and prompts pass), and a
/// later round of a call that asked for input is the same call: it is not
/// counted again. Buckets live in the process: replicas each count their
/// own.
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
pub struct RateLimit {
    limiter: DefaultKeyedRateLimiter<Key>,
    quota: Quota,
    each_tool: bool,
    checks: AtomicU32,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit").field("quota", &self.quota).field("each_tool", &self.each_tool).finish()
    }
}

/// Whose bucket a call takes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    caller: Caller,
    tool: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Caller {
    Subject(String),
    Address(IpAddr),
    Everyone,
}

impl RateLimit {
    /// `calls` a second, as many at once.
    pub fn per_second(calls: u32) -> Self {
        Self::with_quota(Quota::per_second(at_least_one(calls)))
    }

    /// `calls` a minute, as many at once.
    pub fn per_minute(calls: u32) -> Self {
        Self::with_quota(Quota::per_minute(at_least_one(calls)))
    }

    /// `calls` an hour, as many at once.
    pub fn per_hour(calls: u32) -> Self {
        Self::with_quota(Quota::per_hour(at_least_one(calls)))
    }

    /// At most `calls` at once (the bucket's size; at least 1), refilled
    /// at the same rate.
    pub fn burst(self, calls: u32) -> Self {
        let quota = self.quota.allow_burst(at_least_one(calls));
        RateLimit { each_tool: self.each_tool, ..Self::with_quota(quota) }
    }

    /// A bucket per caller and tool, instead of one per caller for all
    /// the tools.
    pub fn each_tool(mut self) -> Self {
        self.each_tool = true;
        self
    }

    fn with_quota(quota: Quota) -> Self {
        RateLimit { limiter: DefaultKeyedRateLimiter::keyed(quota), quota, each_tool: false, checks: AtomicU32::new(0) }
    }

    /// When the caller may call again, if not now.
    fn refused(&self, request: &McpRequest) -> Option<Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        let caller = match (request.principal().and_then(|p| p.subject()), request.client_address()) {
            (Some(subject), _) => Caller::Subject(subject.to_owned()),
            (None, Some(address)) => Caller::Address(address.ip()),
            (None, None) => Caller::Everyone,
        };
        let tool = self.each_tool.then(|| request.target().unwrap_or_default().to_owned());
        let key = Key { caller, tool };
        self.limiter.check_key(&key).err().map(|not_until| not_until.wait_time_from(self.limiter.clock().now()))
    }
}

impl Layer for RateLimit {
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            if request.method() != Method::ToolsCall || request.is_later_round() {
                return next.run(request).await;
            }
            match self.refused(&request) {
                None => next.run(request).await,
                Some(wait) => {
                    let seconds = (wait.as_secs_f64() * 10.0).ceil() / 10.0;
                    let tool = request.target().unwrap_or_default();
                    let mut result =
                        CallToolResult::error(format!("Rate limit exceeded for `{tool}`: try again in {seconds} s"));
                    result.meta = Some(Map::from_iter([(RETRY_AFTER.to_owned(), json!(seconds))]));
                    request.reply(&result)
                }
            }
        })
    }
}

fn at_least_one(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}
