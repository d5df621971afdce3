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
//! A listen stream that ends (the remote restarted, the connection broke)
//! is opened again with a growing delay (1 s, doubling to 30 s), and what
//! changed meanwhile is caught up at once. A remote that does not take
//! `subscriptions/listen` (-32601) is not followed. The task ends with the
//! server.

use std::collections::BTreeMap;
use std::time::Duration;

use super::mount::{mounted_name, mounted_uri};
use super::{Server, WeakServer, mount_remote};
use crate::client::{Change, Client, Error, Interests, remote};
use crate::events::ServerEvent;
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};

/// A remote mounted under `namespace`, and what of it is served here now,
/// by the remote's own names and URIs.
pub(crate) struct Followed {
    pub(crate) namespace: std::sync::Arc<str>,
    pub(crate) client: Client,
    pub(crate) tools: BTreeMap<String, Tool>,
    pub(crate) prompts: BTreeMap<String, Prompt>,
    pub(crate) resources: BTreeMap<String, Resource>,
    pub(crate) templates: BTreeMap<String, ResourceTemplate>,
    /// Whether the remote announces updates of its resources.
    pub(crate) subscribes: bool,
}

impl Followed {
    pub(crate) fn new(namespace: std::sync::Arc<str>, remote: &crate::client::Remote) -> Self {
        Followed {
            namespace,
            client: remote.client().clone(),
            tools: remote.tools().iter().map(|t| (t.name.clone(), t.clone())).collect(),
            prompts: remote.prompts().iter().map(|p| (p.name.clone(), p.clone())).collect(),
            resources: remote.resources().iter().map(|r| (r.uri.clone(), r.clone())).collect(),
            templates: remote.resource_templates().iter().map(|t| (t.uri_template.clone(), t.clone())).collect(),
            subscribes: remote.listed.subscribes,
        }
    }
}

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
    'listening: loop {
        let followed = remote.followed_uris();
        let interests = followed
            .iter()
            .fold(Interests::new().tools().prompts().resources(), |interests, uri| interests.resource(uri.clone()));
        match remote.client.listen(interests).await {
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
                            if !catch_up(&server, &mut remote, Some(&change)).await {
                                return;
                            }
                        }
                        Some(Change::Resource { uri }) => {
                            let Some(server) = server.upgrade() else { return };
                            server.notify_resource_updated(mounted_uri(&remote.namespace, &uri));
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
                tracing::info!(mount = %remote.namespace, "the mounted server's announcements ended; listening again");
            }
            Err(Error::Rpc(error)) if error.code == -32601 => {
                tracing::debug!(mount = %remote.namespace, "the mounted server announces no changes: not followed");
                return;
            }
            Err(e) => tracing::warn!(mount = %remote.namespace, error = %e, "cannot listen to the mounted server"),
        }
        if server.upgrade().is_none() {
            return;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(LAST_DELAY);
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
    let listed = match remote::listed(&remote.client).await {
        Ok(listed) => listed,
        Err(e) => {
            tracing::warn!(mount = %remote.namespace, error = %e, "cannot list the mounted server's catalog again");
            return server.upgrade().is_some();
        }
    };
    let Some(server) = server.upgrade() else { return false };
    let remote::Listed { tools, prompts, resources, templates, completes, subscribes, tasks } = listed;
    remote.subscribes = subscribes;
    let ns = std::sync::Arc::clone(&remote.namespace);
    let client = remote.client.clone();
    let tools_changed = apply(
        &mut remote.tools,
        tools.into_iter().map(|t| (t.name.clone(), t)).collect(),
        |name| server.remove_tool(&mounted_name(&ns, name)),
        |tool| server.add_tool(mount_remote::tool(&ns, tool, client.clone(), tasks)),
    );
    let prompts_changed = apply(
        &mut remote.prompts,
        prompts.into_iter().map(|p| (p.name.clone(), p)).collect(),
        |name| server.remove_prompt(&mounted_name(&ns, name)),
        |prompt| server.add_prompt(mount_remote::prompt(&ns, prompt, client.clone(), completes)),
    );
    let resources_changed = apply(
        &mut remote.resources,
        resources.into_iter().map(|r| (r.uri.clone(), r)).collect(),
        |uri| server.remove_resource(&mounted_uri(&ns, uri)),
        |resource| server.add_resource(mount_remote::resource(&ns, resource, client.clone())),
    );
    let templates_changed = apply(
        &mut remote.templates,
        templates.into_iter().map(|t| (t.uri_template.clone(), t)).collect(),
        |template| server.remove_resource(&mounted_uri(&ns, template)),
        |template| server.add_resource(mount_remote::template(&ns, template, client.clone(), completes)),
    );
    let unseen = match change {
        Some(Change::Tools) if !tools_changed => Some(ServerEvent::ToolsListChanged),
        Some(Change::Prompts) if !prompts_changed => Some(ServerEvent::PromptsListChanged),
        Some(Change::Resources) if !resources_changed && !templates_changed => Some(ServerEvent::ResourcesListChanged),
        _ => None,
    };
    if let Some(event) = unseen {
        server.notify(event);
    }
    true
}

/// Makes `served` `now`: removes what vanished, adds what is new or changed;
/// whether anything did. An entry this server cannot take (its name is
/// taken by another) is left out, and logged.
fn apply<T: Clone + PartialEq>(
    served: &mut BTreeMap<String, T>,
    now: BTreeMap<String, T>,
    remove: impl Fn(&str) -> bool,
    add: impl Fn(T) -> Result<(), crate::BuildError>,
) -> bool {
    let mut changed = false;
    for key in served.keys().filter(|key| !now.contains_key(*key)) {
        changed |= remove(key);
    }
    for (key, item) in &now {
        if served.get(key) != Some(item) {
            changed = true;
            if let Err(e) = add(item.clone()) {
                tracing::warn!(error = %e, "a mounted server's entry cannot be served");
            }
        }
    }
    *served = now;
    changed
}
