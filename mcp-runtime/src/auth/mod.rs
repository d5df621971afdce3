//! Authorization: who is calling, and what they may do.
//!
//! On HTTP a protected server verifies each request's bearer token on its
//! own (there is no session to lean on) and hands the dispatcher the
//! [`Principal`] the token stands for; the dispatcher then checks the scopes
//! each tool, resource and prompt declares. stdio is never authenticated:
//! a process started by its client takes its credentials from the
//! environment.

//!
//! With the `auth` feature, `Authorization` makes a server an OAuth 2.1
//! resource server: see there for what is checked and how.

#[cfg(feature = "auth")]
mod challenge;
#[cfg(feature = "auth")]
mod client;
#[cfg(feature = "auth")]
mod config;
#[cfg(feature = "auth")]
mod discovery;
#[cfg(feature = "auth")]
mod introspection;
#[cfg(feature = "auth")]
mod jwks;
#[cfg(feature = "auth")]
mod jwt;
#[cfg(feature = "auth")]
mod metadata;
mod principal;
#[cfg(feature = "auth")]
mod verifier;

#[cfg(feature = "auth")]
pub(crate) use challenge::{ChallengeError, challenge};
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use config::Authorization;
pub use principal::Principal;
#[cfg(feature = "auth")]
pub(crate) use verifier::{RETRY_AFTER, Rejection, Verifier};
