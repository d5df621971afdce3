//! What the service keeps of the builder's task settings: the times every
//! task shares, and how callers are told apart. Kept apart from the
//! builder's `TaskConfig`, which builds the service and so sits above it.

use std::sync::Arc;
use std::time::Duration;

use crate::handler::context::RequestContext;

/// Names the owner of the tasks a request creates.
pub(crate) type OwnerFn = Arc<dyn Fn(&RequestContext) -> Option<String> + Send + Sync>;

/// What every task of a server shares.
#[derive(Debug, Clone)]
pub(crate) struct TaskSettings {
    /// How long after creation a task may be discarded; `None` for never.
    pub(crate) ttl: Option<Duration>,
    /// How often clients should poll.
    pub(crate) poll_interval: Option<Duration>,
    /// How long a runner's lease lasts; it is renewed at a third of that.
    pub(crate) lease: Duration,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Some(Duration::from_secs(1)),
            lease: Duration::from_secs(30),
        }
    }
}
