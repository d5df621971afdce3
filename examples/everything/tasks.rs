//! Tools that run as tasks (the `io.modelcontextprotocol/tasks` extension),
//! as the conformance suite's `tasks-*` scenarios expect them, and the plain
//! tool those scenarios compare them with.

use std::time::Duration;

use mcp_runtime::input::Elicitation;
use mcp_runtime::{CancellationToken, Input, tool};

/// Greets someone, at once: never a task.
#[tool(annotations(read_only))]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds, then reports it; stops early when the task
/// is cancelled. A task for clients of the tasks extension.
#[tool(task)]
async fn slow_compute(
    /// How long to work.
    seconds: u64,
    /// A name for the run, repeated in the result.
    #[arg(default = String::new())]
    label: String,
    cancel: CancellationToken,
) -> String {
    tokio::select! {
        () = cancel.cancelled() => format!("Stopped `{label}` early"),
        () = tokio::time::sleep(Duration::from_secs(seconds)) => format!("Computed `{label}` in {seconds} s"),
    }
}

/// Fails after about a second, as a tool error the model can read: the
/// task still completes, with `isError`. Only as a task.
#[tool(task(required))]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("The job failed: its input was rejected".to_owned())
}

/// Panics: the task fails with a JSON-RPC error.
#[tool(task)]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("protocol_error_job always fails")
}

/// Asks the user to confirm deleting a file, then reports what happened.
#[tool(task)]
async fn confirm_delete(
    /// The file to delete.
    filename: String,
    input: Input,
) -> String {
    let form = Elicitation::form(format!("Delete {filename}?")).boolean("confirm", true);
    let answer = input.elicit("confirm_delete", form).await;
    match answer.parse::<serde_json::Value>().and_then(|c| c.get("confirm").and_then(serde_json::Value::as_bool)) {
        Some(true) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    }
}

/// Asks two things at once (a name, and a confirmation), then echoes them.
#[tool(task)]
async fn multi_input(input: Input) -> String {
    let (name, confirm) = tokio::join!(
        input.elicit("name", Elicitation::form("Your name?").text("name", true)),
        input.elicit("confirm", Elicitation::form("Go ahead?").boolean("confirm", true)),
    );
    format!("{} / {}", name.field("name").unwrap_or_default(), confirm.field("confirm").unwrap_or_default())
}

/// Asks for the user's name within the call (`input_required` round
/// trips), then works on as a task and greets them when done. Only as a
/// task.
#[tool(task(required, input_first))]
async fn test_tool_with_task(input: Input) -> String {
    let form = Elicitation::form("What is your name?").text("name", true);
    let name = input.elicit("user_name", form).await.field("name").unwrap_or_else(|| "stranger".to_owned());
    // The long part, which the task carries.
    tokio::time::sleep(Duration::from_millis(500)).await;
    format!("Hello, {name}! Your task is done.")
}
