//! Authorization: who is calling, and what they may do.
//!
//! On HTTP a protected server verifies each request's bearer token on its
//! own (there is no session to lean on) and hands the dispatcher the
//! [`Principal`] the token stands for; the dispatcher then checks the scopes
//! each tool, resource and prompt declares. stdio is never authenticated:
//! a process started by its client takes its credentials from the
//! environment.
//!
//! # Scopes
//!
//! An entry declares the scopes a caller must be granted, all of them, with
//! `scopes = [...]` on `#[tool]`, `#[resource]` and `#[prompt]`, or
//! [`ToolEntry::scopes`](crate::entry::ToolEntry::scopes) and its kin. On an
//! authenticated server, for a request that came over HTTP:
//!
//! - `tools/call`, `prompts/get` and `resources/read` of an entry whose
//!   scopes the caller lacks are refused before the handler runs, with
//!   HTTP 403, `WWW-Authenticate: Bearer error="insufficient_scope",
//!   scope="<every scope the entry needs>"` (RFC 6750 §3.1), and a JSON-RPC
//!   error whose `data.requiredScopes` names the same scopes;
//! - `tools/list`, `prompts/list`, `resources/list` and
//!   `resources/templates/list` show only the entries the caller may use,
//!   page after page (a cursor names the last item shown, so nothing is
//!   skipped or repeated), and `server/discover` advertises only the
//!   capabilities of what the caller can see (a list whose capability it
//!   is not shown answers `-32601`, as for any unadvertised capability);
//!   all of them carry `cacheScope: "private"`, since they vary with the
//!   caller;
//! - `completion/complete` of a prompt or template the caller may not see
//!   answers as for an unknown reference.
//!
//! `subscriptions/listen` streams are not filtered: they tell that a list
//! changed, never what is in it. A task's scopes are checked when the
//! `tools/call` that starts it is; to keep its result from other callers,
//! bind it to its owner with
//! [`ServerBuilder::task_owner`] (the caller's subject, say; `tasks`
//! feature).
//!
//! A request reaching an authenticated server over HTTP without a
//! [`Principal`] is granted no scope: it sees and uses only what declares
//! none. Over stdio, in process, and on a server without authentication,
//! scopes are not checked: everything is listed and callable, so one
//! definition serves a local stdio process and a protected deployment.
//! Serving such a server over HTTP logs a warning that its scopes are not
//! enforced.
//!
//! [`Server::declared_scopes`](crate::Server::declared_scopes) is every
//! scope declared, for the `scopes_supported` of the Protected Resource
//! Metadata.
//!
//! # Visibility by caller
//!
//! Scopes say what a token grants; a rule of the application's own says
//! who an entry is for: `visible_to(rule)` on an entry (or `visible_to =
//! path` in the attribute macros) shows it only to the callers the rule
//! admits, reading the verified principal ([`Viewer`](crate::entry::Viewer)).
//! To everyone else it does not exist: lists, `server/discover`,
//! completion and tool search leave it out, and a call, get or read of it
//! is answered as one of an unknown name (not 403). A rule applies on every
//! transport; over stdio and in process no principal is known.
//!
//! With the `auth` feature, `Authorization` makes a server an OAuth 2.1
//! resource server: see there for what is checked and how, and `Dpop` for
//! tokens bound to a key.
#![cfg_attr(feature = "tasks", doc = "\n\n[`ServerBuilder::task_owner`]: crate::ServerBuilder::task_owner")]
#![cfg_attr(not(feature = "tasks"), doc = "\n\n[`ServerBuilder::task_owner`]: crate::tasks::TaskSupport")]

#[cfg(feature = "auth")]
mod challenge;
#[cfg(any(feature = "auth", feature = "client-auth"))]
pub(crate) mod client;
#[cfg(feature = "auth")]
mod config;
#[cfg(any(feature = "auth", feature = "client-auth"))]
pub(crate) mod discovery;
#[cfg(feature = "auth")]
pub(crate) mod dpop;
#[cfg(feature = "auth")]
mod introspection;
#[cfg(feature = "auth")]
pub(crate) mod jwks;
#[cfg(feature = "auth")]
pub(crate) mod jwt;
#[cfg(feature = "auth")]
mod metadata;
#[cfg(feature = "auth")]
mod rejection;
#[cfg(feature = "auth")]
mod verified;
#[cfg(feature = "auth")]
mod verifier;

pub use crate::handler::principal::Principal;
#[cfg(feature = "auth")]
pub(crate) use challenge::{ChallengeError, challenge, dpop_challenge};
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use config::Authorization;
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use dpop::{Dpop, ReplayStore};
#[cfg(feature = "oauth-proxy")]
pub(crate) use jwks::{KeySet, LocalKeys};
#[cfg(feature = "auth")]
pub(crate) use rejection::Rejection;
#[cfg(all(feature = "oauth-proxy", test))]
pub(crate) fn jwt_validation(alg: jsonwebtoken::Algorithm, issuer: &str, resource: &str) -> jsonwebtoken::Validation {
    jwt::validation(alg, issuer, resource, std::time::Duration::from_secs(60))
}
#[cfg(feature = "auth")]
pub(crate) use verifier::{RETRY_AFTER, Verifier};
