//! Where a client keeps the tokens (and the client id) it got from an
//! authorization server, by the protected server they are for.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
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
    /// `DPoP` when the token is bound to the client's key (RFC 9449):
    /// sent with a proof of it. A key lives as long as its process, so such
    /// tokens are of no use to the next run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
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

/// Tokens kept in a file, across runs: a JSON object mapping each server's
/// endpoint URL to its [`StoredTokens`], readable and writable by the
/// owner alone (mode 0600 on Unix; its folder, made when missing, 0700).
/// Each change is written to a new file beside it, then moved over it, so
/// that a reader never sees half a file. A file that does not read holds
/// nothing (and is replaced by the next write); one that cannot be written
/// keeps the tokens in memory for this run, with a warning logged.
///
/// ```no_run
/// use mcp_runtime::client::oauth::{FileTokenStore, OAuth};
/// let store = FileTokenStore::new("/home/me/.config/mcp/tokens.json");
/// let oauth = OAuth::new("http://127.0.0.1:8976/callback").token_store(store);
/// # let _ = oauth;
/// ```
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    /// One writer at a time within this process.
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// Tokens kept in the file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore { path: path.into(), lock: Mutex::new(()) }
    }

    /// Where the tokens are kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> BTreeMap<String, StoredTokens> {
        std::fs::read(&self.path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
    }

    fn write(&self, all: &BTreeMap<String, StoredTokens>) -> std::io::Result<()> {
        use std::io::Write as _;
        if let Some(folder) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(folder)?;
        }
        let mut next = self.path.clone().into_os_string();
        next.push(".new");
        let next = PathBuf::from(next);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&next)?;
        file.write_all(&serde_json::to_vec_pretty(all).map_err(std::io::Error::other)?)?;
        file.sync_all()?;
        std::fs::rename(&next, &self.path)
    }

    /// Applies `change` to the file's tokens, and writes them if it changed
    /// anything.
    fn change(&self, change: impl FnOnce(&mut BTreeMap<String, StoredTokens>)) {
        let _one = crate::sync::lock(&self.lock);
        let mut all = self.read();
        let before = all.clone();
        change(&mut all);
        if all == before {
            return;
        }
        if let Err(error) = self.write(&all) {
            tracing::warn!(path = %self.path.display(), %error, "the tokens could not be written");
        }
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, server: &str) -> Option<StoredTokens> {
        let _one = crate::sync::lock(&self.lock);
        self.read().remove(server)
    }

    fn save(&self, server: &str, tokens: &StoredTokens) {
        self.change(|all| {
            all.insert(server.to_owned(), tokens.clone());
        });
    }

    fn forget(&self, server: &str) {
        self.change(|all| {
            all.remove(server);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(access: &str) -> StoredTokens {
        StoredTokens {
            issuer: "https://login.example.com".to_owned(),
            access_token: access.to_owned(),
            refresh_token: Some("r".to_owned()),
            scope: None,
            client_id: "c".to_owned(),
            client_secret: None,
            token_endpoint_auth_method: "none".to_owned(),
            token_endpoint: "https://login.example.com/token".to_owned(),
            token_type: None,
        }
    }

    #[test]
    fn a_file_keeps_each_servers_tokens_for_its_owner_alone() {
        let dir = std::env::temp_dir().join(format!("mcp-token-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("nested/tokens.json");
        let store = FileTokenStore::new(&path);
        assert!(store.load("https://a/mcp").is_none(), "nothing before the first write");
        store.forget("https://a/mcp");
        assert!(!path.exists(), "forgetting nothing writes nothing");
        store.save("https://a/mcp", &tokens("one"));
        store.save("https://b/mcp", &tokens("two"));
        // Another store of the same file, as the next run would have.
        let again = FileTokenStore::new(&path);
        assert_eq!(again.load("https://a/mcp").map(|t| t.access_token), Some("one".to_owned()));
        again.forget("https://a/mcp");
        assert!(store.load("https://a/mcp").is_none());
        assert_eq!(store.load("https://b/mcp").map(|t| t.access_token), Some("two".to_owned()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).expect("written").permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        }
        // A file that does not read holds nothing, and the next write replaces it.
        std::fs::write(&path, "not json").expect("written");
        assert!(store.load("https://b/mcp").is_none());
        store.save("https://c/mcp", &tokens("three"));
        assert_eq!(store.load("https://c/mcp").map(|t| t.access_token), Some("three".to_owned()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
