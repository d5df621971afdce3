//! `task`, `task(required)` and `task(optional, input_first)` declare how a
//! tool takes part in tasks, and the server advertises the extension.
#![deny(warnings)]

use mcp_runtime::tasks::TaskSupport;
use mcp_runtime::{CancellationToken, Input, tool};

/// May run as a task.
#[tool(task)]
async fn maybe(cancel: CancellationToken) -> bool {
    cancel.is_cancelled()
}

/// Runs only as a task.
#[tool(task(required))]
async fn always() -> &'static str {
    "done"
}

/// Asks first, then runs as a task.
#[tool(task(optional, input_first))]
async fn asks_first(input: Input) -> String {
    input.answer("go").map(ToString::to_string).unwrap_or_default()
}

/// Never a task.
#[tool]
fn never() -> i64 {
    1
}

fn main() {
    let server = mcp_runtime::server!("tasks", "1.0.0").build().expect("a valid server");
    let support = |name: &str| server.tools().find(|t| t.definition().name == name).and_then(|t| t.task_support());
    assert_eq!(support("maybe"), Some(TaskSupport::optional()));
    assert_eq!(support("always"), Some(TaskSupport::required()));
    assert_eq!(support("asks_first"), Some(TaskSupport::optional().input_first()));
    assert_eq!(support("never"), None);
    assert!(server.capabilities().extensions.is_some_and(|e| e.contains_key("io.modelcontextprotocol/tasks")));
}
