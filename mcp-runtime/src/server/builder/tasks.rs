//! The builder's settings of tasks (the `io.modelcontextprotocol/tasks`
//! extension).

use std::sync::Arc;
use std::time::Duration;

use super::ServerBuilder;
use crate::handler::context::RequestContext;
use crate::tasks::TaskStore;

/// The settings of tasks (the `io.modelcontextprotocol/tasks` extension),
/// for tools declared with `#[tool(task)]` or
/// [`ToolEntry::task`](crate::entry::ToolEntry::task).
#[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
impl ServerBuilder {
    /// Where tasks are kept (default: a [`MemoryTaskStore`](crate::tasks::MemoryTaskStore)).
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.tasks.store = Some(Arc::new(store));
        self
    }

    /// How long after its creation a task may be discarded, result
    /// included (default one hour); `None` keeps tasks until the store
    /// drops them. Sent to clients as `ttlMs`.
    pub fn task_ttl(mut self, ttl: Option<Duration>) -> Self {
        self.tasks.settings.ttl = ttl;
        self
    }

    /// How often clients should poll a task (default one second); sent as
    /// `pollIntervalMs`. Zero sends none.
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.tasks.settings.poll_interval = Some(interval);
        self
    }

    /// How long a process vouches for a task it runs before renewing (at a
    /// third of it; default 30 s). A task whose lease lapsed unfinished
    /// reads as `failed`: the process running it stopped. Matters with a
    /// store shared by replicas, which outlives the processes.
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.tasks.settings.lease = lease.max(Duration::from_millis(3));
        self
    }

    /// Names who makes a request, from its context (an authenticated
    /// principal an authorization middleware put in the HTTP request's
    /// extensions, say). A task is bound to the owner of the request that
    /// created it, and `tasks/get`, `tasks/update`, `tasks/cancel` and
    /// listen streams of another owner find no such task. By default the
    /// owner is the authenticated caller (its issuer, subject and client
    /// together), and on a server that does not authenticate no callers
    /// are told apart (every owner is `None`): the task id, 128 random
    /// bits, is the only key. The owner is also whose share of the task
    /// store a task takes ([`TaskRecord::quota`](crate::tasks::TaskRecord::quota)).
    ///
    /// ```
    /// use mcp_runtime::Server;
    ///
    /// let server = Server::builder("jobs", "1.0.0")
    ///     .task_owner(|cx| {
    ///         let user = cx.http_request()?.headers.get("x-user")?;
    ///         user.to_str().ok().map(str::to_owned)
    ///     })
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// ```
    pub fn task_owner(mut self, owner: impl Fn(&RequestContext) -> Option<String> + Send + Sync + 'static) -> Self {
        self.tasks.owner = Some(Arc::new(owner));
        self
    }
}
