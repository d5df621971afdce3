//! [`Tasks`]: the tasks of one server: its store, the tasks this process
//! runs, and the rules every task method follows (ownership, expiry,
//! orphans, cancellation).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use super::clock::now_ms;
use super::link::{TaskLink, TaskWriter};
use super::record::{RunnerLease, TaskRecord, TaskStatus};
use super::settings::{OwnerFn, TaskSettings};
use super::store::TaskStore;
use crate::events::{ServerEvent, SharedBus};
use crate::handler::context::RequestContext;
use crate::protocol::ErrorObject;

/// How many times a write retries after losing a race on the revision.
const MAX_WRITE_ATTEMPTS: usize = 16;

/// How often, at most, expired tasks are swept from the store.
const SWEEP_EVERY_MS: u64 = 1_000;

/// A task this process runs.
#[derive(Clone)]
pub(crate) struct Running {
    pub(crate) cancel: CancellationToken,
    pub(crate) link: Arc<TaskLink<Tasks>>,
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
    /// The tasks whose handlers run in this process. A cancel or an answer
    /// reaches a handler through here: at once when made in this process;
    /// when made on another replica sharing the store, by the store (the
    /// record says `cancelled`, or holds the answers) once the event bus
    /// rings (see [`Tasks::watch`]), or at the next lease renewal.
    running: Mutex<HashMap<String, Running>>,
    /// Whether this process follows the bus for its running tasks yet.
    watching: AtomicBool,
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
                watching: AtomicBool::new(false),
                last_sweep_ms: AtomicU64::new(0),
            }),
        }
    }

    pub(crate) fn settings(&self) -> &TaskSettings {
        &self.inner.settings
    }

    fn running(&self) -> MutexGuard<'_, HashMap<String, Running>> {
        crate::sync::lock(&self.inner.running)
    }

    /// Who makes the request of `cx`, as the owner of the tasks it creates:
    /// as the server's [`task_owner`](crate::ServerBuilder::task_owner) says,
    /// else the authenticated caller (its issuer, subject and client), else
    /// nobody in particular.
    pub(crate) fn owner_of(&self, cx: &RequestContext) -> Option<String> {
        match &self.inner.owner {
            Some(owner) => owner(cx),
            None => {
                let caller = cx.caller();
                caller.is_authenticated().then(|| caller.to_string())
            }
        }
    }

    /// Whose quota the tasks `owner` creates in the request of `cx` count
    /// in: the owner's, else the caller's (by its address), else none.
    pub(crate) fn quota_of(cx: &RequestContext, owner: Option<&str>) -> Option<String> {
        if let Some(owner) = owner {
            return Some(format!("owner:{owner}"));
        }
        let caller = cx.caller();
        caller.is_known().then(|| caller.to_string())
    }

    fn lease(&self, now: u64) -> RunnerLease {
        let lease_ms = u64::try_from(self.inner.settings.lease.as_millis()).unwrap_or(u64::MAX);
        RunnerLease { process: self.inner.process.clone(), until_ms: now.saturating_add(lease_ms) }
    }

    /// Stores a new `working` task run by this process, counted in `quota`:
    /// once this returns, `tasks/get` finds it.
    pub(crate) async fn create(
        &self,
        task_id: String,
        owner: Option<String>,
        quota: Option<String>,
    ) -> Result<TaskRecord, ErrorObject> {
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
        )
        .in_quota(quota);
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
                r.input_responses.clear();
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
        if let Some(link) = link {
            return link.answer(responses).await;
        }
        // Run by another replica: the answers to what the task waits on go
        // into its record, and the write rings the bus there. What they
        // answer leaves `inputRequests` at once, as it would here, so that
        // a `tasks/get` on any replica stops asking for it. Their kind is
        // checked where the handler waits, which drops a wrong one and asks
        // again.
        self.modify(task_id, |r| {
            let mut changed = false;
            for (key, value) in &responses {
                if !r.status.is_terminal() && r.input_requests.remove(key).is_some() {
                    r.input_responses.insert(key.clone(), value.clone());
                    changed = true;
                }
            }
            if changed && r.input_requests.is_empty() {
                r.status = TaskStatus::Working;
            }
            changed
        })
        .await?;
        Ok(())
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
            record.input_responses.clear();
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
    /// process: a cancel made here. One made on another replica arrives
    /// through [`reconcile`](Self::reconcile).
    pub(crate) fn deliver_cancel(&self, task_id: &str) {
        if let Some(running) = self.running().get(task_id) {
            running.cancel.cancel();
        }
    }

    /// Registers a handler this process runs.
    pub(crate) fn register(&self, task_id: &str, running: Running) {
        self.running().insert(task_id.to_owned(), running);
        self.watch();
    }

    /// From the first task this process runs on, follows the bus: a change
    /// to a task running here may be a cancel or answers given on another
    /// replica, which the stored record then holds. The bus is the doorbell
    /// (it already carries every task change to every replica), the store
    /// the mailbox: a ring lost with a Redis outage is made up for by the
    /// lease renewal, which reads the record too. Plain calls never start it.
    fn watch(&self) {
        if self.inner.watching.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut events = self.inner.bus.subscribe();
        // Weak: the watcher must not keep the server's tasks alive.
        let inner = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            loop {
                let changed = events.recv().await;
                let Some(inner) = inner.upgrade() else { return };
                let tasks = Tasks { inner };
                let ids: Vec<String> = match changed {
                    Ok(ServerEvent::TaskStatus { task_id }) => vec![task_id],
                    // Rings were lost (here, or on the bus's way here): look
                    // at every task running here.
                    Ok(ServerEvent::EventsMissed) | Err(RecvError::Lagged(_)) => {
                        tasks.running().keys().cloned().collect()
                    }
                    Ok(_) => continue,
                    Err(RecvError::Closed) => return,
                };
                for task_id in ids {
                    if tasks.running().contains_key(&task_id) {
                        let tasks = tasks.clone();
                        tokio::spawn(async move {
                            if let Some(record) = tasks.peek(&task_id).await {
                                tasks.reconcile(&task_id, &record).await;
                            }
                        });
                    }
                }
            }
        });
    }

    /// Brings to the handler running `task_id` here what its stored
    /// `record` says was asked elsewhere: a cancel (the task ended) fires
    /// its token; answers are taken out of the record and handed to it.
    async fn reconcile(&self, task_id: &str, record: &TaskRecord) {
        let Some(running) = self.running().get(task_id).cloned() else { return };
        if record.status.is_terminal() {
            running.cancel.cancel();
            return;
        }
        if record.input_responses.is_empty() {
            return;
        }
        let mut taken = Map::new();
        let written = self
            .write(task_id, false, |r| {
                taken = std::mem::take(&mut r.input_responses);
                !taken.is_empty()
            })
            .await;
        match written {
            Ok(Some(_)) if !taken.is_empty() => {
                if let Err(e) = running.link.answer(taken).await {
                    tracing::warn!(task = %task_id, error = %e.message, "answers given on another replica were dropped");
                    // The requests they claimed to answer are asked again.
                    running.link.publish().await;
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(task = %task_id, error = %e.message, "answers given on another replica could not be taken")
            }
        }
    }

    /// Forgets a handler that ended.
    pub(crate) fn unregister(&self, task_id: &str) {
        self.running().remove(task_id);
    }

    /// Extends this process's lease on a task it runs, and picks up what
    /// other replicas asked of it meanwhile.
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
        match renewed {
            Ok(Some(record)) => self.reconcile(task_id, &record).await,
            Ok(None) => {}
            Err(e) => tracing::warn!(task = %task_id, error = %e.message, "a task's lease could not be renewed"),
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
                record.input_responses.clear();
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

impl TaskWriter for Tasks {
    fn modify(
        &self,
        task_id: &str,
        change: impl FnMut(&mut TaskRecord) -> bool + Send,
    ) -> impl Future<Output = Result<Option<TaskRecord>, ErrorObject>> + Send {
        Tasks::modify(self, task_id, change)
    }
}
