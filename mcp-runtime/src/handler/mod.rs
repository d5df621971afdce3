//! The handler core: what a handler is and what it sees. The call it serves
//! ([`call`]) and its context ([`context`]), the typed parameters it takes
//! ([`extract`], [`http_request`], [`notify`], [`input`]), the traits that
//! make async functions of those parameters handlers ([`functions`]), and
//! what their results become ([`outcome`]).
//!
//! Everything here sits below the registry, the server and the transports:
//! it imports the protocol's types and nothing of what serves it.

pub(crate) mod call;
pub(crate) mod context;
#[cfg(feature = "http")]
pub(crate) mod extension;
pub(crate) mod extract;
pub(crate) mod functions;
pub(crate) mod http_request;
pub mod input;
pub(crate) mod notify;
pub(crate) mod outcome;
pub(crate) mod panic_guard;
pub(crate) mod principal;
pub(crate) mod state;
