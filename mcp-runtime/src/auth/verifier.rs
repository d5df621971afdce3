//! From a bearer token to the [`Principal`] it stands for: a JWT checked
//! against the issuer's keys, anything else introspected.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::Principal;
use super::client::AsClient;
use super::config::Authorization;
use super::discovery::{self, AsMetadata, DiscoveryError};
use super::dpop::DpopGate;
use super::introspection::{Introspect, IntrospectionCache, introspect};
use super::jwks::{Jwks, KeySet};
use super::jwt;
use super::metadata::ResourceMetadata;
use super::rejection::Rejection;
use super::verified::VerifiedTokens;

/// How long a client is told to wait when the issuer is out of reach, and
/// how long the server waits before asking an unreachable issuer for its
/// metadata again.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(5);

/// What discovery found: the endpoints, and the key cache when there are keys.
#[derive(Debug)]
struct Discovered {
    metadata: AsMetadata,
    jwks: Option<Jwks>,
}

/// The verifier of one protected server.
#[derive(Debug)]
pub(crate) struct Verifier {
    config: Authorization,
    client: AsClient,
    pub(crate) metadata: ResourceMetadata,
    /// Every scope supported, space-separated, for challenges.
    pub(crate) scope_hint: Option<String>,
    discovered: tokio::sync::OnceCell<Discovered>,
    /// When discovery last failed: no new attempt for [`RETRY_AFTER`].
    discovery_failed: Mutex<Option<Instant>>,
    introspection: IntrospectionCache,
    /// JWTs verified before, with their callers.
    verified: VerifiedTokens,
    /// The checks of DPoP requests, when they are accepted.
    pub(crate) dpop: Option<DpopGate>,
    /// Whether a caller's verified token is kept in its request, for a
    /// mounted remote that acts for it (token exchange).
    pub(crate) keeps_caller_tokens: bool,
}

impl Verifier {
    pub(crate) fn new(config: Authorization, declared: &BTreeSet<String>) -> Self {
        let scopes: BTreeSet<String> = config.scopes_supported.union(declared).cloned().collect();
        let dpop = config.dpop.clone().map(super::Dpop::into_gate);
        let metadata =
            ResourceMetadata::new(&config.resource, &config.issuer, &scopes, dpop.as_ref().map(|gate| gate.required));
        let scope_hint = (!scopes.is_empty()).then(|| scopes.iter().map(String::as_str).collect::<Vec<_>>().join(" "));
        Verifier {
            client: AsClient::new(config.request_timeout),
            introspection: IntrospectionCache::new(config.introspection_cache_ttl),
            config,
            metadata,
            scope_hint,
            discovered: tokio::sync::OnceCell::new(),
            discovery_failed: Mutex::new(None),
            verified: VerifiedTokens::default(),
            dpop,
            keeps_caller_tokens: false,
        }
    }

    /// Remembers `token` as verified for a minute, as a verified JWT is.
    #[cfg(test)]
    pub(crate) fn remember(&self, token: &str, caller: &Principal) {
        let exp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) + 60;
        self.verified.put(token, caller, Some(exp), std::time::Duration::ZERO);
    }

    /// The caller of `token`, if that very token was verified before and is
    /// still good: no check of its form, no signature.
    pub(crate) fn seen_before(&self, token: &[u8]) -> Option<Principal> {
        self.verified.get(token)
    }

    /// The caller `token` stands for. The verified tokens were looked up
    /// already ([`seen_before`](Self::seen_before), by the bearer gate);
    /// a JWT verified here joins them.
    pub(crate) async fn verify(&self, token: &str) -> Result<Principal, Rejection> {
        let is_jwt = jwt::looks_like_jwt(token);
        // The header is checked before anything is fetched: a token of a
        // refused algorithm costs the issuer nothing.
        let header = if is_jwt { Some(jwt::header(token)?) } else { None };
        #[cfg(feature = "oauth-proxy")]
        if let Some(local) = &self.config.local_keys {
            let Some(header) = header else {
                return Err(Rejection::InvalidToken("the token is not a JWT, and opaque tokens are not accepted"));
            };
            let keys = local.key_set().await?;
            let claims = self.check_signed(&keys, token, &header)?;
            return Ok(self.verified(token, claims));
        }
        if !is_jwt && self.config.introspection.is_none() {
            return Err(Rejection::InvalidToken("the token is not a JWT, and opaque tokens are not accepted"));
        }
        let discovered = self.discovered().await?;
        let Some(header) = header else {
            return Ok(principal(self.introspect(discovered, token).await?));
        };
        let claims = self.verify_jwt(discovered, token, header).await?;
        Ok(self.verified(token, claims))
    }

    /// The caller of a verified JWT, remembered.
    fn verified(&self, token: &str, claims: Map<String, Value>) -> Principal {
        let exp = claims.get("exp").and_then(Value::as_u64);
        let caller = principal(claims);
        self.verified.put(token, &caller, exp, self.config.leeway);
        caller
    }

    async fn discovered(&self) -> Result<&Discovered, Rejection> {
        if let Some(discovered) = self.discovered.get() {
            return Ok(discovered);
        }
        let failed = *crate::sync::lock(&self.discovery_failed);
        if failed.is_some_and(|at| at.elapsed() < RETRY_AFTER) {
            return Err(Rejection::Unavailable("the authorization server's metadata could not be fetched".into()));
        }
        // Concurrent first requests wait for one discovery.
        let found = self
            .discovered
            .get_or_try_init(|| async {
                let metadata = discovery::discover(&self.client, &self.config.issuer).await?;
                tracing::info!(issuer = %self.config.issuer, ?metadata, "discovered the authorization server");
                let jwks =
                    metadata.jwks_uri.as_ref().map(|uri| Jwks::new(uri.clone(), self.config.jwks_refresh_interval));
                Ok::<_, DiscoveryError>(Discovered { metadata, jwks })
            })
            .await;
        found.map_err(|error| {
            match &error {
                DiscoveryError::Unreachable(_) => tracing::warn!(issuer = %self.config.issuer, %error),
                DiscoveryError::Unusable(_) => tracing::error!(issuer = %self.config.issuer, %error),
            }
            *crate::sync::lock(&self.discovery_failed) = Some(Instant::now());
            Rejection::Unavailable(error.to_string())
        })
    }

    async fn verify_jwt(
        &self,
        discovered: &Discovered,
        token: &str,
        header: jwt::Header,
    ) -> Result<Map<String, Value>, Rejection> {
        let Some(jwks) = &discovered.jwks else {
            return Err(Rejection::InvalidToken("the issuer publishes no keys: JWT access tokens are not accepted"));
        };
        let Some(keys) = jwks.lookup(&self.client, header.kid.as_deref(), header.alg).await? else {
            return Err(Rejection::InvalidToken("the token is signed with a key the issuer does not publish"));
        };
        self.check_signed(&keys, token, &header)
    }

    /// The claims of `token`, signed by one of `keys`, for this resource.
    fn check_signed(&self, keys: &KeySet, token: &str, header: &jwt::Header) -> Result<Map<String, Value>, Rejection> {
        let validation = jwt::validation(header.alg, &self.config.issuer, &self.config.resource, self.config.leeway);
        let mut outcome = Err(Rejection::InvalidToken("the token is signed with a key the issuer does not publish"));
        for key in keys.candidates(header.kid.as_deref(), header.alg) {
            outcome = jwt::decode(token, &key.key, &validation);
            if !matches!(outcome, Err(Rejection::InvalidToken("the token's signature does not verify"))) {
                break;
            }
        }
        outcome
    }

    async fn introspect(&self, discovered: &Discovered, token: &str) -> Result<Map<String, Value>, Rejection> {
        let (Some((id, secret)), Some(endpoint)) =
            (&self.config.introspection, &discovered.metadata.introspection_endpoint)
        else {
            return Err(Rejection::InvalidToken("the token is not a JWT, and the issuer offers no introspection"));
        };
        let with = Introspect {
            client: &self.client,
            endpoint,
            credentials: (id, secret),
            issuer: &self.config.issuer,
            resource: &self.config.resource,
            leeway: self.config.leeway,
        };
        introspect(&self.introspection, with, token).await
    }
}

// Built here rather than beside the settings, so `Authorization` stays a
// plain description the verifier reads and never depends on it.
impl Authorization {
    /// The verifier of a built server: `declared` are the scopes its tools,
    /// resources and prompts declare, published beside the configured ones.
    ///
    /// `keeps_caller_tokens`: whether a mounted remote acts for the callers
    /// (their verified tokens then stay in their requests, for it).
    pub(crate) fn into_verifier(self, declared: &BTreeSet<String>, keeps_caller_tokens: bool) -> Arc<Verifier> {
        let mut verifier = Verifier::new(self, declared);
        verifier.keeps_caller_tokens = keeps_caller_tokens;
        Arc::new(verifier)
    }
}

/// The principal of verified claims: `iss`, `sub`, `client_id`, and the
/// scopes of `scope` (space-separated, RFC 9068 §2.2.3) or of an `scp`
/// array.
fn principal(claims: Map<String, Value>) -> Principal {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let mut principal = match text("sub") {
        Some(sub) => Principal::new(sub),
        None => Principal::anonymous(),
    };
    if let Some(client_id) = text("client_id") {
        principal = principal.with_client_id(client_id);
    }
    if let Some(issuer) = text("iss") {
        principal = principal.with_issuer(issuer);
    }
    let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => scope.split_ascii_whitespace().map(str::to_owned).collect(),
        (_, Some(Value::Array(scp))) => scp.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    principal.with_scopes(scopes).with_claims(claims)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn claims_make_the_principal() {
        let Value::Object(claims) = json!({"iss": "https://as", "sub": "alice", "client_id": "app", "scope": "a  b"})
        else {
            unreachable!()
        };
        let alice = principal(claims);
        assert_eq!(alice.subject(), Some("alice"));
        assert_eq!(alice.client_id(), Some("app"));
        assert_eq!(alice.issuer(), Some("https://as"));
        assert!(alice.has_scopes(["a", "b"]));
        assert_eq!(alice.claim("scope"), Some(&json!("a  b")));
        let Value::Object(claims) = json!({"scp": ["x"]}) else { unreachable!() };
        let machine = principal(claims);
        assert_eq!(machine.subject(), None);
        assert!(machine.has_scope("x"));
    }
}
