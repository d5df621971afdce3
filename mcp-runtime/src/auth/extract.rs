//! [`Principal`] as a handler parameter.

use super::Principal;
use super::scopes::authenticated_requirement;
use crate::handler::call::Call;
use crate::handler::extract::{FromCall, Rejection};
use crate::handler::state::StateRequirement;
use crate::protocol::ErrorObject;

/// The verified caller of `call`: the [`Principal`] in the extensions of
/// the HTTP request that carried it, on an authenticated server only (on
/// another, whatever a layer put there was never verified, and is ignored).
fn principal_of<C: Call>(call: &C) -> Option<Principal> {
    let cx = call.context();
    if !cx.is_authenticated() {
        return None;
    }
    #[cfg(feature = "http")]
    {
        cx.http_request().and_then(|parts| parts.extensions.get::<Principal>()).cloned()
    }
    #[cfg(not(feature = "http"))]
    {
        None
    }
}

/// The caller of an authenticated server. A server whose handler takes it
/// fails to build without authentication
/// ([`BuildError::Unauthenticated`](crate::BuildError::Unauthenticated)),
/// so that it is refused at startup, not on every call. A request without
/// a verified caller (over stdio, or dispatched in process) is refused with
/// `-32603`: the server is set up to be reached over authenticated HTTP
/// only, which is no mistake the model could correct.
impl<C: Call> FromCall<C> for Principal {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        principal_of(call).ok_or_else(|| {
            Rejection::Rpc(ErrorObject::internal(
                "This handler needs the authenticated caller, and this request has none: it did not come over authenticated HTTP",
            ))
        })
    }

    fn requirement() -> Option<StateRequirement> {
        Some(authenticated_requirement())
    }
}

/// The caller, when the request has a verified one: `None` over stdio, in
/// process, and on a server without authentication.
impl<C: Call> FromCall<C> for Option<Principal> {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(principal_of(call))
    }
}
