//! The builder's task settings: the store, time to live, poll interval,
//! runner lease, and how callers are told apart.

use std::fmt;
use std::sync::Arc;

use super::memory::MemoryTaskStore;
use super::service::Tasks;
use super::settings::{OwnerFn, TaskSettings};
use super::store::TaskStore;
use crate::events::SharedBus;

/// What the builder collects about tasks.
#[derive(Default)]
pub(crate) struct TaskConfig {
    pub(crate) settings: TaskSettings,
    pub(crate) store: Option<Arc<dyn TaskStore>>,
    pub(crate) owner: Option<OwnerFn>,
}

impl fmt::Debug for TaskConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskConfig").field("settings", &self.settings).finish_non_exhaustive()
    }
}

impl TaskConfig {
    /// The tasks of a server built now, on `bus`.
    pub(crate) fn build(self, bus: SharedBus) -> Tasks {
        let store = self.store.unwrap_or_else(|| Arc::new(MemoryTaskStore::new()));
        Tasks::new(self.settings, store, self.owner, bus)
    }
}
