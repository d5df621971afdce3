//! DPoP on the resource server (RFC 9449): tokens bound to a key the
//! client holds, each request proving possession of it, so that a token
//! taken from the wire or a log is of no use alone.
//!
//! [`Dpop`] is the setting; what the HTTP transport checks with it lives
//! in [`DpopGate`].

mod nonce;
pub(crate) mod proof;
mod replay;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

use self::nonce::Nonces;
use self::proof::{ALGORITHMS, Expected};
pub(crate) use self::replay::CALLER_SHARE;
use self::replay::MemoryReplayStore;
pub use self::replay::ReplayStore;
use super::Principal;

/// The widest `iat` window the protocol allows: five minutes either way.
const MAX_AGE: Duration = Duration::from_secs(300);

/// Accepts DPoP-bound access tokens (RFC 9449) on a protected server:
/// `Authorization: DPoP <token>` with a `DPoP` proof on every request,
/// checked as RFC 9449 §4.3 and §7.1 say.
///
/// ```no_run
/// use mcp_runtime::Server;
/// use mcp_runtime::auth::{Authorization, Dpop};
///
/// # async fn run() -> std::io::Result<()> {
/// let auth = Authorization::new("https://auth.example.com", "https://mcp.example.com/mcp")
///     .dpop(Dpop::new().required().nonces(std::env::var("DPOP_NONCE_SECRET").unwrap_or_default()));
/// let server = Server::builder("notes", "1.0.0").authorization(auth).build().expect("a valid server");
/// server.serve_http("0.0.0.0:3000").await
/// # }
/// ```
///
/// What a request then goes through:
///
/// - the token is verified as a bearer token is (issuer, audience, expiry,
///   signature) and must be bound to a key: its `cnf.jkt` (RFC 9449 §6);
/// - exactly one `DPoP` header holds the proof: a JWS with `typ:
///   dpop+jwt`, an asymmetric algorithm (ES256, ES384, EdDSA, RS256…512,
///   PS256…512), the public key (`jwk`, no private member) it verifies
///   with and whose thumbprint is the token's `cnf.jkt`, a `jti`, `htm` the
///   request's method, `htu` its URL (the
///   [public URL](crate::transport::http::HttpConfig::public_url) when
///   the server is behind a proxy, else the scheme, `Host` and path it
///   was reached by; compared as RFC 3986 normalizes, query left out), an
///   `iat` within [`max_age`](Self::max_age) of now, and `ath` the hash
///   of the token;
/// - its `jti` was never accepted before (in the
///   [replay store](Self::replay_store));
/// - with [`nonces`](Self::nonces), its `nonce` is one the server handed
///   out lately.
///
/// A failed check is answered 401 with `WWW-Authenticate: DPoP
/// error="invalid_dpop_proof"` (or `invalid_token`, or `use_dpop_nonce`
/// with a `DPoP-Nonce` header), and the request reaches nothing. A token
/// bound to a key is never accepted as a bearer token, whatever this
/// setting: not the first time, and not after a DPoP request verified
/// it. The Protected Resource Metadata lists the algorithms
/// (`dpop_signing_alg_values_supported`) and whether bearer tokens are
/// refused (`dpop_bound_access_tokens_required`). Both eras are checked
/// alike: every HTTP request carries its own proof.
#[derive(Clone)]
pub struct Dpop {
    pub(crate) required: bool,
    nonce_secret: Option<Arc<[u8]>>,
    store: Option<Arc<dyn ReplayStore>>,
    /// The share of the memory store one caller may fill.
    caller_share: usize,
    max_age: Duration,
}

impl std::fmt::Debug for Dpop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The nonce secret stays out of logs.
        f.debug_struct("Dpop")
            .field("required", &self.required)
            .field("nonces", &self.nonce_secret.is_some())
            .field("shared_replay_store", &self.store.is_some())
            .field("caller_share", &self.caller_share)
            .field("max_age", &self.max_age)
            .finish()
    }
}

impl Default for Dpop {
    fn default() -> Self {
        Dpop::new()
    }
}

impl Dpop {
    /// DPoP-bound tokens accepted beside bearer tokens, proofs up to five
    /// minutes from now, their ids remembered in this process's memory.
    pub fn new() -> Self {
        Dpop { required: false, nonce_secret: None, store: None, caller_share: CALLER_SHARE, max_age: MAX_AGE }
    }

    /// Refuses bearer tokens: only `Authorization: DPoP` is accepted, and
    /// the metadata says `dpop_bound_access_tokens_required: true`.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Demands a server nonce in every proof (RFC 9449 §9): a proof
    /// without one, or with one older than one to two minutes, is answered
    /// `use_dpop_nonce` with a fresh nonce in `DPoP-Nonce`, for the client
    /// to try again. A proof made in advance is then worthless.
    ///
    /// Nonces keep no state: each is a time slot and its HMAC under
    /// `secret`. Replicas behind one load balancer must share the secret
    /// (32 random bytes, say), or a nonce from one is refused by the
    /// next. An empty secret is replaced by a random one of this process
    /// alone, with a warning.
    pub fn nonces(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.nonce_secret = Some(secret.as_ref().into());
        self
    }

    /// Where the ids of accepted proofs are remembered (default: this
    /// process's memory, at most 500,000 of them, and an eighth of that
    /// from one caller: a caller past its share is answered 503 until its
    /// proofs expire, and the others go on). Replicas must share one,
    /// such as `redis::RedisReplayStore` (`redis` feature), or a
    /// proof accepted by one could be replayed to another.
    pub fn replay_store(mut self, store: impl ReplayStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// How many proofs one caller may have remembered at once in this
    /// process's memory (default 62,500, an eighth of the store: about a
    /// hundred requests a second with the default `max_age`, whose proofs
    /// are remembered ten minutes). Past it, that caller's DPoP requests
    /// are answered 503 until its proofs expire, and the others' go on. At
    /// most the whole store (500,000). A [replay store](Self::replay_store)
    /// given instead keeps its own rule, such as `RedisReplayStore`'s
    /// `caller_share`.
    ///
    /// ```
    /// use mcp_runtime::auth::Dpop;
    ///
    /// // One busy service account on one server: up to 400 requests a second.
    /// let dpop = Dpop::new().caller_share(250_000);
    /// # let _ = dpop;
    /// ```
    pub fn caller_share(mut self, proofs: usize) -> Self {
        self.caller_share = proofs.clamp(1, replay::MEMORY_CAPACITY);
        self
    }

    /// How far a proof's `iat` may be from now, either way (default and
    /// most: five minutes, as the protocol requires). A shorter window
    /// tolerates less clock skew and remembers fewer proof ids.
    pub fn max_age(mut self, max_age: Duration) -> Self {
        self.max_age = max_age.min(MAX_AGE);
        self
    }

    /// The checks of a built server.
    pub(crate) fn into_gate(self) -> DpopGate {
        let secret = match self.nonce_secret {
            Some(secret) if !secret.is_empty() => Some(secret),
            Some(_) => {
                tracing::warn!("Dpop::nonces: an empty secret; nonces use a random secret of this process only");
                let mut random = [0u8; 32];
                getrandom::fill(&mut random).ok();
                Some(Arc::from(&random[..]))
            }
            None => None,
        };
        let max_age = self.max_age.as_secs().max(1);
        DpopGate {
            required: self.required,
            // A slot of a minute: a nonce lasts one to two.
            nonces: secret.map(|secret| Nonces::new(&secret, 60)),
            store: self.store.unwrap_or_else(|| Arc::new(MemoryReplayStore::with_share(self.caller_share))),
            max_age,
            algs: ALGORITHMS.iter().map(|(_, name)| *name).collect::<Vec<_>>().join(" "),
        }
    }
}

/// Why a DPoP request is refused.
#[derive(Debug)]
pub(crate) enum DpopRefusal {
    /// The proof is not good: `invalid_dpop_proof`, with its description.
    Proof(&'static str),
    /// The proof lacks the current nonce: `use_dpop_nonce`, with the nonce
    /// to use.
    Nonce(String),
    /// The replay store cannot be asked (503); logged only.
    Unavailable(String),
}

/// What a server checks of its DPoP requests.
pub(crate) struct DpopGate {
    pub(crate) required: bool,
    nonces: Option<Nonces>,
    store: Arc<dyn ReplayStore>,
    /// In seconds.
    max_age: u64,
    /// The accepted algorithms, space-separated, for challenges.
    pub(crate) algs: String,
}

impl std::fmt::Debug for DpopGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopGate").field("required", &self.required).field("max_age", &self.max_age).finish()
    }
}

impl DpopGate {
    /// The algorithm names the metadata lists.
    pub(crate) fn algorithm_names() -> Vec<&'static str> {
        ALGORITHMS.iter().map(|(_, name)| *name).collect()
    }

    /// Checks `proof`, made for a request of `method` to `url` (normalized)
    /// carrying `token`, bound to `jkt`, of `caller`; remembers its id once
    /// it passed.
    pub(crate) async fn check(
        &self,
        proof: &str,
        (method, url): (&str, &str),
        (token, jkt): (&str, &str),
        caller: &Principal,
    ) -> Result<(), DpopRefusal> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let expected = Expected { method, url, token, jkt, now, max_age: self.max_age };
        let proven = proof::check(proof, &expected).map_err(DpopRefusal::Proof)?;
        if let Some(nonces) = &self.nonces
            && !proven.nonce.as_deref().is_some_and(|nonce| nonces.accepts(nonce, now))
        {
            return Err(DpopRefusal::Nonce(nonces.current(now)));
        }
        // By key and id: another key's proof with the same jti is another proof.
        let mut digest = Sha256::new();
        digest.update(jkt.as_bytes());
        digest.update(b"\n");
        digest.update(proven.jti.as_bytes());
        let key = URL_SAFE_NO_PAD.encode(digest.finalize());
        // A proof is accepted while its iat is within the window of now:
        // for twice the window at most after it was first seen.
        let ttl = Duration::from_secs(2 * self.max_age + 1);
        let caller = URL_SAFE_NO_PAD.encode(caller.identity());
        match self.store.first_use(&caller, &key, ttl).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(DpopRefusal::Proof("the DPoP proof was used before")),
            Err(reason) => Err(DpopRefusal::Unavailable(reason)),
        }
    }
}

/// Marks a request whose token came with a valid proof of possession, in
/// its extensions: its refusals challenge with the `DPoP` scheme.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProvenPossession;

/// The thumbprint a verified token is bound to: its `cnf.jkt`.
pub(crate) fn bound_key(principal: &Principal) -> Option<&str> {
    principal.claim("cnf")?.get("jkt")?.as_str()
}
