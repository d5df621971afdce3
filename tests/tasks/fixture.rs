//! The server the task tests talk to: tools that run as tasks in every way
//! a task can end, ask for input, watch their cancellation token, or wait
//! for the test to let them finish, and owners told apart by the client's
//! name.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::input::Elicitation;
use mcp_runtime::tasks::{TaskStore, TaskSupport};
use mcp_runtime::{Args, CancellationToken, Input, Server, ServerBuilder, entry::ToolEntry};
use serde_json::Value;
use tokio::sync::Notify;

use super::wire::STUCK;

/// Flags the handlers raise when their token fires, and the gate `held`
/// waits at.
#[derive(Clone, Default)]
pub(crate) struct Probe {
    pub(crate) working_cancelled: Arc<AtomicBool>,
    pub(crate) asking_cancelled: Arc<AtomicBool>,
    /// Raised when the future of `ask`'s handler is dropped: whatever it
    /// answered has been handed over.
    pub(crate) asking_dropped: Arc<AtomicBool>,
    /// Lets `held` finish.
    pub(crate) release: Arc<Notify>,
}

/// Raises its flag when dropped.
struct RaiseOnDrop(Arc<AtomicBool>);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Probe {
    /// Waits until `flag` is raised.
    pub(crate) async fn raised(flag: &AtomicBool) {
        let deadline = tokio::time::Instant::now() + STUCK;
        while !flag.load(Ordering::SeqCst) {
            assert!(tokio::time::Instant::now() < deadline, "the handler's token never fired");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Work {
    /// How long to work, in milliseconds.
    ms: u64,
}

fn confirm() -> Elicitation {
    Elicitation::form("Go ahead?").boolean("confirm", true)
}

/// The builder of the server, for tests that change a setting.
pub(crate) fn builder(probe: &Probe) -> ServerBuilder {
    let (working, asking) = (Arc::clone(&probe.working_cancelled), Arc::clone(&probe.asking_cancelled));
    let (asking_dropped, release) = (Arc::clone(&probe.asking_dropped), Arc::clone(&probe.release));
    Server::builder("tasks", "1.0.0")
        .task_owner(|cx| cx.client_info().map(|info| info.name.clone()))
        .task_poll_interval(Duration::from_millis(50))
        .cancellation_grace(Duration::from_millis(200))
        .tool(ToolEntry::new("plain", || async { "plain" }))
        .tool(
            ToolEntry::new("work", move |Args(w): Args<Work>, cancel: CancellationToken| {
                let working = Arc::clone(&working);
                async move {
                    tokio::select! {
                        () = cancel.cancelled() => {
                            working.store(true, Ordering::SeqCst);
                            "stopped".to_owned()
                        }
                        () = tokio::time::sleep(Duration::from_millis(w.ms)) => format!("worked {} ms", w.ms),
                    }
                }
            })
            .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("held", move || {
                let release = Arc::clone(&release);
                async move {
                    release.notified().await;
                    "released"
                }
            })
            .task(TaskSupport::optional()),
        )
        .tool(ToolEntry::new("only_task", || async { "done" }).task(TaskSupport::required()))
        .tool(
            ToolEntry::new("tool_error", || async { Err::<String, String>("bad input".to_owned()) })
                .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("explode", || async {
                if std::hint::black_box(true) {
                    panic!("the handler fails on purpose");
                }
                "unreachable"
            })
            .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("ask", move |input: Input, cancel: CancellationToken| {
                let asking = Arc::clone(&asking);
                let dropped = RaiseOnDrop(Arc::clone(&asking_dropped));
                async move {
                    let _dropped = dropped;
                    tokio::select! {
                        () = cancel.cancelled() => {
                            asking.store(true, Ordering::SeqCst);
                            "stopped".to_owned()
                        }
                        answer = input.elicit("confirm", confirm()) => {
                            format!("confirmed: {}", answer.field("confirm").unwrap_or_default())
                        }
                    }
                }
            })
            .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("ask_two", |input: Input| async move {
                let (name, go) = tokio::join!(
                    input.elicit("name", Elicitation::form("Name?").text("name", true)),
                    input.elicit("go", confirm()),
                );
                format!("{} / {}", name.field("name").unwrap_or_default(), go.field("confirm").unwrap_or_default())
            })
            .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("sample", |input: Input| async move {
                let answer = input.sample("q", mcp_runtime::input::Sampling::prompt("Hi?", 5)).await;
                answer.text().unwrap_or_default().to_owned()
            })
            .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("decide_then_work", |input: Input| async move {
                let go = input.elicit("go", confirm()).await.field("confirm").unwrap_or_default();
                tokio::time::sleep(Duration::from_millis(50)).await;
                format!("decided {go}, then worked")
            })
            .task(TaskSupport::required().input_first()),
        )
}

/// The server with its defaults.
pub(crate) fn server(probe: &Probe) -> Server {
    builder(probe).build().expect("a valid server")
}

/// The server with its tasks kept in `store`.
pub(crate) fn server_with_store(store: impl TaskStore) -> Server {
    builder(&Probe::default()).task_store(store).build().expect("a valid server")
}

/// An accepted elicitation with `content`.
pub(crate) fn accept(content: Value) -> Value {
    serde_json::json!({"action": "accept", "content": content})
}
