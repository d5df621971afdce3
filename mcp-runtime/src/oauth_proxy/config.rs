//! [`OAuthProxy`] and [`Upstream`]: what the front is told.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::client_document::ClientDocuments;
use super::store::{MemoryProxyStore, ProxyStore};
use crate::auth::Principal;

/// The rule that says which scopes a person gets, from what the provider
/// said of them.
pub(crate) type ScopeRule = Arc<dyn Fn(&Principal) -> Vec<String> + Send + Sync>;

/// The identity provider behind the front, and the one client registered
/// there for it, whose redirect URI is the front's `<issuer>/callback`.
///
/// The provider must speak OpenID Connect: the person is known by the ID
/// token's claims (`sub` first), verified against the provider's keys.
#[derive(Clone)]
pub struct Upstream {
    pub(crate) issuer: String,
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
    /// `None`: found by discovery.
    pub(crate) endpoints: Option<Endpoints>,
    pub(crate) scopes: Vec<String>,
}

/// The provider's endpoints, when given rather than discovered.
#[derive(Debug, Clone)]
pub(crate) struct Endpoints {
    pub(crate) authorization: String,
    pub(crate) token: String,
    pub(crate) jwks: String,
}

impl Upstream {
    /// The provider at `issuer` (its issuer identifier, compared exactly
    /// with its metadata's and its ID tokens'), where the front is the
    /// client `client_id` with `client_secret` (sent with HTTP Basic). Its
    /// endpoints are read from its OpenID Connect discovery document (or
    /// RFC 8414 metadata) on the first authorization, unless
    /// [`endpoints`](Self::endpoints) gives them.
    pub fn new(issuer: impl Into<String>, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Upstream {
            issuer: issuer.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            endpoints: None,
            scopes: vec!["openid".to_owned()],
        }
    }

    /// The provider's authorization and token endpoints and its key set,
    /// for a provider without a discovery document: nothing is discovered.
    pub fn endpoints(
        mut self,
        authorization: impl Into<String>,
        token: impl Into<String>,
        jwks: impl Into<String>,
    ) -> Self {
        self.endpoints =
            Some(Endpoints { authorization: authorization.into(), token: token.into(), jwks: jwks.into() });
        self
    }

    /// Scopes asked of the provider besides `openid` (such as `email`,
    /// `profile`), for the claims the [scope rule](OAuthProxy::grant_scopes)
    /// reads.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        for scope in scopes {
            let scope = scope.into();
            if !self.scopes.contains(&scope) {
                self.scopes.push(scope);
            }
        }
        self
    }
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The client secret stays out of logs.
        f.debug_struct("Upstream")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("endpoints", &self.endpoints)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// An authorization server for MCP clients in front of an identity
/// provider: see [the module](super). Given to
/// [`ServerBuilder::oauth_proxy`](crate::ServerBuilder::oauth_proxy), it
/// also makes the server a resource server for the tokens it issues.
#[derive(Clone)]
pub struct OAuthProxy {
    pub(crate) issuer: String,
    pub(crate) resource: String,
    pub(crate) upstream: Upstream,
    pub(crate) store: Arc<dyn ProxyStore>,
    pub(crate) scopes_supported: BTreeSet<String>,
    pub(crate) rule: Option<ScopeRule>,
    pub(crate) access_token_ttl: Duration,
    pub(crate) refresh_token_ttl: Duration,
    pub(crate) registration_ttl: Duration,
    pub(crate) registration: bool,
    pub(crate) client_documents: Option<ClientDocuments>,
    pub(crate) writes_per_minute: u32,
}

impl fmt::Debug for OAuthProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthProxy")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("upstream", &self.upstream)
            .field("scopes_supported", &self.scopes_supported)
            .field("access_token_ttl", &self.access_token_ttl)
            .field("refresh_token_ttl", &self.refresh_token_ttl)
            .field("registration_ttl", &self.registration_ttl)
            .field("registration", &self.registration)
            .field("client_documents", &self.client_documents)
            .field("writes_per_minute", &self.writes_per_minute)
            .finish_non_exhaustive()
    }
}

impl OAuthProxy {
    /// The front at `issuer` (its issuer identifier, an URL whose path the
    /// endpoints go below, such as `https://mcp.example.com/oauth`; no
    /// trailing slash), issuing tokens for `resource` (this server's MCP
    /// endpoint as clients reach it), relaying to `upstream`.
    ///
    /// Until [`grant_scopes`](Self::grant_scopes) says otherwise nobody is
    /// granted a scope: people can sign in, and use what declares none.
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>, upstream: Upstream) -> Self {
        OAuthProxy {
            issuer: issuer.into().trim_end_matches('/').to_owned(),
            resource: resource.into(),
            upstream,
            store: Arc::new(MemoryProxyStore::new()),
            scopes_supported: BTreeSet::new(),
            rule: None,
            access_token_ttl: Duration::from_secs(15 * 60),
            refresh_token_ttl: Duration::from_secs(30 * 24 * 60 * 60),
            registration_ttl: Duration::from_secs(90 * 24 * 60 * 60),
            registration: true,
            client_documents: Some(ClientDocuments::new()),
            writes_per_minute: 60,
        }
    }

    /// Where clients, authorizations, codes, refresh tokens and the
    /// signing key are kept (default: this process's memory). Replicas
    /// share one store.
    pub fn store(mut self, store: impl ProxyStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Scopes published in the metadata, besides those the server's tools,
    /// resources and prompts declare.
    pub fn scopes_supported<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Which scopes a person may be granted, from the provider's verified
    /// claims about them (a [`Principal`] with the provider's issuer, the
    /// `sub`, and every claim of the ID token). A token carries the scopes
    /// the client asked for that the rule grants, or all the rule grants
    /// when it asked for none. A rule that panics grants nothing.
    pub fn grant_scopes(mut self, rule: impl Fn(&Principal) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.rule = Some(Arc::new(rule));
        self
    }

    /// How long an access token is good for (default 15 minutes). Access
    /// tokens are verified without asking anyone, so revocation does not
    /// reach them: keep this short.
    pub fn access_token_ttl(mut self, ttl: Duration) -> Self {
        self.access_token_ttl = ttl;
        self
    }

    /// How long a refresh token is good for, if unused (default 30 days).
    /// Each use replaces it with a new one, good as long again.
    pub fn refresh_token_ttl(mut self, ttl: Duration) -> Self {
        self.refresh_token_ttl = ttl;
        self
    }

    /// How many registrations, authorization requests and consent answers
    /// one client address may make a minute (default 60, in a burst or
    /// spread; an IPv6 address counts by its /64; zero for no limit), token
    /// and revocation requests that make the front fetch a client's
    /// metadata document included. Each writes to the store before anyone
    /// is known (and a fetch is a request to an address of the caller's
    /// choosing): this keeps one address from filling it. Behind proxies, set
    /// [`HttpConfig::trusted_proxies`](crate::transport::http::HttpConfig::trusted_proxies),
    /// or every person counts as the proxy.
    pub fn writes_per_minute(mut self, per_minute: u32) -> Self {
        self.writes_per_minute = per_minute;
        self
    }

    /// How long a dynamically registered client is kept (default 90 days)
    /// once it has used its registration; one that never does is dropped
    /// after a day.
    pub fn registration_ttl(mut self, ttl: Duration) -> Self {
        self.registration_ttl = ttl;
        self
    }

    /// Whether clients may register dynamically (RFC 7591; default yes).
    pub fn dynamic_registration(mut self, enabled: bool) -> Self {
        self.registration = enabled;
        self
    }

    /// How Client ID Metadata Documents are fetched (default
    /// [`ClientDocuments::new`]); `None` turns them off, and a client id
    /// that is an URL is then unknown.
    pub fn client_documents(mut self, documents: Option<ClientDocuments>) -> Self {
        self.client_documents = documents;
        self
    }
}
