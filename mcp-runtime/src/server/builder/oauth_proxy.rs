//! The builder's authorization server in front of an identity provider.

use super::ServerBuilder;
use crate::auth::Authorization;
use crate::oauth_proxy::{Keys, OAuthProxy};

impl ServerBuilder {
    /// Serves an OAuth authorization server for MCP clients beside the
    /// MCP endpoint, in front of an identity provider (see
    /// [`OAuthProxy`]), and protects the endpoint with the tokens it
    /// issues, verified with its own key: no request leaves the server to
    /// check one. Replaces any [`authorization`](Self::authorization).
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth-proxy")))]
    pub fn oauth_proxy(mut self, proxy: OAuthProxy) -> Self {
        let keys = Keys::new(std::sync::Arc::clone(&proxy.store));
        let mut authorization = Authorization::new(proxy.issuer.clone(), proxy.resource.clone())
            .scopes_supported(proxy.scopes_supported.clone());
        authorization.local_keys = Some(std::sync::Arc::new(keys.clone()));
        self.authorization = Some(authorization);
        self.authenticated = true;
        self.oauth_proxy = Some((proxy, keys));
        self
    }
}
