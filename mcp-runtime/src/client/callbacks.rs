//! [`SharedCallbacks`]: the callbacks that answer a server's requests for
//! input, shared by a client's clones and by its transports, which answer
//! a 2025-era server's requests as they come.

use std::sync::{Arc, RwLock};

use crate::answering::Callbacks;

/// The callbacks a client's transports answer with, set after they start.
pub(super) type SharedCallbacks = Arc<RwLock<Callbacks>>;

/// The callbacks as they are now.
pub(super) fn current(callbacks: &SharedCallbacks) -> Callbacks {
    callbacks.read().unwrap_or_else(|e| e.into_inner()).clone()
}
