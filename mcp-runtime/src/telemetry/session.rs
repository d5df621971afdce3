//! The count of 2025-era sessions this process holds.

use super::metrics;

/// Counts one session held here for as long as it lives.
#[derive(Debug)]
pub(crate) struct LiveSession(());

impl LiveSession {
    pub(crate) fn new() -> Self {
        metrics::sessions(1);
        LiveSession(())
    }
}

impl Drop for LiveSession {
    fn drop(&mut self) {
        metrics::sessions(-1);
    }
}
