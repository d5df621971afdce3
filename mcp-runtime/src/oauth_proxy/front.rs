//! [`Front`]: a built [`OAuthProxy`], and the routing of its requests.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::json;

use super::config::OAuthProxy;
use super::keys::Keys;
use super::records::{self, Client};
use super::store::StoreError;
use super::upstream::Provider;
use crate::auth::discovery::split_origin;

/// The most a request body to the front may weigh: forms and registrations
/// are a few hundred bytes.
pub(crate) const MAX_BODY: usize = 16 * 1024;
/// How long a request body may take to arrive.
pub(crate) const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client's metadata document is kept at least and at most.
const DOCUMENT_TTL: (Duration, Duration) = (Duration::from_secs(60), Duration::from_secs(24 * 60 * 60));

/// The endpoints below the issuer's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    Metadata,
    Register,
    Authorize,
    Consent,
    Callback,
    Token,
    Revoke,
    Jwks,
}

/// The front of one server.
pub(crate) struct Front {
    pub(crate) config: OAuthProxy,
    /// The issuer's path (`/oauth`), empty for an issuer at the root.
    base: String,
    metadata_path: String,
    pub(crate) keys: Keys,
    pub(crate) provider: Provider,
    pub(crate) metadata: Bytes,
    /// The scopes clients may ask for: those configured and those declared.
    scopes: BTreeSet<String>,
    /// Whether the issuer is `https`: the cookie is then `Secure`.
    pub(crate) secure: bool,
    /// How fast one address may write.
    pub(crate) pace: super::pace::Pace,
}

impl std::fmt::Debug for Front {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Front").field("issuer", &self.config.issuer).finish_non_exhaustive()
    }
}

impl Front {
    /// The front of `config`, whose keys `keys` are (shared with the
    /// server's verifier); `declared`: the scopes the server's entries
    /// declare, published beside the configured ones.
    pub(crate) fn new(config: OAuthProxy, keys: Keys, declared: &BTreeSet<String>) -> Arc<Front> {
        let (_, base) = split_origin(&config.issuer);
        let base = base.trim_end_matches('/').to_owned();
        let issuer = &config.issuer;
        let scopes: BTreeSet<String> = config.scopes_supported.iter().chain(declared).cloned().collect();
        let mut metadata = json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": format!("{issuer}/token"),
            "revocation_endpoint": format!("{issuer}/revoke"),
            "jwks_uri": format!("{issuer}/jwks"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "scopes_supported": scopes,
            "client_id_metadata_document_supported": config.client_documents.is_some(),
            "authorization_response_iss_parameter_supported": true,
        });
        if config.registration {
            metadata["registration_endpoint"] = format!("{issuer}/register").into();
        }
        Arc::new(Front {
            metadata_path: format!("/.well-known/oauth-authorization-server{base}"),
            secure: issuer.starts_with("https://"),
            base,
            keys,
            provider: Provider::new(config.upstream.clone()),
            pace: super::pace::Pace::new(config.writes_per_minute),
            metadata: Bytes::from(metadata.to_string()),
            scopes,
            config,
        })
    }

    /// The endpoint at `path`, if it is one of the front's.
    pub(crate) fn endpoint(&self, path: &str) -> Option<Endpoint> {
        if path == self.metadata_path {
            return Some(Endpoint::Metadata);
        }
        Some(match path.strip_prefix(self.base.as_str())? {
            "/register" if self.config.registration => Endpoint::Register,
            "/authorize" => Endpoint::Authorize,
            "/consent" => Endpoint::Consent,
            "/callback" => Endpoint::Callback,
            "/token" => Endpoint::Token,
            "/revoke" => Endpoint::Revoke,
            "/jwks" => Endpoint::Jwks,
            _ => return None,
        })
    }

    /// Whether clients may ask for `scope`.
    pub(crate) fn knows_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// Whether `path` is one of the front's.
    pub(crate) fn serves(&self, path: &str) -> bool {
        self.endpoint(path).is_some()
    }

    /// The issuer's path, where the browser cookie is sent.
    pub(crate) fn cookie_path(&self) -> &str {
        &self.base
    }

    /// The front's redirect URI at the provider.
    pub(crate) fn callback_uri(&self) -> String {
        format!("{}/callback", self.config.issuer)
    }

    /// Keeps a registered client for its full time once it used its
    /// registration (a code exchanged); a document's client is not renewed.
    pub(crate) async fn renew(&self, client: &Client) -> Result<(), StoreError> {
        if self.config.client_documents.as_ref().is_some_and(|d| d.is_document_url(&client.client_id)) {
            return Ok(());
        }
        let key = format!("client:{}", records::digest(&client.client_id));
        records::put(&*self.config.store, &key, client, self.config.registration_ttl).await
    }

    /// The client `client_id` names: registered here, or (for an URL) its
    /// metadata document, fetched or cached; unknown for a document that
    /// does not pass (logged). A document not cached is fetched only if
    /// `may_fetch` says so: each fetch is an outbound request and a record
    /// made for whoever asks, so the endpoints not paced as a whole pace
    /// the fetches they cause.
    pub(crate) async fn client(&self, client_id: &str, may_fetch: impl FnOnce() -> bool) -> Result<Lookup, StoreError> {
        let documents = self.config.client_documents.as_ref().filter(|d| d.is_document_url(client_id));
        let Some(documents) = documents else {
            let key = format!("client:{}", records::digest(client_id));
            return Ok(records::get(&*self.config.store, &key).await?.map_or(Lookup::Unknown, Lookup::Known));
        };
        let key = format!("document:{}", records::digest(client_id));
        if let Some(known) = records::get(&*self.config.store, &key).await? {
            return Ok(Lookup::Known(known));
        }
        if !may_fetch() {
            return Ok(Lookup::Paced);
        }
        match documents.fetch(client_id).await {
            Ok((document, ttl)) => {
                let client = Client {
                    client_id: document.client_id,
                    secret_digest: None,
                    client_name: document.client_name,
                    redirect_uris: document.redirect_uris,
                    refreshes: true,
                };
                let ttl = ttl.clamp(DOCUMENT_TTL.0, DOCUMENT_TTL.1);
                records::put(&*self.config.store, &key, &client, ttl).await?;
                Ok(Lookup::Known(client))
            }
            Err(error) if error.is_unreachable() => {
                tracing::warn!(client_id, %error, "a client metadata document could not be fetched");
                Ok(Lookup::Unknown)
            }
            Err(error) => {
                tracing::info!(client_id, %error, "a client metadata document was refused");
                Ok(Lookup::Unknown)
            }
        }
    }
}

/// What looking a client up found.
pub(crate) enum Lookup {
    /// Registered here, or its metadata document read (now or earlier).
    Known(Client),
    /// Not registered, or its document could not be read or was refused.
    Unknown,
    /// Its document is not cached, and the caller may not make the front
    /// fetch one more now.
    Paced,
}
