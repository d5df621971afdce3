//! The issuer's signing keys (its JWKS), fetched when first needed and
//! again when a token names a key not in them, no more often than the
//! configured interval, one fetch at a time.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::client::AsClient;
use super::rejection::Rejection;

/// How long a key set is trusted without being fetched again, so a key
/// the issuer withdrew stops being accepted.
const MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// One usable key of the set.
pub(crate) struct Key {
    kid: Option<String>,
    /// The key's `alg`, when it names one: then only that algorithm.
    alg: Option<Algorithm>,
    pub(crate) key: DecodingKey,
}

impl Key {
    fn fits(&self, kid: Option<&str>, alg: Algorithm) -> bool {
        let kid_fits = kid.is_none_or(|kid| self.kid.as_deref() == Some(kid));
        let family_fits = self.key.family() == alg.family();
        kid_fits && family_fits && self.alg.is_none_or(|own| own == alg)
    }
}

/// A fetched key set.
pub(crate) struct KeySet {
    keys: Vec<Key>,
    fetched: Instant,
}

impl KeySet {
    /// A set of one key held by this process, which never needs fetching.
    #[cfg(feature = "oauth-proxy")]
    pub(crate) fn local(kid: String, alg: Algorithm, key: DecodingKey) -> Self {
        KeySet { keys: vec![Key { kid: Some(kid), alg: Some(alg), key }], fetched: Instant::now() }
    }

    /// The keys that may have signed a token with this `kid` and `alg`.
    pub(crate) fn candidates(&self, kid: Option<&str>, alg: Algorithm) -> impl Iterator<Item = &Key> {
        self.keys.iter().filter(move |k| k.fits(kid, alg))
    }

    fn has(&self, kid: Option<&str>, alg: Algorithm) -> bool {
        self.candidates(kid, alg).next().is_some()
    }
}

/// Keys known without asking anyone: those of an authorization server
/// built into this very server.
#[cfg(feature = "oauth-proxy")]
pub(crate) trait LocalKeys: Send + Sync + 'static {
    /// The keys tokens may be signed with; `Unavailable` while they cannot
    /// be had (the store that keeps them is out of reach).
    fn key_set(&self) -> crate::handler::BoxFuture<'_, Result<Arc<KeySet>, Rejection>>;
}

/// When the set was last fetched, and whether that worked.
#[derive(Default)]
struct LastFetch {
    at: Option<Instant>,
    ok: bool,
}

/// The cache of one issuer's keys.
pub(crate) struct Jwks {
    uri: String,
    min_interval: Duration,
    current: RwLock<Option<Arc<KeySet>>>,
    /// Held while fetching: concurrent misses wait for one fetch.
    fetching: tokio::sync::Mutex<LastFetch>,
}

impl std::fmt::Debug for Jwks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jwks").field("uri", &self.uri).finish_non_exhaustive()
    }
}

impl Jwks {
    pub(crate) fn new(uri: String, min_interval: Duration) -> Self {
        Jwks { uri, min_interval, current: RwLock::new(None), fetching: tokio::sync::Mutex::default() }
    }

    fn current(&self) -> Option<Arc<KeySet>> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn fresh_with(&self, kid: Option<&str>, alg: Algorithm) -> Option<Arc<KeySet>> {
        self.current().filter(|set| set.fetched.elapsed() < MAX_AGE && set.has(kid, alg))
    }

    /// A key set holding a key that fits `kid` and `alg`: `Ok(None)` when
    /// the issuer has none (or was asked too recently to ask again), an
    /// error when it cannot be reached and no key fits.
    pub(crate) async fn lookup(
        &self,
        client: &AsClient,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Option<Arc<KeySet>>, Rejection> {
        if let Some(set) = self.fresh_with(kid, alg) {
            return Ok(Some(set));
        }
        let mut last = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(set) = self.fresh_with(kid, alg) {
            return Ok(Some(set));
        }
        let held = self.current();
        let usable = held.clone().filter(|set| set.has(kid, alg));
        if let Some(at) = last.at
            && at.elapsed() < self.min_interval
        {
            return match (usable, last.ok) {
                (Some(set), _) => Ok(Some(set)),
                (None, true) => Ok(None),
                (None, false) => Err(Rejection::Unavailable("the issuer's keys could not be fetched".into())),
            };
        }
        let fetched = fetch(client, &self.uri).await;
        last.at = Some(Instant::now());
        last.ok = fetched.is_ok();
        match fetched {
            Ok(set) => {
                let set = Arc::new(set);
                *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&set));
                Ok(set.has(kid, alg).then_some(set))
            }
            Err(reason) => {
                tracing::warn!(uri = %self.uri, %reason, "fetching the issuer's keys failed");
                // A key already held is still good while the issuer is away.
                usable.map(Some).ok_or(Rejection::Unavailable(reason))
            }
        }
    }
}

async fn fetch(client: &AsClient, uri: &str) -> Result<KeySet, String> {
    let document = client.get_json(uri).await.map_err(|e| e.to_string())?;
    let Some(Value::Array(entries)) = document.get("keys") else {
        return Err("the key set has no `keys` array".into());
    };
    // Keys of types this server cannot use (or malformed ones) are skipped,
    // not fatal: the issuer may publish encryption keys beside them.
    let keys: Vec<Key> = entries
        .iter()
        .filter_map(|entry| serde_json::from_value::<Jwk>(entry.clone()).ok())
        .filter(|jwk| !matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)))
        .filter_map(|jwk| {
            let key = DecodingKey::from_jwk(&jwk).ok()?;
            let alg = jwk.common.key_algorithm.and_then(|a| a.to_string().parse::<Algorithm>().ok());
            Some(Key { kid: jwk.common.key_id.clone(), alg, key })
        })
        .collect();
    tracing::debug!(uri, keys = keys.len(), "fetched the issuer's keys");
    Ok(KeySet { keys, fetched: Instant::now() })
}
