//! What ties a running handler's [`Input`](crate::Input) to its task: the
//! requests it waits on, each with the sender that resumes it, and the
//! answers it was given.
//!
//! A handler asking for input inside a task does not stop, as it does in a
//! plain call: it waits, the task turns `input_required` with the request
//! under its key, and `tasks/update` hands it the answer. Each change is
//! written to the store before the request that caused it is answered, so
//! that the next `tasks/get` sees it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tokio::sync::{Notify, oneshot};

use super::record::{TaskRecord, TaskStatus};
use crate::input::TaskChannel;
use crate::protocol::ErrorObject;

/// Where a link writes its task: the server's tasks. A trait rather than
/// the service's type, because the service holds the link of every task it
/// runs; the one implementation is known at compile time, so nothing is
/// looked up at run time.
pub(crate) trait TaskWriter: Send + Sync + 'static {
    /// Changes the task with `change` (which returns whether it changed
    /// anything), announced to listen streams; `None` when the task is gone.
    fn modify(
        &self,
        task_id: &str,
        change: impl FnMut(&mut TaskRecord) -> bool + Send,
    ) -> impl Future<Output = Result<Option<TaskRecord>, ErrorObject>> + Send;
}

/// One request the handler waits on.
struct Pending {
    request: Value,
    /// Whether a value is an answer of the kind awaited.
    fits: fn(&Value) -> bool,
    reply: oneshot::Sender<Value>,
}

#[derive(Default)]
struct State {
    /// In the order asked, which `inputRequests` keeps.
    pending: Vec<(String, Pending)>,
    answered: HashMap<String, Value>,
    /// Why the task cannot go on (it needs what the client cannot give).
    fatal: Option<ErrorObject>,
    /// The latest progress reported, not yet written as the status message.
    progress: Option<String>,
}

/// The input side of one running task, written through `W` (the server's
/// tasks).
pub(crate) struct TaskLink<W> {
    task_id: String,
    tasks: W,
    state: Mutex<State>,
    /// Serializes this process's writes of the task, so that a stale view
    /// of the pending requests never overwrites a newer one.
    writing: tokio::sync::Mutex<()>,
    failed: Notify,
}

impl<W> std::fmt::Debug for TaskLink<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLink").field("task_id", &self.task_id).finish_non_exhaustive()
    }
}

impl<W: TaskWriter> TaskLink<W> {
    pub(crate) fn new(task_id: String, tasks: W) -> Arc<Self> {
        Arc::new(TaskLink {
            task_id,
            tasks,
            state: Mutex::new(State::default()),
            writing: tokio::sync::Mutex::new(()),
            failed: Notify::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        crate::sync::lock(&self.state)
    }

    /// Waits for the answer to `request` under `key` that `fits`: at once
    /// if it was answered before, otherwise once `tasks/update` brings it;
    /// `None` if the task ended (cancelled, expired) while it waited.
    async fn wait(&self, key: &str, request: Value, fits: fn(&Value) -> bool) -> Option<Value> {
        let receiver = {
            let mut state = self.lock();
            if let Some(answer) = state.answered.get(key).filter(|a| fits(a)) {
                return Some(answer.clone());
            }
            let (reply, receiver) = oneshot::channel();
            state.pending.retain(|(k, _)| k != key);
            state.pending.push((key.to_owned(), Pending { request, fits, reply }));
            receiver
        };
        self.publish().await;
        receiver.await.ok()
    }

    /// Completes once [`TaskChannel::fail`] was called, with its error.
    pub(crate) async fn failure(&self) -> ErrorObject {
        loop {
            if let Some(error) = self.lock().fatal.take() {
                return error;
            }
            self.failed.notified().await;
        }
    }

    /// Hands the handler the answers to requests it waits on; answers to
    /// anything else are ignored. An answer of the wrong kind to a pending
    /// request is `-32602`, and nothing is handed over then.
    pub(crate) async fn answer(&self, responses: Map<String, Value>) -> Result<(), ErrorObject> {
        {
            let mut state = self.lock();
            for (key, value) in &responses {
                if let Some((_, pending)) = state.pending.iter().find(|(k, _)| k == key)
                    && !(pending.fits)(value)
                {
                    return Err(ErrorObject::invalid_params(format!(
                        "`inputResponses.{key}` is not an answer to the request it names"
                    )));
                }
            }
            for (key, value) in responses {
                let Some(at) = state.pending.iter().position(|(k, _)| *k == key) else { continue };
                let (_, pending) = state.pending.remove(at);
                state.answered.insert(key, value.clone());
                // A handler that stopped waiting (it ended) needs no answer.
                let _ = pending.reply.send(value);
            }
        }
        self.publish().await;
        Ok(())
    }

    /// Writes the pending requests to the task: `input_required` with them,
    /// or `working` once none is left.
    pub(crate) async fn publish(&self) {
        let _writing = self.writing.lock().await;
        let requests: Map<String, Value> =
            self.lock().pending.iter().map(|(k, p)| (k.clone(), p.request.clone())).collect();
        let status = if requests.is_empty() { TaskStatus::Working } else { TaskStatus::InputRequired };
        let written = self
            .tasks
            .modify(&self.task_id, |record| {
                if record.status.is_terminal() || (record.status == status && record.input_requests == requests) {
                    return false;
                }
                record.status = status;
                record.input_requests = requests.clone();
                true
            })
            .await;
        if let Err(e) = written {
            tracing::warn!(task = %self.task_id, error = %e.message, "a task's input requests could not be written");
        }
    }

    /// Runs `write` with this process's other writes of the task held off.
    pub(crate) async fn exclusive<T>(&self, write: impl Future<Output = T>) -> T {
        let _writing = self.writing.lock().await;
        write.await
    }
}

impl<W: TaskWriter> TaskChannel for TaskLink<W> {
    fn ask<'a>(
        &'a self,
        key: &'a str,
        request: Value,
        fits: fn(&Value) -> bool,
    ) -> std::pin::Pin<Box<dyn Future<Output = Option<Value>> + Send + 'a>> {
        Box::pin(self.wait(key, request, fits))
    }

    fn fail(&self, error: ErrorObject) {
        self.lock().fatal = Some(error);
        self.failed.notify_one();
    }

    /// Makes `progress` (of `total`, with `message`) the task's status
    /// message, written in the background: of reports made faster than
    /// the store takes them, the latest is kept.
    fn report(self: Arc<Self>, progress: f64, total: Option<f64>, message: Option<String>) {
        let text = match (message, total) {
            (Some(message), _) => message,
            (None, Some(total)) => format!("{progress}/{total}"),
            (None, None) => progress.to_string(),
        };
        self.lock().progress = Some(text);
        let link = self;
        tokio::spawn(async move {
            let _writing = link.writing.lock().await;
            let Some(text) = link.lock().progress.take() else { return };
            let written = link
                .tasks
                .modify(&link.task_id, |record| {
                    if record.status.is_terminal() || record.status_message.as_deref() == Some(text.as_str()) {
                        return false;
                    }
                    record.status_message = Some(text.clone());
                    true
                })
                .await;
            if let Err(e) = written {
                tracing::warn!(task = %link.task_id, error = %e.message, "a task's progress could not be written");
            }
        });
    }
}
