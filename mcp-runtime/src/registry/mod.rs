//! The registry: what a server serves, before any request. The entries
//! ([`entry`]: a definition and its handler, with the scopes it declares),
//! checked and sorted into the [`catalog`] a snapshot of the server reads,
//! the link-time collection of annotated functions ([`link_time`]), the
//! fitting of tools' schemas to a provider's rules ([`schema_profile`]),
//! the `Mcp-Param-*` headers tools mirror ([`param_headers`]), the rules
//! of scopes ([`scopes`]), interactive views on the entries ([`views`]),
//! the skills served and their directories (`skills`), and the errors of
//! a build ([`error`]).
//!
//! It sits above the handler core (an entry holds a handler) and below the
//! server.

pub(crate) mod catalog;
pub(crate) mod catalog_dump;
pub(crate) mod entry;
mod entry_scopes;
#[cfg(test)]
mod entry_tests;
mod entry_visibility;
pub(crate) mod error;
pub(crate) mod link_time;
pub(crate) mod location;
pub(crate) mod param_headers;
pub(crate) mod schema_profile;
pub(crate) mod scopes;
#[cfg(feature = "skills")]
pub(crate) mod skills;
pub(crate) mod views;
pub(crate) mod visibility;
