//! A mounted remote's list changes followed
//! ([`ServerBuilder::mount_remote`](crate::ServerBuilder::mount_remote)):
//! a task per remote listens to what the remote announces
//! ([`Client::listen`]) and, at each change of its tools, prompts or
//! resources, lists them again and updates what this server serves under
//! the namespace: new entries added, changed ones replaced, vanished ones
//! removed, each announced to this server's own listeners as its change.
//! The remote's fixed resources are followed too, when it announces their
//! updates (`resources.subscribe`): an update is announced here for the URI
//! the resource has here.
//!
//! The remote is a peer that may be hostile. What it serves here it owns:
//! it never adds over, nor removes, an entry of this server or of another
//! mount (such a change is logged, and the rest of it applied). Its
//! announcements are held as one while it is being listed again, and a
//! remote whose lists keep changing is listed again less and less often
//! ([`Remote::relist_pace`](crate::client::Remote::relist_pace)).
//!
//! A listen stream that ends (the remote restarted, the connection broke)
//! is opened again with a growing delay (1 s, doubling to 30 s), and what
//! changed meanwhile is caught up at once. A remote that does not take
//! `subscriptions/listen` (-32601) is not followed. The task ends with the
//! server.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use super::remote::{self as mounted, Mounted};
use super::{mounted_name, mounted_uri};
use crate::client::{Change, Error, Interests, remote};
use crate::events::ServerEvent;
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};
use crate::registry::catalog::Entries;
use crate::registry::entry::{PromptEntry, ResourceEntry, ToolEntry};
use crate::server::{Server, WeakServer};

/// A remote mounted under a namespace, and what of it is served here now,
/// by the remote's own names and URIs.
pub(crate) struct Followed {
    pub(crate) mount: Mounted,
    pub(crate) tools: BTreeMap<String, Tool>,
    pub(crate) prompts: BTreeMap<String, Prompt>,
    pub(crate) resources: BTreeMap<String, Resource>,
    pub(crate) templates: BTreeMap<String, ResourceTemplate>,
    /// Whether the remote announces updates of its resources.
    pub(crate) subscribes: bool,
    /// The pace of relisting a remote whose lists keep changing.
    relist: (Duration, Duration),
}

impl Followed {
    /// `remote`, mounted as `mount`, serving what it listed (the server's
    /// build refuses a name taken already).
    pub(crate) fn new(mount: Mounted, remote: &crate::client::Remote) -> Self {
        Followed {
            mount,
            tools: remote.tools().iter().map(|t| (t.name.clone(), t.clone())).collect(),
            prompts: remote.prompts().iter().map(|p| (p.name.clone(), p.clone())).collect(),
            resources: remote.resources().iter().map(|r| (r.uri.clone(), r.clone())).collect(),
            templates: remote.resource_templates().iter().map(|t| (t.uri_template.clone(), t.clone())).collect(),
            subscribes: remote.listed.subscribes,
            relist: remote.relist,
        }
    }
}

/// The keys (the remote's own) of entries a mount could not serve.
pub(crate) type Refused = std::collections::BTreeSet<String>;

/// Follows each of `remotes` on a task of its own, when built inside a
/// Tokio runtime (a server built outside one serves its remotes' lists as
/// they were).
pub(crate) fn follow(server: &Server, remotes: Vec<Followed>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
    for remote in remotes {
        runtime.spawn(run(server.downgrade(), remote));
    }
}

const FIRST_DELAY: Duration = Duration::from_secs(1);
const LAST_DELAY: Duration = Duration::from_secs(30);

async fn run(server: WeakServer, mut remote: Followed) {
    let mut delay = FIRST_DELAY;
    let mut pace = Pace::new(remote.relist);
    'listening: loop {
        let followed = remote.followed_uris();
        let interests = followed
            .iter()
            .fold(Interests::new().tools().prompts().resources(), |interests, uri| interests.resource(uri.clone()));
        match remote.mount.client.listen(interests).await {
            Ok(mut changes) => {
                delay = FIRST_DELAY;
                // What changed while nothing listened (nothing, the first time).
                if !catch_up(&server, &mut remote, None).await {
                    return;
                }
                loop {
                    // Resources come and go: the new ones are followed by a new listen.
                    if remote.followed_uris() != followed {
                        continue 'listening;
                    }
                    match changes.next().await {
                        Some(change @ (Change::Tools | Change::Prompts | Change::Resources)) => {
                            // Announcements that come meanwhile are held as one.
                            pace.wait().await;
                            if !catch_up(&server, &mut remote, Some(&change)).await {
                                return;
                            }
                        }
                        Some(Change::Resource { uri }) => {
                            let Some(server) = server.upgrade() else { return };
                            server.notify_resource_updated(mounted_uri(&remote.mount.namespace, &uri));
                        }
                        // Announcements were dropped: whatever they were, it
                        // is caught up, and every followed resource may have
                        // changed.
                        Some(Change::Lagged) => {
                            pace.wait().await;
                            if !catch_up(&server, &mut remote, None).await {
                                return;
                            }
                            let Some(server) = server.upgrade() else { return };
                            for uri in remote.followed_uris() {
                                server.notify_resource_updated(mounted_uri(&remote.mount.namespace, &uri));
                            }
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
                tracing::info!(
                    mount = remote.mount.name(),
                    "the mounted server's announcements ended; listening again"
                );
            }
            Err(Error::Rpc(error)) if error.code == -32601 => {
                tracing::debug!(mount = remote.mount.name(), "the mounted server announces no changes: not followed");
                return;
            }
            Err(e) => tracing::warn!(mount = remote.mount.name(), error = %e, "cannot listen to the mounted server"),
        }
        if server.upgrade().is_none() {
            return;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(LAST_DELAY);
    }
}

/// How often a remote is listed again: at once after a quiet spell, then
/// waiting longer and longer while its changes keep coming.
struct Pace {
    first: Duration,
    last: Duration,
    wait: Duration,
    previous: Option<Instant>,
}

impl Pace {
    fn new((first, last): (Duration, Duration)) -> Self {
        Pace { first, last, wait: first, previous: None }
    }

    /// Waits until the next listing may be made.
    async fn wait(&mut self) {
        if let Some(previous) = self.previous {
            let since = previous.elapsed();
            if since >= self.wait * 2 {
                self.wait = self.first;
            } else {
                if since < self.wait {
                    tokio::time::sleep(self.wait - since).await;
                }
                self.wait = (self.wait * 2).min(self.last);
            }
        }
        self.previous = Some(Instant::now());
    }
}

impl Followed {
    /// The remote's fixed resources whose updates are followed: all of
    /// them, if it announces updates.
    fn followed_uris(&self) -> Vec<String> {
        if self.subscribes { self.resources.keys().cloned().collect() } else { Vec::new() }
    }
}

/// Lists the remote again and serves what it offers now; `false` once the
/// server is gone.
///
/// After the remote announced `change`, if listing it again changed nothing
/// of that kind here, the announcement is passed on as it came (a remote
/// may announce a change its lists do not show, and this server's
/// listeners are told what its own would have been).
async fn catch_up(server: &WeakServer, remote: &mut Followed, change: Option<&Change>) -> bool {
    let listed = match remote::listed(&remote.mount.client).await {
        Ok(listed) => listed,
        Err(e) => {
            tracing::warn!(mount = remote.mount.name(), error = %e, "cannot list the mounted server's catalog again");
            return server.upgrade().is_some();
        }
    };
    let Some(server) = server.upgrade() else { return false };
    let views = listed.has_views();
    let remote::Listed { tools, prompts, resources, templates, completes, subscribes, tasks, .. } = listed;
    remote.subscribes = subscribes;
    let mount = remote.mount.clone();
    let tools = diff(&remote.tools, tools.into_iter().map(|t| (t.name.clone(), t)).collect());
    let prompts = diff(&remote.prompts, prompts.into_iter().map(|p| (p.name.clone(), p)).collect());
    let resources = diff(&remote.resources, resources.into_iter().map(|r| (r.uri.clone(), r)).collect());
    let templates = diff(&remote.templates, templates.into_iter().map(|t| (t.uri_template.clone(), t)).collect());
    let change_here = MountChange::default()
        .tools(&tools, |tool| mounted::tool(&mount, tool, tasks, views), &mount.namespace)
        .prompts(&prompts, |prompt| mounted::prompt(&mount, prompt, completes), &mount.namespace)
        .resources(&resources, |resource| mounted::resource(&mount, resource), &mount.namespace)
        .resources(&templates, |template| mounted::template(&mount, template, completes), &mount.namespace);
    let applied = server.apply_mounted(&mount, change_here);
    let changed = applied.changed;
    tools.settle(&mut remote.tools, &applied.refused);
    prompts.settle(&mut remote.prompts, &applied.refused);
    resources.settle(&mut remote.resources, &applied.refused);
    templates.settle(&mut remote.templates, &applied.refused);
    let unseen = match change {
        Some(Change::Tools) if !changed.contains(&ServerEvent::ToolsListChanged) => Some(ServerEvent::ToolsListChanged),
        Some(Change::Prompts) if !changed.contains(&ServerEvent::PromptsListChanged) => {
            Some(ServerEvent::PromptsListChanged)
        }
        Some(Change::Resources) if !changed.contains(&ServerEvent::ResourcesListChanged) => {
            Some(ServerEvent::ResourcesListChanged)
        }
        _ => None,
    };
    if let Some(event) = unseen {
        server.notify(event);
    }
    true
}

/// How one kind of a remote's entries changed between two listings, by the
/// remote's keys.
struct Diff<T> {
    gone: Vec<String>,
    new: Vec<(String, T)>,
    /// Everything listed now.
    now: BTreeMap<String, T>,
}

fn diff<T: Clone + PartialEq>(served: &BTreeMap<String, T>, now: BTreeMap<String, T>) -> Diff<T> {
    let gone = served.keys().filter(|key| !now.contains_key(*key)).cloned().collect();
    let new =
        now.iter().filter(|(key, item)| served.get(*key) != Some(item)).map(|(k, v)| (k.clone(), v.clone())).collect();
    Diff { gone, new, now }
}

impl<T> Diff<T> {
    /// What is served now: what was listed, less what this server refused.
    fn settle(self, served: &mut BTreeMap<String, T>, refused: &Refused) {
        *served = self.now.into_iter().filter(|(key, _)| !refused.contains(key)).collect();
    }
}

/// One kind of a mount's change: the names (or URIs) served here of the
/// entries gone, and the new entries by the remote's keys.
type Kind<E> = (Vec<String>, Vec<(String, E)>);

/// What a mount's follower asks the server to change.
#[derive(Default)]
pub(crate) struct MountChange {
    tools: Kind<ToolEntry>,
    prompts: Kind<PromptEntry>,
    resources: Kind<ResourceEntry>,
}

impl MountChange {
    fn tools(mut self, diff: &Diff<Tool>, make: impl Fn(Tool) -> ToolEntry, ns: &str) -> Self {
        self.tools.0.extend(diff.gone.iter().map(|key| mounted_name(ns, key)));
        self.tools.1.extend(diff.new.iter().map(|(key, tool)| (key.clone(), make(tool.clone()))));
        self
    }

    fn prompts(mut self, diff: &Diff<Prompt>, make: impl Fn(Prompt) -> PromptEntry, ns: &str) -> Self {
        self.prompts.0.extend(diff.gone.iter().map(|key| mounted_name(ns, key)));
        self.prompts.1.extend(diff.new.iter().map(|(key, prompt)| (key.clone(), make(prompt.clone()))));
        self
    }

    fn resources<T: Clone>(mut self, diff: &Diff<T>, make: impl Fn(T) -> ResourceEntry, ns: &str) -> Self {
        self.resources.0.extend(diff.gone.iter().map(|key| mounted_uri(ns, key)));
        self.resources.1.extend(diff.new.iter().map(|(key, item)| (key.clone(), make(item.clone()))));
        self
    }
}

/// What the server made of a mount's change.
pub(crate) struct Applied {
    /// The lists that changed.
    pub(crate) changed: Vec<ServerEvent>,
    /// The remote's keys of the entries not taken: their names are another's.
    pub(crate) refused: Refused,
}

impl Server {
    /// Applies a mount's change in one update of the catalog: what it
    /// removes and replaces only among the entries it owns, what it adds
    /// only under names no other entry has. An entry refused is logged and
    /// left out, the rest applied. Should the catalog not take the change
    /// at once (an entry it refuses on its own, a bad name), each entry is
    /// tried alone.
    pub(crate) fn apply_mounted(&self, mount: &Mounted, change: MountChange) -> Applied {
        let MountChange { tools, prompts, resources } = change;
        let mut refused = Refused::new();
        let together = self.update_with(|entries| {
            let mut refusals = Refused::new();
            let mut changed = Vec::new();
            let (t, p, r) = (tools.clone(), prompts.clone(), resources.clone());
            if owned_change(&mut entries.tools, t, mount, |e| &e.definition.name, |e| &e.owner, &mut refusals) {
                changed.push(ServerEvent::ToolsListChanged);
            }
            if owned_change(&mut entries.prompts, p, mount, |e| &e.definition.name, |e| &e.owner, &mut refusals) {
                changed.push(ServerEvent::PromptsListChanged);
            }
            if owned_change(&mut entries.resources, r, mount, ResourceEntry::uri, |e| &e.owner, &mut refusals) {
                changed.push(ServerEvent::ResourcesListChanged);
            }
            refused = refusals;
            changed
        });
        match together {
            Ok(changed) => Applied { changed, refused },
            Err(e) => {
                tracing::warn!(mount = mount.name(), error = %e, "a mounted server's change is applied entry by entry");
                self.apply_one_by_one(mount, tools, prompts, resources)
            }
        }
    }

    fn apply_one_by_one(
        &self,
        mount: &Mounted,
        tools: Kind<ToolEntry>,
        prompts: Kind<PromptEntry>,
        resources: Kind<ResourceEntry>,
    ) -> Applied {
        let mut applied = Applied { changed: Vec::new(), refused: Refused::new() };
        let mut one = |change: MountChange, keys: Vec<String>| {
            let mut alone = self.apply_mounted_strictly(mount, change);
            match &mut alone {
                Ok(result) => {
                    applied.refused.append(&mut result.refused);
                    for event in result.changed.drain(..) {
                        if !applied.changed.contains(&event) {
                            applied.changed.push(event);
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(mount = mount.name(), error = %e, "a mounted server's entry cannot be served");
                    applied.refused.extend(keys);
                }
            }
        };
        for gone in tools.0 {
            one(MountChange { tools: (vec![gone], Vec::new()), ..MountChange::default() }, Vec::new());
        }
        for (key, entry) in tools.1 {
            one(MountChange { tools: (Vec::new(), vec![(key.clone(), entry)]), ..MountChange::default() }, vec![key]);
        }
        for gone in prompts.0 {
            one(MountChange { prompts: (vec![gone], Vec::new()), ..MountChange::default() }, Vec::new());
        }
        for (key, entry) in prompts.1 {
            one(MountChange { prompts: (Vec::new(), vec![(key.clone(), entry)]), ..MountChange::default() }, vec![key]);
        }
        for gone in resources.0 {
            one(MountChange { resources: (vec![gone], Vec::new()), ..MountChange::default() }, Vec::new());
        }
        for (key, entry) in resources.1 {
            one(
                MountChange { resources: (Vec::new(), vec![(key.clone(), entry)]), ..MountChange::default() },
                vec![key],
            );
        }
        applied
    }

    /// [`apply_mounted`](Self::apply_mounted) without the fallback.
    fn apply_mounted_strictly(&self, mount: &Mounted, change: MountChange) -> Result<Applied, crate::BuildError> {
        let MountChange { tools, prompts, resources } = change;
        let mut refused = Refused::new();
        let changed = self.update_with(|entries: &mut Entries| {
            let mut changed = Vec::new();
            if owned_change(&mut entries.tools, tools, mount, |e| &e.definition.name, |e| &e.owner, &mut refused) {
                changed.push(ServerEvent::ToolsListChanged);
            }
            if owned_change(&mut entries.prompts, prompts, mount, |e| &e.definition.name, |e| &e.owner, &mut refused) {
                changed.push(ServerEvent::PromptsListChanged);
            }
            if owned_change(&mut entries.resources, resources, mount, ResourceEntry::uri, |e| &e.owner, &mut refused) {
                changed.push(ServerEvent::ResourcesListChanged);
            }
            changed
        })?;
        Ok(Applied { changed, refused })
    }
}

/// Removes from `list` the entries served as `gone` and puts in the `new`
/// ones, only where `mount` owns the name (or no one has it); whether
/// anything changed. The remote keys of entries whose name belongs to
/// another go to `refused`.
fn owned_change<E>(
    list: &mut Vec<E>,
    (gone, new): Kind<E>,
    mount: &Mounted,
    name: impl Fn(&E) -> &str,
    owner: impl Fn(&E) -> &Option<crate::registry::entry::Owner>,
    refused: &mut Refused,
) -> bool {
    let ours = |entry: &E| owner(entry).as_deref() == Some(&*mount.owner);
    let mut changed = false;
    let gone: std::collections::HashSet<String> = gone.into_iter().collect();
    let before = list.len();
    list.retain(|entry| !(ours(entry) && gone.contains(name(entry))));
    changed |= list.len() != before;
    for (key, entry) in new {
        let served = name(&entry).to_owned();
        match list.iter().position(|existing| name(existing) == served) {
            Some(at) if ours(&list[at]) => {
                list[at] = entry;
                changed = true;
            }
            Some(_) => {
                tracing::warn!(
                    mount = mount.name(),
                    name = %served,
                    "a mounted server announced an entry whose name another serves here: it is not served"
                );
                refused.insert(key);
            }
            None => {
                list.push(entry);
                changed = true;
            }
        }
    }
    changed
}
