//! What the front keeps in its store, each record as JSON under a key
//! that names its kind. Secrets (codes, refresh tokens, client secrets)
//! are kept only as digests: a copy of the store lets no one in.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::store::{ProxyStore, StoreError};

/// A client registered dynamically, or read from its metadata document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Client {
    pub(crate) client_id: String,
    /// The digest of its secret; `None` for a public client.
    pub(crate) secret_digest: Option<String>,
    pub(crate) client_name: Option<String>,
    pub(crate) redirect_uris: Vec<String>,
    /// Whether it registered the `refresh_token` grant.
    pub(crate) refreshes: bool,
}

/// An authorization asked for and checked, waiting for the person's consent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Asked {
    pub(crate) client_id: String,
    pub(crate) redirect_uri: String,
    /// Whether the request named it (else the one registered was taken):
    /// the token request must then name it too (OAuth 2.1 §4.1.3).
    pub(crate) redirect_named: bool,
    pub(crate) state: Option<String>,
    pub(crate) code_challenge: String,
    /// The scopes asked for; `None` when the request named none.
    pub(crate) scopes: Option<Vec<String>>,
    /// The digest of the browser cookie of the person who asked.
    pub(crate) browser: String,
}

/// A consented authorization, while the person is at the provider.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AtProvider {
    pub(crate) asked: Asked,
    pub(crate) nonce: String,
    pub(crate) verifier: String,
}

/// What a code, and then a refresh token, stands for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Grant {
    pub(crate) client_id: String,
    pub(crate) subject: String,
    pub(crate) scopes: Vec<String>,
}

/// A code issued to a client, until it is exchanged.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Code {
    pub(crate) grant: Grant,
    pub(crate) redirect_uri: String,
    pub(crate) redirect_named: bool,
    pub(crate) code_challenge: String,
}

/// A random secret: 32 bytes, base64url.
pub(crate) fn secret() -> Result<String, StoreError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| StoreError(format!("no randomness: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// SHA-256 of `text`, base64url: how secrets are kept and compared.
pub(crate) fn digest(text: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(text.as_bytes()))
}

/// Reads the record under `key`; one that cannot be read is absent.
pub(crate) async fn get<T: DeserializeOwned>(store: &dyn ProxyStore, key: &str) -> Result<Option<T>, StoreError> {
    Ok(store.get(key).await?.and_then(|text| serde_json::from_str(&text).ok()))
}

/// Takes the record under `key`: no one else will.
pub(crate) async fn take<T: DeserializeOwned>(store: &dyn ProxyStore, key: &str) -> Result<Option<T>, StoreError> {
    Ok(store.take(key).await?.and_then(|text| serde_json::from_str(&text).ok()))
}

/// Writes `record` under `key` for `ttl`.
pub(crate) async fn put<T: Serialize>(
    store: &dyn ProxyStore,
    key: &str,
    record: &T,
    ttl: std::time::Duration,
) -> Result<(), StoreError> {
    let text = serde_json::to_string(record).map_err(|e| StoreError(e.to_string()))?;
    store.put(key, &text, Some(ttl)).await
}
