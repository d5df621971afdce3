//! Opaque tokens, asked about at the issuer's introspection endpoint (RFC
//! 7662), with answers kept a short while under a hash of the token (the
//! token itself is never stored).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::client::{AsClient, FetchError};
use super::rejection::Rejection;

/// The most answers kept; past it, expired ones go, then all.
const MAX_ENTRIES: usize = 10_000;

/// What the issuer said of a token, as far as this resource is concerned:
/// its claims when it is usable here, or why not.
type Verdict = Result<Map<String, Value>, &'static str>;

/// The answers of the last `ttl`, keyed by SHA-256 of the token.
#[derive(Debug)]
pub(crate) struct IntrospectionCache {
    ttl: Duration,
    entries: Mutex<HashMap<[u8; 32], (Instant, Verdict)>>,
}

impl IntrospectionCache {
    pub(crate) fn new(ttl: Duration) -> Self {
        IntrospectionCache { ttl, entries: Mutex::new(HashMap::new()) }
    }

    fn get(&self, key: &[u8; 32]) -> Option<Verdict> {
        let entries = crate::sync::lock(&self.entries);
        entries.get(key).filter(|(until, _)| Instant::now() < *until).map(|(_, verdict)| verdict.clone())
    }

    fn put(&self, key: [u8; 32], verdict: Verdict, exp: Option<u64>) {
        let mut ttl = self.ttl;
        // Never past the token's own end.
        if let Some(exp) = exp {
            ttl = ttl.min(Duration::from_secs(exp.saturating_sub(unix_now())));
        }
        if ttl.is_zero() {
            return;
        }
        let mut entries = crate::sync::lock(&self.entries);
        if entries.len() >= MAX_ENTRIES {
            let now = Instant::now();
            entries.retain(|_, (until, _)| now < *until);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(key, (Instant::now() + ttl, verdict));
    }
}

/// What one introspection needs besides the token.
pub(crate) struct Introspect<'a> {
    pub(crate) client: &'a AsClient,
    pub(crate) endpoint: &'a str,
    pub(crate) credentials: (&'a str, &'a str),
    pub(crate) issuer: &'a str,
    pub(crate) resource: &'a str,
    pub(crate) leeway: Duration,
}

/// The claims of an opaque token the issuer calls active, for this
/// resource and within its times.
pub(crate) async fn introspect(
    cache: &IntrospectionCache,
    with: Introspect<'_>,
    token: &str,
) -> Result<Map<String, Value>, Rejection> {
    let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
    if let Some(verdict) = cache.get(&key) {
        return verdict.map_err(Rejection::InvalidToken);
    }
    let form = [("token", token), ("token_type_hint", "access_token")];
    let answer = match with.client.post_form(with.endpoint, with.credentials, &form).await {
        Ok(answer) => answer,
        // Out of reach (no connection, no answer in time, a 5xx): try later.
        Err(FetchError::Unreachable(reason)) => {
            tracing::warn!(endpoint = with.endpoint, %reason, "introspection failed");
            return Err(Rejection::Unavailable(reason));
        }
        // The issuer refuses to introspect the token (a 4xx: oidc-provider
        // answers 400 to a token it cannot read): the token is what the
        // client sent, and no token the issuer will not vouch for passes.
        // A 401 or 403 may as well be the issuer refusing this server's own
        // credentials, a misconfiguration: the log says so.
        Err(FetchError::Status(status)) => {
            if matches!(status, 401 | 403) {
                tracing::error!(
                    endpoint = with.endpoint,
                    status,
                    "the introspection endpoint refused our credentials?"
                );
            } else {
                tracing::debug!(endpoint = with.endpoint, status, "the introspection endpoint refused the token");
            }
            return Err(Rejection::InvalidToken("the authorization server refused to introspect the token"));
        }
        // An answer that is not one: the issuer's fault, not the client's.
        Err(error @ FetchError::Invalid(_)) => {
            tracing::error!(endpoint = with.endpoint, %error, "the introspection endpoint answered nothing usable");
            return Err(Rejection::Unavailable(error.to_string()));
        }
    };
    let exp = answer.get("exp").and_then(Value::as_u64);
    let verdict = judge(answer, &with);
    cache.put(key, verdict.clone(), exp);
    verdict.map_err(Rejection::InvalidToken)
}

/// RFC 7662 §2.2 and the MCP audience rule: active, issued by our issuer
/// when it says, for our resource, and within `nbf`..`exp`.
fn judge(answer: Map<String, Value>, with: &Introspect<'_>) -> Verdict {
    if answer.get("active") != Some(&Value::Bool(true)) {
        return Err("the token is not active");
    }
    if let Some(iss) = answer.get("iss")
        && iss.as_str() != Some(with.issuer)
    {
        return Err("the token was issued by another issuer");
    }
    let for_us = match answer.get("aud") {
        Some(Value::String(aud)) => aud == with.resource,
        Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(with.resource)),
        _ => false,
    };
    if !for_us {
        return Err("the token is not for this resource");
    }
    let now = unix_now();
    let leeway = with.leeway.as_secs();
    if answer.get("exp").and_then(Value::as_u64).is_some_and(|exp| exp + leeway <= now) {
        return Err("the token has expired");
    }
    if answer.get("nbf").and_then(Value::as_u64).is_some_and(|nbf| nbf > now + leeway) {
        return Err("the token is not valid yet");
    }
    Ok(answer)
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn judged(answer: Value) -> Verdict {
        let client = AsClient::new(Duration::from_secs(1));
        let with = Introspect {
            client: &client,
            endpoint: "",
            credentials: ("", ""),
            issuer: "https://as.example",
            resource: "https://mcp.example/mcp",
            leeway: Duration::ZERO,
        };
        let Value::Object(answer) = answer else { unreachable!() };
        judge(answer, &with)
    }

    #[test]
    fn an_answer_must_be_active_for_this_resource_and_unexpired() {
        let later = unix_now() + 60;
        assert!(judged(json!({"active": true, "aud": "https://mcp.example/mcp", "exp": later})).is_ok());
        assert!(judged(json!({"active": true, "aud": ["x", "https://mcp.example/mcp"]})).is_ok());
        assert!(judged(json!({"active": false, "aud": "https://mcp.example/mcp"})).is_err());
        assert!(judged(json!({"active": true})).is_err(), "no audience");
        assert!(judged(json!({"active": true, "aud": "https://other.example"})).is_err());
        assert!(judged(json!({"active": true, "aud": "https://mcp.example/mcp", "exp": 1})).is_err());
        let other = json!({"active": true, "aud": "https://mcp.example/mcp", "iss": "https://evil.example"});
        assert!(judged(other).is_err());
    }

    #[test]
    fn the_cache_keeps_no_token_and_no_answer_past_the_tokens_end() {
        let cache = IntrospectionCache::new(Duration::from_secs(30));
        let key: [u8; 32] = Sha256::digest(b"secret-token").into();
        cache.put(key, Err("the token is not active"), None);
        assert!(cache.get(&key).is_some());
        let gone: [u8; 32] = Sha256::digest(b"expired").into();
        cache.put(gone, Ok(Map::new()), Some(unix_now()));
        assert!(cache.get(&gone).is_none());
    }
}
