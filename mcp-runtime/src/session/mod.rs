//! The 2025-era protocol (2025-11-25, 2025-06-18, 2025-03-26): clients that
//! open with `initialize` and keep a session, served from the same
//! handlers as the stateless revision.
//!
//! Nothing here is on the stateless path, and the dispatcher knows nothing
//! of it: a session's request is rewritten into a 2026-07-28 request
//! carrying what `initialize` told, served by the dispatcher, and its
//! answer rewritten back. What only a session has (the
//! negotiated version, the log level, subscriptions, requests to the client
//! awaiting answers) lives in its session. Over HTTP, what can be shared of
//! it is a [`SessionRecord`] kept in a [`SessionStore`]: in memory by
//! default, in Redis ([`RedisSessionStore`], `redis` feature) for replicas
//! behind a load balancer that does not route by session.
//!
//! On an authenticated server a session belongs to the identity that
//! began it ([`SessionOwner`], kept in the record so that every replica
//! knows it): a request of that session from anyone else, with however
//! valid a token, is answered as for a session that does not exist.
//!
//! Which requests are a session's is decided per message: one carrying the 2026-07-28 `_meta` is
//! stateless whatever else it carries, so both eras share one endpoint
//! and one stdio process ([`Eras::Dual`](crate::server::Eras::Dual)).
#![cfg_attr(feature = "redis", doc = "\n\n[`RedisSessionStore`]: crate::redis::RedisSessionStore")]
// Without the feature the name leads to what the store implements.
#![cfg_attr(not(feature = "redis"), doc = "\n\n[`RedisSessionStore`]: crate::session::SessionStore")]

pub(crate) mod batch;
pub(crate) mod bridge;
pub(crate) mod delivery;
pub(crate) mod destination;
pub(crate) mod events;
pub(crate) mod initialize;
pub(crate) mod live;
pub(crate) mod message;
mod meta;
pub(crate) mod observe;
mod owner;
mod results;
mod shape;
mod store;

pub use owner::SessionOwner;
pub use store::{
    MemorySessionStore, SessionChange, SessionLimits, SessionRecord, SessionStore, StoreError, StoreFuture, Touched,
};

use crate::eras::SESSION_VERSIONS;
use crate::protocol::{ErrorObject, Method, PROTOCOL_VERSION};

/// The answer of a server that serves only 2025-era clients to a 2026-07-28
/// request: `server/discover` does not exist there, and anything else is
/// a version it does not speak, with the versions it does.
pub(crate) fn refuse_stateless(method: &str) -> ErrorObject {
    if method == Method::Discover.name() {
        return ErrorObject::method_not_found(method);
    }
    ErrorObject::unsupported_version(SESSION_VERSIONS, PROTOCOL_VERSION)
}
