//! How a tool takes part in tasks: [`TaskSupport`], declared with
//! `#[tool(task)]` / `#[tool(task(required))]` or
//! [`ToolEntry::task`](crate::entry::ToolEntry::task).

/// Whether a tool may, or must, run as a task.
///
/// A call from a client that declares the tasks extension on its request
/// runs as a task either way. A call from one that does not runs as an
/// ordinary call for an [`optional`](Self::optional) tool, and is refused
/// with `-32021` (naming the extension) for a [`required`](Self::required)
/// one.
///
/// A task starts before the handler runs, unless the tool asks for
/// [`input_first`](Self::input_first).
///
/// Without the `tasks` feature (on by default) the extension is not
/// offered: an optional tool runs as an ordinary call for every client, and
/// a server with a required one is not built
/// ([`BuildError::MissingFeature`](crate::BuildError::MissingFeature)).
///
/// ```
/// use mcp_runtime::{tasks::TaskSupport, entry::ToolEntry};
///
/// let export = ToolEntry::new("export", || async { "exported" }).task(TaskSupport::required());
/// assert_eq!(export.task_support(), Some(TaskSupport::required()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TaskSupport {
    required: bool,
    input_first: bool,
}

impl TaskSupport {
    /// May run as a task: as one for clients that declare the extension, as
    /// an ordinary call for the others.
    pub const fn optional() -> Self {
        TaskSupport { required: false, input_first: false }
    }

    /// Runs only as a task: clients that do not declare the extension are
    /// refused with `-32021`.
    pub const fn required() -> Self {
        TaskSupport { required: true, input_first: false }
    }

    /// The handler first runs within the call: the input it asks for before
    /// it first waits on anything else is gathered with `input_required`
    /// round trips on the `tools/call` itself (the client retries the call
    /// with the answers), and the call becomes a task at that first other
    /// wait, the handler carrying on in it. A handler that finishes without
    /// such a wait answers the call at once. For tools that need a decision
    /// before committing to long work: the task then starts with it made.
    ///
    /// Input asked for once the task runs parks the task, as usual.
    pub const fn input_first(self) -> Self {
        TaskSupport { input_first: true, ..self }
    }

    /// Whether only a task can serve the tool.
    pub const fn is_required(self) -> bool {
        self.required
    }

    /// Whether the handler gathers its first input before the task starts.
    pub const fn is_input_first(self) -> bool {
        self.input_first
    }
}
