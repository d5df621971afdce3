//! The builder's protection of the HTTP endpoint by OAuth bearer tokens.

use super::ServerBuilder;
use crate::auth::Authorization;

impl ServerBuilder {
    /// Protects the server's HTTP endpoint with OAuth 2.1 bearer tokens;
    /// see [`Authorization`]. stdio stays unauthenticated.
    #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
    pub fn authorization(mut self, authorization: Authorization) -> Self {
        self.authorization = Some(authorization);
        self.authenticated = true;
        self
    }
}
