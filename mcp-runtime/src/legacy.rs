//! The former name of [`session`](crate::session), kept for one release:
//! each name here is deprecated, and its use warns, except the trait
//! `SessionStore`, which a path can carry but no alias can.

use crate::session as now;

/// The former path of [`session::MemorySessionStore`](crate::session::MemorySessionStore).
#[deprecated(note = "moved to `mcp_runtime::session::MemorySessionStore`")]
pub type MemorySessionStore = now::MemorySessionStore;

/// The former path of [`session::SessionChange`](crate::session::SessionChange).
#[deprecated(note = "moved to `mcp_runtime::session::SessionChange`")]
pub type SessionChange = now::SessionChange;

/// The former path of [`session::SessionLimits`](crate::session::SessionLimits).
#[deprecated(note = "moved to `mcp_runtime::session::SessionLimits`")]
pub type SessionLimits = now::SessionLimits;

/// The former path of [`session::SessionOwner`](crate::session::SessionOwner).
#[deprecated(note = "moved to `mcp_runtime::session::SessionOwner`")]
pub type SessionOwner = now::SessionOwner;

/// The former path of [`session::SessionRecord`](crate::session::SessionRecord).
#[deprecated(note = "moved to `mcp_runtime::session::SessionRecord`")]
pub type SessionRecord = now::SessionRecord;

/// The former path of [`session::StoreError`](crate::session::StoreError).
#[deprecated(note = "moved to `mcp_runtime::session::StoreError`")]
pub type StoreError = now::StoreError;

/// The former path of [`session::Touched`](crate::session::Touched).
#[deprecated(note = "moved to `mcp_runtime::session::Touched`")]
pub type Touched = now::Touched;

/// The former path of [`session::StoreFuture`](crate::session::StoreFuture).
#[deprecated(note = "moved to `mcp_runtime::session::StoreFuture`")]
pub type StoreFuture<'a, T> = now::StoreFuture<'a, T>;

pub use now::SessionStore;
