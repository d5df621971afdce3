//! The authenticated caller of one request.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::handler::state::StateRequirement;

/// The caller a verified access token stands for: its issuer, its subject,
/// the client it was issued to, the scopes it grants and every claim it
/// carried.
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

#[derive(Clone, Default)]
struct Caller {
    issuer: Option<String>,
    subject: Option<String>,
    client_id: Option<String>,
    scopes: BTreeSet<String>,
    claims: Map<String, Value>,
    /// [`Principal::identity`], taken once: the verified-token cache hands
    /// the same caller to every request of its token.
    identity: OnceLock<[u8; 16]>,
}

impl PartialEq for Caller {
    fn eq(&self, other: &Self) -> bool {
        (&self.issuer, &self.subject, &self.client_id, &self.scopes, &self.claims)
            == (&other.issuer, &other.subject, &other.client_id, &other.scopes, &other.claims)
    }
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
        self.change().client_id = Some(client_id.into());
        self
    }

    /// Sets the issuer of the token (`iss`): two issuers' subjects of the
    /// same name are different callers.
    #[must_use]
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.change().issuer = Some(issuer.into());
        self
    }

    /// The caller, to change before it is shared; what was derived from it
    /// is taken again.
    fn change(&mut self) -> &mut Caller {
        let caller = Arc::make_mut(&mut self.0);
        caller.identity = OnceLock::new();
        caller
    }

    /// Adds scopes the token grants.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.change().scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Sets every claim the token carried (a JWT's payload, or the
    /// introspection response for an opaque token).
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.change().claims = claims;
        self
    }

    /// The issuer of the token (`iss`), if known.
    pub fn issuer(&self) -> Option<&str> {
        self.0.issuer.as_deref()
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

    /// Who this caller is, as limits, caches and sealed states tell callers
    /// apart: a digest of the issuer, the subject and the client id
    /// together (SHA-256, the first 128 bits), so that neither a subject
    /// of another issuer nor another client acting for the same subject
    /// shares it, and no choice of names makes two callers collide.
    pub(crate) fn identity(&self) -> [u8; 16] {
        *self.0.identity.get_or_init(|| {
            use sha2::{Digest as _, Sha256};
            let mut hash = Sha256::new();
            for part in [&self.0.issuer, &self.0.subject, &self.0.client_id] {
                // Each part with its length (or its absence) first: ("ab", "c")
                // and ("a", "bc") must differ.
                match part {
                    Some(text) => {
                        hash.update([1]);
                        hash.update((text.len() as u64).to_be_bytes());
                        hash.update(text.as_bytes());
                    }
                    None => hash.update([0]),
                }
            }
            let mut identity = [0u8; 16];
            identity.copy_from_slice(&hash.finalize()[..16]);
            identity
        })
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Caller { issuer, subject, client_id, scopes, claims, identity: _ } = &*self.0;
        f.debug_struct("Principal")
            .field("issuer", issuer)
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
