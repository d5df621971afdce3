//! Where a client keeps the tokens (and the client id) it got from an
//! authorization server, by the protected server they are for.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// What an authorization left for the requests that follow: the tokens,
/// and the client id they were issued to, bound to the authorization
/// server that issued them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredTokens {
    /// The authorization server's issuer.
    pub issuer: String,
    /// Sent as `Authorization: Bearer` with every request.
    pub access_token: String,
    /// Traded for a new access token when the server refuses this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// The scopes asked for, space-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The client id the tokens were issued to.
    pub client_id: String,
    /// Its secret, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint:
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub token_endpoint_auth_method: String,
    /// Where a refresh token is traded.
    pub token_endpoint: String,
}

/// Where tokens are kept, by the protected server they are for (its
/// endpoint URL). Implement it to keep them across runs; the client reads
/// a server's tokens once, when it first needs them, and writes them each
/// time it gets new ones.
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens kept for `server`, if any.
    fn load(&self, server: &str) -> Option<StoredTokens>;
    /// Keeps `tokens` for `server`, replacing any.
    fn save(&self, server: &str, tokens: &StoredTokens);
    /// Forgets the tokens of `server`.
    fn forget(&self, server: &str);
}

/// Tokens kept in this process's memory, gone when it ends. Clones share
/// them.
///
/// ```
/// use mcp_runtime::client::oauth::{MemoryTokenStore, TokenStore};
/// let store = MemoryTokenStore::default();
/// assert!(store.load("https://mcp.example.com/mcp").is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemoryTokenStore(std::sync::Arc<Mutex<HashMap<String, StoredTokens>>>);

impl TokenStore for MemoryTokenStore {
    fn load(&self, server: &str) -> Option<StoredTokens> {
        crate::sync::lock(&self.0).get(server).cloned()
    }

    fn save(&self, server: &str, tokens: &StoredTokens) {
        crate::sync::lock(&self.0).insert(server.to_owned(), tokens.clone());
    }

    fn forget(&self, server: &str) {
        crate::sync::lock(&self.0).remove(server);
    }
}
