//! Locks that outlive a panic. A handler that panics while another task
//! holds one of the runtime's mutexes must not take the server down with
//! it: what the mutexes guard (tables, buffers, counters) stays usable, so a
//! poisoned lock is taken as it is.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, poisoned or not.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
