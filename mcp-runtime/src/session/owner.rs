//! Who began a 2025-era session on an authenticated server, so that no
//! other caller can use it by knowing its id.
//!
//! A session id travels in a header, so it ends up in logs and proxies; a
//! valid token of someone else plus a leaked id must not reach the
//! session's elicitation answers, subscriptions, log level or standalone
//! stream. The owner is the token's identity, not the token: a client that
//! refreshes its token (same issuer, same subject) keeps its session.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::handler::principal::Principal;

/// The identity of the caller that began a session: the issuer of its
/// token (`iss`, when the token names one) and its subject (`sub`), or,
/// for a token without a subject (client credentials may have none), the
/// client it was issued to (`client_id`).
///
/// Every later request of the session must come from the same identity,
/// through any token: another caller is answered 404, as for a session
/// that does not exist. Tokens with neither a subject nor a client id are
/// indistinguishable, and so share one identity per issuer.
///
/// ```
/// use mcp_runtime::auth::Principal;
/// use mcp_runtime::session::SessionOwner;
///
/// let alice = Principal::new("alice").with_client_id("notes-app");
/// let owner = SessionOwner::of(&alice);
/// assert_eq!(owner.subject(), Some("alice"));
/// assert_eq!(owner.client_id(), None, "the subject is enough");
/// assert!(owner.is(&Principal::new("alice").with_client_id("another-app")));
/// assert!(!owner.is(&Principal::new("bob")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionOwner {
    #[serde(rename = "iss", default, skip_serializing_if = "Option::is_none")]
    issuer: Option<String>,
    #[serde(rename = "sub", default, skip_serializing_if = "Option::is_none")]
    subject: Option<String>,
    /// Set only without a subject: a subject and a client id of the same
    /// text are different callers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_id: Option<String>,
}

impl SessionOwner {
    /// The identity of `caller`.
    pub fn of(caller: &Principal) -> Self {
        let subject = caller.subject().map(str::to_owned);
        let client_id = match subject {
            Some(_) => None,
            None => caller.client_id().map(str::to_owned),
        };
        SessionOwner { issuer: issuer(caller).map(str::to_owned), subject, client_id }
    }

    /// Whether `caller` has this identity. Compares in place, without
    /// building the caller's identity: it runs on every request of a session.
    pub fn is(&self, caller: &Principal) -> bool {
        let who = match &self.subject {
            Some(subject) => caller.subject() == Some(subject),
            None => caller.subject().is_none() && caller.client_id() == self.client_id.as_deref(),
        };
        who && issuer(caller) == self.issuer.as_deref()
    }

    /// The issuer of the owner's token (`iss`), if it named one.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The owner's subject (`sub`), if its token named one.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The client the owner's token was issued to, when that token named
    /// no subject.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }
}

fn issuer(caller: &Principal) -> Option<&str> {
    caller.claim("iss").and_then(Value::as_str)
}

/// Whether `caller` may use a session begun by `owner`: the same identity,
/// or no caller for a session nobody authenticated began (a server without
/// authentication, stdio). A session with an owner is refused to a request
/// without a caller, and one without an owner (begun before sessions had
/// owners, say) to every caller.
pub(crate) fn may_use(owner: Option<&SessionOwner>, caller: Option<&Principal>) -> bool {
    match (owner, caller) {
        (Some(owner), Some(caller)) => owner.is(caller),
        (None, None) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;

    fn token(claims: Value) -> Principal {
        let Value::Object(claims) = claims else { unreachable!() };
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let mut caller = match text("sub") {
            Some(sub) => Principal::new(sub),
            None => Principal::anonymous(),
        };
        if let Some(client_id) = text("client_id") {
            caller = caller.with_client_id(client_id);
        }
        caller.with_claims(claims)
    }

    #[test]
    fn the_owner_is_the_issuer_and_the_subject_or_else_the_client() {
        let first = token(json!({"iss": "https://as", "sub": "alice", "client_id": "app", "jti": "1"}));
        let owner = SessionOwner::of(&first);
        // A refreshed token: another id, other scopes, even another client.
        let refreshed = token(json!({"iss": "https://as", "sub": "alice", "client_id": "cli", "jti": "2"}));
        assert!(may_use(Some(&owner), Some(&refreshed)));
        for stranger in [
            json!({"iss": "https://as", "sub": "bob", "client_id": "app"}),
            json!({"iss": "https://other", "sub": "alice"}),
            json!({"sub": "alice"}),
            json!({"iss": "https://as", "client_id": "alice"}),
        ] {
            assert!(!may_use(Some(&owner), Some(&token(stranger.clone()))), "{stranger}");
        }

        let machine = SessionOwner::of(&token(json!({"iss": "https://as", "client_id": "app"})));
        assert!(machine.is(&token(json!({"iss": "https://as", "client_id": "app", "jti": "3"}))));
        assert!(!machine.is(&token(json!({"iss": "https://as", "client_id": "other"}))));
        assert!(!machine.is(&token(json!({"iss": "https://as", "sub": "app", "client_id": "app"}))));
    }

    #[test]
    fn a_session_with_an_owner_and_one_without_are_each_closed_to_the_other_kind() {
        let owner = SessionOwner::of(&Principal::new("alice"));
        assert!(may_use(None, None));
        assert!(!may_use(Some(&owner), None));
        assert!(!may_use(None, Some(&Principal::new("alice"))));
    }

    #[test]
    fn comparing_in_place_agrees_with_comparing_identities() {
        let callers = [
            token(json!({"iss": "a", "sub": "x"})),
            token(json!({"iss": "a", "sub": "x", "client_id": "c"})),
            token(json!({"iss": "b", "sub": "x"})),
            token(json!({"sub": "x"})),
            token(json!({"iss": "a", "client_id": "x"})),
            token(json!({"iss": "a", "client_id": "c"})),
            token(json!({"iss": "a"})),
            token(json!({"iss": 7, "sub": "x"})),
            Principal::anonymous().with_claims(Map::new()),
        ];
        for first in &callers {
            let owner = SessionOwner::of(first);
            for other in &callers {
                assert_eq!(owner.is(other), owner == SessionOwner::of(other), "{first:?} / {other:?}");
            }
        }
    }

    #[test]
    fn an_owner_is_stored_under_short_names_and_read_back() {
        let owner = SessionOwner::of(&token(json!({"iss": "https://as", "client_id": "app"})));
        let stored = serde_json::to_value(&owner).unwrap();
        assert_eq!(stored, json!({"iss": "https://as", "clientId": "app"}));
        assert_eq!(serde_json::from_value::<SessionOwner>(stored).unwrap(), owner);
    }
}
