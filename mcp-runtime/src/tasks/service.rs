//! [`Tasks`]: the tasks of one server: its store, the tasks this process
//! runs, and the rules every task method follows (ownership, expiry,
//! orphans, cancellation).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::clock::now_ms;
use super::config::{OwnerFn, TaskSettings};
use super::link::TaskLink;
use super::record::{RunnerLease, TaskRecord, TaskStatus};
use super::store::TaskStore;
use crate::context::RequestContext;
use crate::events::{ServerEvent, SharedBus};
use crate::protocol::ErrorObject;

/// How many times a write retries after losing a race on the revision.
const MAX_WRITE_ATTEMPTS: usize = 16;

/// How often, at most, expired tasks are swept from the store.
const SWEEP_EVERY_MS: u64 = 1_000;

/// A task this process runs.
#[derive(Clone)]
pub(crate) struct Running {
    pub(crate) cancel: CancellationToken,
    pub(crate) link: Arc<TaskLink>,
}

/// The tasks of one server. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Tasks {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn TaskStore>,
    settings: TaskSettings,
    owner: Option<OwnerFn>,
    /// A random id of this process, written into the leases it holds.
    process: String,
    bus: SharedBus,
    /// The tasks whose handlers run in this process. Cancellation reaches a
    /// handler through here; a store shared by replicas will have the event
    /// bus carry a cancel to the replica whose registry holds the task.
    running: Mutex<HashMap<String, Running>>,
    last_sweep_ms: AtomicU64,
}

/// The error of a task that is not there for this caller: unknown,
/// expired, or someone else's, which are told apart for no one.
fn unknown_task(task_id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Unknown task: `{task_id}`"))
}

impl Tasks {
    pub(crate) fn new(
        settings: TaskSettings,
        store: Arc<dyn TaskStore>,
        owner: Option<OwnerFn>,
        bus: SharedBus,
    ) -> Self {
        let process = super::id::new_task_id().unwrap_or_else(|_| format!("pid-{}", std::process::id()));
        Tasks {
            inner: Arc::new(Inner {
                store,
                settings,
                owner,
                process,
                bus,
                running: Mutex::new(HashMap::new()),
                last_sweep_ms: AtomicU64::new(0),
            }),
        }
    }

    pub(crate) fn settings(&self) -> &TaskSettings {
        &self.inner.settings
    }

    fn running(&self) -> MutexGuard<'_, HashMap<String, Running>> {
        self.inner.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Who makes the request of `cx`, as the owner of the tasks it creates.
    pub(crate) fn owner_of(&self, cx: &RequestContext) -> Option<String> {
        self.inner.owner.as_ref().and_then(|owner| owner(cx))
    }

    fn lease(&self, now: u64) -> RunnerLease {
        let lease_ms = u64::try_from(self.inner.settings.lease.as_millis()).unwrap_or(u64::MAX);
        RunnerLease { process: self.inner.process.clone(), until_ms: now.saturating_add(lease_ms) }
    }

    /// Stores a new `working` task run by this process: once this returns,
    /// `tasks/get` finds it.
    pub(crate) async fn create(&self, task_id: String, owner: Option<String>) -> Result<TaskRecord, ErrorObject> {
        let now = now_ms();
        self.sweep(now).await;
        let settings = &self.inner.settings;
        let millis = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let mut record = TaskRecord::new(
            task_id,
            owner,
            now,
            settings.ttl.map(millis),
            settings.poll_interval.map(millis).filter(|ms| *ms > 0),
        );
        record.runner = Some(self.lease(now));
        self.inner.store.create(record.clone()).await?;
        Ok(record)
    }

    /// Deletes expired tasks, at most once a second.
    async fn sweep(&self, now: u64) {
        let last = self.inner.last_sweep_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) < SWEEP_EVERY_MS
            || self.inner.last_sweep_ms.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_err()
        {
            return;
        }
        let expired = match self.inner.store.list_expired(now, 256).await {
            Ok(ids) => ids,
            Err(e) => return tracing::warn!(error = %e, "expired tasks could not be listed"),
        };
        for id in expired {
            if let Some(running) = self.running().remove(&id) {
                running.cancel.cancel();
            }
            if let Err(e) = self.inner.store.delete(&id).await {
                tracing::warn!(task = %id, error = %e, "an expired task could not be deleted");
            }
        }
    }

    /// Changes the task with `change` (which returns whether it changed
    /// anything), retrying when another write came first; the change is
    /// announced to listen streams. `None` when the task is gone.
    pub(crate) async fn modify(
        &self,
        task_id: &str,
        change: impl FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, ErrorObject> {
        self.write(task_id, true, change).await
    }

    /// [`modify`](Self::modify), for a change clients do not see (`announce`
    /// false: a lease renewed) or do.
    async fn write(
        &self,
        task_id: &str,
        announce: bool,
        mut change: impl FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, ErrorObject> {
        for _ in 0..MAX_WRITE_ATTEMPTS {
            let Some(stored) = self.inner.store.get(task_id).await? else { return Ok(None) };
            let mut record = stored.clone();
            if !change(&mut record) {
                return Ok(Some(stored));
            }
            record.revision = stored.revision.wrapping_add(1);
            if announce {
                record.last_updated_at_ms = now_ms().max(stored.last_updated_at_ms);
            }
            if self.inner.store.compare_and_set(stored.revision, record.clone()).await? {
                if announce {
                    self.inner.bus.publish(ServerEvent::TaskStatus { task_id: task_id.to_owned() });
                }
                return Ok(Some(record));
            }
        }
        Err(ErrorObject::internal("The task changed too often to be written"))
    }

    /// The task, if it exists for `owner`. A task whose runner stopped
    /// vouching for it is failed on the way.
    pub(crate) async fn get(&self, task_id: &str, owner: Option<&str>) -> Result<TaskRecord, ErrorObject> {
        let record = self.inner.store.get(task_id).await?.ok_or_else(|| unknown_task(task_id))?;
        if record.owner.as_deref() != owner {
            return Err(unknown_task(task_id));
        }
        if !record.is_orphaned(now_ms()) {
            return Ok(record);
        }
        let failed = self
            .modify(task_id, |r| {
                if !r.is_orphaned(now_ms()) {
                    return false;
                }
                r.status = TaskStatus::Failed;
                r.error = Some(ErrorObject::internal("The process running the task stopped before it finished"));
                r.status_message = Some("The process running the task stopped".into());
                r.input_requests.clear();
                r.runner = None;
                true
            })
            .await?;
        failed.ok_or_else(|| unknown_task(task_id))
    }

    /// `tasks/update`: hands the answers to the handler waiting for them.
    pub(crate) async fn update(
        &self,
        task_id: &str,
        owner: Option<&str>,
        responses: Map<String, Value>,
    ) -> Result<(), ErrorObject> {
        let record = self.get(task_id, owner).await?;
        if record.status.is_terminal() {
            return Ok(());
        }
        let link = self.running().get(task_id).map(|r| Arc::clone(&r.link));
        match link {
            Some(link) => link.answer(responses).await,
            // Run by another replica: answers will travel there over the
            // event bus once stores are shared; until then nothing waits here.
            None => Ok(()),
        }
    }

    /// `tasks/cancel`: the task reads `cancelled` from now on, and its
    /// handler's token fires.
    pub(crate) async fn cancel(&self, task_id: &str, owner: Option<&str>) -> Result<(), ErrorObject> {
        self.get(task_id, owner).await?;
        let link = self.running().get(task_id).map(|r| Arc::clone(&r.link));
        let write = self.modify(task_id, |record| {
            if record.status.is_terminal() {
                return false;
            }
            record.status = TaskStatus::Cancelled;
            record.status_message = Some("Cancelled at the client's request".into());
            record.input_requests.clear();
            record.runner = None;
            true
        });
        match link {
            Some(link) => link.exclusive(write).await?,
            None => write.await?,
        };
        self.deliver_cancel(task_id);
        Ok(())
    }

    /// Fires the token of the handler running `task_id`, if it runs in this
    /// process. This is where a cancel reaches a handler; a cancel made on
    /// another replica is to be delivered here by the event bus.
    pub(crate) fn deliver_cancel(&self, task_id: &str) {
        if let Some(running) = self.running().get(task_id) {
            running.cancel.cancel();
        }
    }

    /// Registers a handler this process runs.
    pub(crate) fn register(&self, task_id: &str, running: Running) {
        self.running().insert(task_id.to_owned(), running);
    }

    /// Forgets a handler that ended.
    pub(crate) fn unregister(&self, task_id: &str) {
        self.running().remove(task_id);
    }

    /// Extends this process's lease on a task it runs.
    pub(crate) async fn renew_lease(&self, task_id: &str) {
        let lease = self.lease(now_ms());
        let renewed = self
            .write(task_id, false, |record| {
                if record.status.is_terminal() {
                    return false;
                }
                record.runner = Some(lease.clone());
                true
            })
            .await;
        if let Err(e) = renewed {
            tracing::warn!(task = %task_id, error = %e.message, "a task's lease could not be renewed");
        }
    }

    /// Ends a task with its handler's outcome (`None`: it was cancelled),
    /// unless it ended already.
    pub(crate) async fn finish(&self, task_id: &str, outcome: Option<Result<Value, ErrorObject>>) {
        let (status, result, error) = match outcome {
            Some(Ok(result)) => (TaskStatus::Completed, Some(result), None),
            Some(Err(error)) => (TaskStatus::Failed, None, Some(error)),
            None => (TaskStatus::Cancelled, None, None),
        };
        let written = self
            .modify(task_id, |record| {
                if record.status.is_terminal() {
                    return false;
                }
                record.status = status;
                record.status_message = match status {
                    TaskStatus::Cancelled => Some("Cancelled".into()),
                    _ => error.as_ref().map(|e| e.message.clone()),
                };
                record.result = result.clone();
                record.error = error.clone();
                record.input_requests.clear();
                record.runner = None;
                true
            })
            .await;
        if let Err(e) = written {
            tracing::error!(task = %task_id, error = %e.message, "a task's outcome could not be written");
        }
    }

    /// The stored task, for a listen stream that follows it.
    pub(crate) async fn peek(&self, task_id: &str) -> Option<TaskRecord> {
        self.inner.store.get(task_id).await.ok().flatten()
    }
}
