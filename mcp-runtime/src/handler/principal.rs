//! The authenticated caller of one request.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::handler::state::StateRequirement;

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
///
/// Cloning one is cheap (the caller is shared): a protected request hands
/// the same caller to the request's extensions, its scope checks and the
/// cache of verified tokens.
#[derive(Clone, Default, PartialEq)]
pub struct Principal(Arc<Caller>);

#[derive(Clone, Default, PartialEq)]
struct Caller {
    subject: Option<String>,
    client_id: Option<String>,
    scopes: BTreeSet<String>,
    claims: Map<String, Value>,
}

impl Principal {
    /// A caller known by its subject (`sub`), with no scopes yet.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal(Arc::new(Caller { subject: Some(subject.into()), ..Caller::default() }))
    }

    /// A caller with no subject: a token issued to a client acting for
    /// itself (client credentials) may carry none.
    pub fn anonymous() -> Self {
        Principal::default()
    }

    /// Sets the client the token was issued to (`client_id`).
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.0).client_id = Some(client_id.into());
        self
    }

    /// Adds scopes the token grants.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        Arc::make_mut(&mut self.0).scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Sets every claim the token carried (a JWT's payload, or the
    /// introspection response for an opaque token).
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        Arc::make_mut(&mut self.0).claims = claims;
        self
    }

    /// The subject (`sub`), if the token names one.
    pub fn subject(&self) -> Option<&str> {
        self.0.subject.as_deref()
    }

    /// The client the token was issued to, if it says.
    pub fn client_id(&self) -> Option<&str> {
        self.0.client_id.as_deref()
    }

    /// The scopes the token grants, in order.
    pub fn scopes(&self) -> &BTreeSet<String> {
        &self.0.scopes
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.0.scopes.contains(scope)
    }

    /// Whether the token grants every one of `scopes` (true for none).
    pub fn has_scopes<'a>(&self, scopes: impl IntoIterator<Item = &'a str>) -> bool {
        scopes.into_iter().all(|s| self.has_scope(s))
    }

    /// One claim of the token, e.g. `"email"`.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.0.claims.get(name)
    }

    /// Every claim of the token.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.0.claims
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Caller { subject, client_id, scopes, claims } = &*self.0;
        f.debug_struct("Principal")
            .field("subject", subject)
            .field("client_id", client_id)
            .field("scopes", scopes)
            .field("claims", claims)
            .finish()
    }
}

/// What a handler taking [`Principal`] needs: a server built with
/// authentication. Checked with the state requirements, when the server is
/// built, so a server that could never give the handler a caller does not
/// start.
struct Authenticated;

/// The requirement of a handler that takes [`Principal`].
pub(crate) fn authenticated_requirement() -> StateRequirement {
    StateRequirement::of::<Authenticated>()
}

/// Whether `requirement` is the one of a handler that takes [`Principal`].
pub(crate) fn is_authenticated_requirement(requirement: &StateRequirement) -> bool {
    requirement.type_id == std::any::TypeId::of::<Authenticated>()
}
