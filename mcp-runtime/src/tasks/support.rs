//! How a tool takes part in tasks: [`TaskSupport`], declared with
//! `#[tool(task)]` / `#[tool(task(required))]` or
//! [`ToolEntry::task`](crate::ToolEntry::task).

/// Whether a tool may, or must, run as a task.
///
/// A call from a client that declares the tasks extension on its request
/// runs as a task either way. A call from one that does not runs as an
/// ordinary call for an [`optional`](Self::optional) tool, and is refused
/// with `-32021` (naming the extension) for a [`required`](Self::required)
/// one.
///
/// ```
/// use mcp_runtime::{ToolEntry, tasks::TaskSupport};
///
/// let export = ToolEntry::new("export", || async { "exported" }).task(TaskSupport::required());
/// assert_eq!(export.task_support(), Some(TaskSupport::required()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TaskSupport {
    required: bool,
}

impl TaskSupport {
    /// May run as a task: as one for clients that declare the extension, as
    /// an ordinary call for the others.
    pub const fn optional() -> Self {
        TaskSupport { required: false }
    }

    /// Runs only as a task: clients that do not declare the extension are
    /// refused with `-32021`.
    pub const fn required() -> Self {
        TaskSupport { required: true }
    }

    /// Whether only a task can serve the tool.
    pub const fn is_required(self) -> bool {
        self.required
    }
}
