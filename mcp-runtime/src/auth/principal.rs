//! The authenticated caller of one request.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// The caller a verified access token stands for: its subject, the client
/// it was issued to, the scopes it grants and every claim it carried.
///
/// The HTTP transport of a protected server puts one into the request's
/// extensions once the token is verified; handlers read it as a
/// parameter. It is built by hand only to test a handler:
///
/// ```
/// use mcp_runtime::auth::Principal;
///
/// let alice = Principal::new("alice")
///     .with_client_id("notes-app")
///     .with_scopes(["notes:read", "notes:write"]);
/// assert!(alice.has_scope("notes:write"));
/// assert!(!alice.has_scope("admin"));
/// assert_eq!(alice.subject(), Some("alice"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Principal {
    subject: Option<String>,
    client_id: Option<String>,
    scopes: BTreeSet<String>,
    claims: Map<String, Value>,
}

impl Principal {
    /// A caller known by its subject (`sub`), with no scopes yet.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal { subject: Some(subject.into()), ..Principal::default() }
    }

    /// A caller with no subject: a token issued to a client acting for
    /// itself (client credentials) may carry none.
    pub fn anonymous() -> Self {
        Principal::default()
    }

    /// Sets the client the token was issued to (`client_id`).
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Adds scopes the token grants.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Sets every claim the token carried (a JWT's payload, or the
    /// introspection response for an opaque token).
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject (`sub`), if the token names one.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The client the token was issued to, if it says.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The scopes the token grants, in order.
    pub fn scopes(&self) -> &BTreeSet<String> {
        &self.scopes
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// Whether the token grants every one of `scopes` (true for none).
    pub fn has_scopes<'a>(&self, scopes: impl IntoIterator<Item = &'a str>) -> bool {
        scopes.into_iter().all(|s| self.has_scope(s))
    }

    /// One claim of the token, e.g. `"email"`.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// Every claim of the token.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}
