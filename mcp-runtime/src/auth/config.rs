//! [`Authorization`]: what a protected server trusts, and how hard it leans
//! on its authorization server.

use std::collections::BTreeSet;
use std::time::Duration;

/// Makes an HTTP server an OAuth 2.1 resource server: every request to the
/// MCP endpoint must carry `Authorization: Bearer <token>`, a token issued
/// by [`issuer`](Self::new) for this server's [`resource`](Self::new) URI
/// (RFC 8707: its audience), verified on each request.
///
/// ```no_run
/// use std::time::Duration;
/// use mcp_runtime::Server;
/// use mcp_runtime::auth::Authorization;
///
/// # async fn run() -> std::io::Result<()> {
/// let auth = Authorization::new("https://auth.example.com", "https://mcp.example.com/mcp")
///     .scopes_supported(["notes:read", "notes:write"])
///     // Only for opaque tokens, checked at the issuer's introspection endpoint.
///     .introspection_credentials("mcp-server", "s3cret")
///     .leeway(Duration::from_secs(30));
/// let server = Server::builder("notes", "1.0.0").authorization(auth).build().expect("a valid server");
/// server.serve_http("0.0.0.0:3000").await
/// # }
/// ```
///
/// What the server then does:
///
/// - it publishes its Protected Resource Metadata (RFC 9728) at
///   `/.well-known/oauth-protected-resource` followed by the resource's
///   path (`/.well-known/oauth-protected-resource/mcp` above), and at
///   `/.well-known/oauth-protected-resource`, to anyone;
/// - it learns the issuer's endpoints from its metadata (RFC 8414
///   `/.well-known/oauth-authorization-server`, else OpenID Connect
///   discovery), on the first request;
/// - a JWT access token (RFC 9068, `typ: at+jwt`) must be signed with
///   RS256, ES256 or EdDSA by a key of the issuer's JWKS (fetched again
///   when a token names an unknown key, at most once per
///   [`jwks_refresh_interval`](Self::jwks_refresh_interval)), name the
///   issuer as `iss` and the resource in `aud`, and be within `nbf` and
///   `exp` give or take the [`leeway`](Self::leeway);
/// - any other token is sent to the issuer's introspection endpoint (RFC
///   7662) with the [credentials](Self::introspection_credentials), and
///   must be active, for this resource and unexpired; answers are kept for
///   [`introspection_cache_ttl`](Self::introspection_cache_ttl), under a
///   hash of the token;
/// - a request without a valid token is answered 401 with a
///   `WWW-Authenticate: Bearer` challenge naming the metadata document; a
///   token in the query string, 400; while the issuer cannot be reached,
///   503 with `Retry-After`;
/// - a handler reads the caller as a [`Principal`](super::Principal).
///
/// stdio is never authenticated. Health probes and CORS preflights stay open.
/// A [mounted](crate::Server::http_service) service serves the metadata
/// document on the requests its application routes to it: route the two
/// well-known paths to it as well as the endpoint.
#[derive(Clone)]
pub struct Authorization {
    pub(crate) issuer: String,
    pub(crate) resource: String,
    pub(crate) scopes_supported: BTreeSet<String>,
    pub(crate) introspection: Option<(String, String)>,
    pub(crate) leeway: Duration,
    pub(crate) jwks_refresh_interval: Duration,
    pub(crate) introspection_cache_ttl: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) dpop: Option<super::Dpop>,
    /// The keys of the authorization server built into this server, when
    /// it is its own issuer: tokens are verified with them, and nothing is
    /// discovered or fetched.
    #[cfg(feature = "oauth-proxy")]
    pub(crate) local_keys: Option<std::sync::Arc<dyn super::LocalKeys>>,
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The introspection secret stays out of logs.
        f.debug_struct("Authorization")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("scopes_supported", &self.scopes_supported)
            .field("introspection_client", &self.introspection.as_ref().map(|(id, _)| id))
            .field("leeway", &self.leeway)
            .field("jwks_refresh_interval", &self.jwks_refresh_interval)
            .field("introspection_cache_ttl", &self.introspection_cache_ttl)
            .field("request_timeout", &self.request_timeout)
            .field("dpop", &self.dpop)
            .finish()
    }
}

impl Authorization {
    /// Trusts tokens from `issuer` (its exact issuer identifier, as its
    /// metadata and tokens spell it) that name `resource`, this server's
    /// canonical URI as its clients reach it (such as
    /// `https://mcp.example.com/mcp`), in their audience. Both are compared
    /// as exact strings.
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>) -> Self {
        Authorization {
            issuer: issuer.into(),
            resource: resource.into(),
            scopes_supported: BTreeSet::new(),
            introspection: None,
            leeway: Duration::from_secs(60),
            jwks_refresh_interval: Duration::from_secs(30),
            introspection_cache_ttl: Duration::from_secs(30),
            request_timeout: Duration::from_secs(10),
            dpop: None,
            #[cfg(feature = "oauth-proxy")]
            local_keys: None,
        }
    }

    /// Scopes this server understands, published in its metadata and
    /// suggested in its challenges (default none).
    pub fn scopes_supported<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// This server's client id and secret at the issuer, sent (HTTP Basic)
    /// to its introspection endpoint to check tokens that are not JWTs.
    /// Without them such tokens are refused.
    pub fn introspection_credentials(mut self, client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        self.introspection = Some((client_id.into(), secret.into()));
        self
    }

    /// How far clocks may disagree when reading `exp` and `nbf` (default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the issuer's keys (default
    /// 30 s). A token naming an unknown key makes the server fetch them
    /// again, but no more often than this: tokens with made-up key ids cannot
    /// make it hammer the issuer, and concurrent ones wait for one fetch.
    pub fn jwks_refresh_interval(mut self, interval: Duration) -> Self {
        self.jwks_refresh_interval = interval;
        self
    }

    /// How long an introspection answer is reused for the same token
    /// (default 30 s, never past the token's `exp`); zero asks every time.
    /// A token revoked at the issuer may be accepted that long.
    pub fn introspection_cache_ttl(mut self, ttl: Duration) -> Self {
        self.introspection_cache_ttl = ttl;
        self
    }

    /// How long one request to the issuer may take (default 10 s) before
    /// it counts as unreachable.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Accepts DPoP-bound tokens (RFC 9449), with a proof of possession on
    /// every request: see [`Dpop`](super::Dpop). Without it the
    /// `DPoP` scheme is not accepted; a token bound to a key is refused as
    /// a bearer token either way.
    pub fn dpop(mut self, dpop: super::Dpop) -> Self {
        self.dpop = Some(dpop);
        self
    }
}
