//! An OAuth 2.1 authorization server in front of an identity provider that
//! registers no clients itself (`oauth-proxy` feature).
//!
//! MCP clients register themselves, by a Client ID Metadata Document or
//! dynamic registration; most corporate identity providers accept
//! neither. [`OAuthProxy`] stands between them: to MCP clients it is an
//! authorization server (metadata, registration, `/authorize`, `/token`,
//! revocation, its key set); it sends the person on to the provider as
//! one client registered there beforehand, and, once the provider says who
//! they are, issues tokens of its own, for this server only, signed with a
//! key it keeps. The server it is built into verifies those tokens with
//! that key, without a request to anyone.
//!
//! ```no_run
//! use mcp_runtime::Server;
//! use mcp_runtime::oauth_proxy::{OAuthProxy, Upstream};
//!
//! # async fn run() -> std::io::Result<()> {
//! let upstream = Upstream::new("https://login.example.com", "mcp-front", "its secret");
//! let proxy = OAuthProxy::new("https://mcp.example.com/oauth", "https://mcp.example.com/mcp", upstream)
//!     .scopes_supported(["notes:read", "notes:write"])
//!     // Who gets what, from what the provider says of them.
//!     .grant_scopes(|person| match person.claim("email").and_then(|email| email.as_str()) {
//!         Some(email) if email.ends_with("@example.com") => vec!["notes:read".into(), "notes:write".into()],
//!         _ => vec!["notes:read".into()],
//!     });
//! let server = Server::builder("notes", "1.0.0").oauth_proxy(proxy).build().expect("a valid server");
//! server.serve_http("0.0.0.0:3000").await
//! # }
//! ```
//!
//! # What it serves
//!
//! Below the issuer's path (`/oauth` above), on the same port as the MCP
//! endpoint:
//!
//! | path | |
//! |---|---|
//! | `/.well-known/oauth-authorization-server/oauth` | its metadata (RFC 8414) |
//! | `/oauth/register` | dynamic client registration (RFC 7591) |
//! | `/oauth/authorize` | the authorization request, answered with a consent page |
//! | `/oauth/consent` | the person's answer to it |
//! | `/oauth/callback` | where the provider sends the person back (register this redirect URI there) |
//! | `/oauth/token` | codes and refresh tokens for access tokens |
//! | `/oauth/revoke` | revocation (RFC 7009) |
//! | `/oauth/jwks` | the public key its tokens are signed with |
//!
//! # What it checks
//!
//! - A client is one registered here (kept [`registration_ttl`](OAuthProxy::registration_ttl)),
//!   or an `https` URL whose Client ID Metadata Document is fetched within
//!   the limits of [`ClientDocuments`]: no private address, no redirect,
//!   a few kilobytes, a few seconds.
//! - A redirect URI must be one the client registered, exactly; for a
//!   loopback `http` URI (RFC 8252 §7.3) any port. Until it is checked no
//!   error is ever sent to it: the person sees an error page instead.
//! - Every authorization is shown to the person first, with the client's
//!   name and where it would send them: one client cannot ride another's
//!   consent. The page, the provider's callback and the answer are bound to
//!   the browser that asked (a cookie) and to one authorization.
//! - PKCE (S256) is required of the client, and the front uses a pair of
//!   its own toward the provider; the provider's ID token is verified
//!   (signature, issuer, audience, nonce, expiry) before anyone is named.
//! - Tokens: access tokens are JWTs (`typ: at+jwt`, ES256) for the one
//!   resource, with the scopes the [rule](OAuthProxy::grant_scopes) grants
//!   out of those asked; codes are single-use and live a minute; refresh
//!   tokens rotate on each use. Codes and refresh tokens are kept only as
//!   digests. The provider's own tokens are not kept, and never reach the
//!   client.
//!
//! What must outlive a request (clients, authorizations in progress,
//! codes, refresh tokens, the signing key) is in a [`ProxyStore`]: in
//! memory by default; `SqliteProxyStore` or `redis::RedisProxyStore` for a
//! restart or for replicas, which then share one signing key.

mod answers;
mod authorize;
mod client_document;
mod config;
mod front;
mod keys;
mod pace;
mod pkce;
mod records;
mod redirect;
mod registration;
mod routes;
#[cfg(feature = "sqlite")]
mod sqlite;
mod store;
mod token;
mod upstream;

pub use client_document::ClientDocuments;
pub use config::{OAuthProxy, Upstream};
pub(crate) use front::{BODY_TIMEOUT, Front, MAX_BODY};
pub(crate) use keys::Keys;
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub use sqlite::SqliteProxyStore;
pub use store::{MemoryProxyStore, ProxyStore, StoreError};
