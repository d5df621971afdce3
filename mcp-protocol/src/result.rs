//! Fields common to results: `resultType` and the cache hints.

use serde::{Deserialize, Serialize};

/// The kind of a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// The final result.
    Complete,
    /// An interim result asking the client for input (MRTR).
    InputRequired,
    /// A task handle (`CreateTaskResult`, the tasks extension).
    Task,
}

/// Who may reuse a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Only within the same authorization context (the default).
    #[default]
    Private,
    /// Anyone, including shared caches: the result holds no user-specific data.
    Public,
}

/// `ttlMs` and `cacheScope`, required on discover, list and read results.
///
/// The default is `ttlMs: 0, cacheScope: "private"`: stale at once, never shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct CacheHints {
    /// Freshness in milliseconds, like `max-age`.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub cache_scope: CacheScope,
}

impl CacheHints {
    /// Hints with a time to live and a scope.
    pub const fn new(ttl_ms: u64, cache_scope: CacheScope) -> Self {
        CacheHints { ttl_ms, cache_scope }
    }

    /// The same time to live, for `cache_scope`.
    pub const fn with_scope(self, cache_scope: CacheScope) -> Self {
        CacheHints { cache_scope, ..self }
    }
}
