//! The client a mounted remote is reached with for one request: the
//! mount's own, or, when the mount acts for its callers
//! ([`Remote::token_exchange`](crate::client::Remote::token_exchange)),
//! one carrying the token the authorization server issued for this
//! request's caller.

#[cfg(feature = "auth")]
use std::sync::Arc;

use crate::client::Client;
#[cfg(feature = "auth")]
use crate::client::delegation::{CallerToken, Delegation, Refused};
use crate::handler::context::RequestContext;
use crate::handler::outcome::RpcError;

/// How a mount's requests reach it: as this server, or as each caller.
#[cfg(feature = "auth")]
pub(crate) type Delegated = Option<Arc<Delegation>>;
/// How a mount's requests reach it: as this server.
#[cfg(not(feature = "auth"))]
pub(crate) type Delegated = ();

/// The client for the request of `context` to the mount `served`: `None`
/// for the mount's own `client`.
#[cfg(feature = "auth")]
pub(super) async fn client_for(
    client: &Client,
    delegated: &Delegated,
    context: &RequestContext,
    served: &str,
) -> Result<Option<Client>, RpcError> {
    use crate::handler::principal::Principal;
    use crate::protocol::ErrorObject;

    let Some(delegation) = delegated else { return Ok(None) };
    let parts = context.http_request();
    let caller = parts.and_then(|p| Some((p.extensions.get::<Principal>()?, p.extensions.get::<CallerToken>()?)));
    let outcome = match caller {
        Some((principal, token)) => delegation.token_for(principal, &token.0).await,
        None => Err(Refused::NoCaller),
    };
    match outcome {
        Ok(token) => Ok(Some(client.clone().bearer(token.to_string()))),
        Err(Refused::Unavailable(why)) => {
            tracing::warn!(mount = served, %why, "no token could be had for the caller");
            Err(ErrorObject::internal(format!("The server mounted at `{served}` cannot be reached for the caller now"))
                .into())
        }
        Err(refused) => {
            tracing::debug!(mount = served, %refused, "no token for the caller");
            Err(ErrorObject::invalid_request(format!(
                "The server mounted at `{served}` cannot be reached for this caller: {refused}"
            ))
            .into())
        }
    }
}

/// The client for a request to a mount: always its own.
#[cfg(not(feature = "auth"))]
pub(super) async fn client_for(
    _client: &Client,
    _delegated: &Delegated,
    _context: &RequestContext,
    _served: &str,
) -> Result<Option<Client>, RpcError> {
    Ok(None)
}
