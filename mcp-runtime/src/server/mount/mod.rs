//! Servers mounted in another one ([`ServerBuilder::mount`]): their
//! entries served under a namespace, with their own state and layers, and
//! kept in step when they change.
//!
//! The rule that keeps names apart: a tool or prompt `name` of the server
//! mounted at `files` is `files_name`; a resource or template URI
//! `scheme://rest` is `scheme://files/rest` (the namespace as the URI's
//! first segment after `://`); a template's variables are the same.
//!
//! A remote server is mounted the same way ([`remote`]: its entries
//! forwarded through a [`Client`](crate::client::Client), [`follow`] keeping
//! them in step, [`questions`] and [`task`] relaying what it asks and the
//! tasks it makes), and the gateway is a server of such mounts.

// `ServerBuilder::mount`, `mount_remote` and `proxy`.
mod builder;
#[cfg(feature = "client")]
mod delegated;
#[cfg(feature = "client")]
pub(crate) mod follow;
#[cfg(feature = "client")]
mod forwarded;
pub(crate) mod links;
#[cfg(feature = "client")]
mod questions;
#[cfg(feature = "client")]
pub(crate) mod remote;
#[cfg(feature = "client")]
mod task;

use std::sync::Arc;

use self::links::MountedNames;
use crate::events::ServerEvent;
use crate::handler::context::ServerAccess;
use crate::handler::principal::is_authenticated_requirement;
use crate::handler::state::StateRequirement;
use crate::middleware::Layer;
use crate::registry::catalog::Entries;
use crate::registry::entry::{PromptEntry, ResourceEntry, ResourceKind, ToolEntry};
use crate::registry::error::BuildError;
use crate::server::Server;
use crate::uri_template::UriTemplate;

/// A server mounted under a namespace.
#[derive(Clone)]
pub(crate) struct Mount {
    pub(crate) namespace: Arc<str>,
    pub(crate) server: Server,
}

/// A namespace is a prefix of tool names: the tool-name characters, and
/// short enough to leave room for the names behind it.
pub(crate) fn check_namespace(namespace: &str) -> Result<(), BuildError> {
    let valid = !namespace.is_empty()
        && namespace.len() <= 64
        && namespace.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if valid {
        return Ok(());
    }
    Err(BuildError::Mount {
        namespace: namespace.to_owned(),
        reason: "a namespace is 1 to 64 characters from `A-Z a-z 0-9 _ - .`, as tool names are".to_owned(),
    })
}

/// Refuses namespaces whose names could run into each other: `a` with a
/// tool `b_x` and `a_b` with a tool `x` would both serve `a_b_x`, and one
/// mount could serve a name the other's remote announces later. Rather
/// than renaming every mounted name, such namespaces are refused when the
/// server is built.
pub(crate) fn check_unambiguous(namespaces: &[&str]) -> Result<(), BuildError> {
    let mut problems = crate::registry::error::Problems::default();
    for (i, a) in namespaces.iter().enumerate() {
        for b in &namespaces[i + 1..] {
            let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            // Proxied remotes have none: their names are taken as they are.
            if short.is_empty() {
                continue;
            }
            if short == long || long.strip_prefix(*short).is_some_and(|rest| rest.starts_with('_')) {
                problems.push(BuildError::Mount {
                    namespace: (*long).to_owned(),
                    reason: match short == long {
                        true => "two mounts have this namespace".to_owned(),
                        false => format!(
                            "its names could be those of the mount `{short}` (`{short}` with a tool `{rest}_x` and \
                             `{long}` with a tool `x` would both serve `{long}_x`): choose namespaces of which \
                             neither is the other followed by `_`",
                            rest = &long[short.len() + 1..]
                        ),
                    },
                });
            }
        }
    }
    problems.into_result()
}

/// The name a mounted tool or prompt is served under (the name itself
/// for a proxied server, whose namespace is empty).
pub(crate) fn mounted_name(namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        return name.to_owned();
    }
    format!("{namespace}_{name}")
}

/// The URI a mounted resource has at its own server: `uri` with
/// `namespace` taken out, as [`mounted_uri`] put it in; `None` for a URI
/// that is not under it.
#[cfg(feature = "client")]
pub(crate) fn unmounted_uri(namespace: &str, uri: &str) -> Option<String> {
    if namespace.is_empty() {
        return Some(uri.to_owned());
    }
    match uri.split_once("://") {
        Some((scheme, rest)) => Some(format!("{scheme}://{}", rest.strip_prefix(namespace)?.strip_prefix('/')?)),
        None => Some(uri.strip_prefix(namespace)?.strip_prefix('/')?.to_owned()),
    }
}

/// The URI (or URI template) a mounted resource is served under (the URI
/// itself for a proxied server).
pub(crate) fn mounted_uri(namespace: &str, uri: &str) -> String {
    if namespace.is_empty() {
        return uri.to_owned();
    }
    match uri.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{namespace}/{rest}"),
        None => format!("{namespace}/{uri}"),
    }
}

/// The server-wide requirements left for the server it is mounted in: the
/// mounted server provides its own state, not the caller's check.
fn left_to_parent(requirements: &[StateRequirement]) -> Vec<StateRequirement> {
    requirements.iter().filter(|r| is_authenticated_requirement(r)).cloned().collect()
}

impl Mount {
    /// The mounted server's entries as the server it is mounted in serves
    /// them now.
    pub(crate) fn entries(&self) -> Entries {
        let snapshot = self.server.snapshot();
        let own = snapshot.catalog().entries();
        let access: Arc<dyn ServerAccess> = Arc::clone(&self.server.inner) as Arc<dyn ServerAccess>;
        let layers = &self.server.settings().layers.0;
        let views = own.resources.iter().any(|r| r.view.is_some());
        Entries {
            tools: own.tools.into_iter().map(|t| self.tool(t, &access, layers, views)).collect(),
            prompts: own.prompts.into_iter().map(|p| self.prompt(p, &access)).collect(),
            resources: own.resources.into_iter().map(|r| self.resource(r, &access)).collect(),
            #[cfg(feature = "skills")]
            skills: (own.skills.into_iter())
                .map(|s| crate::registry::skills::renamed(s, |uri| mounted_uri(&self.namespace, uri)))
                .collect(),
        }
    }

    fn tool(
        &self,
        mut tool: ToolEntry,
        access: &Arc<dyn ServerAccess>,
        layers: &[Arc<dyn Layer>],
        views: bool,
    ) -> ToolEntry {
        let own_name = std::mem::take(&mut tool.definition.name);
        tool.definition.name = mounted_name(&self.namespace, &own_name);
        // Its views are served here under the mount's URIs, and call it by
        // its own name.
        if views {
            tool.mounted_view(&own_name, |uri| mounted_uri(&self.namespace, uri));
        }
        let (handler, serving) = (tool.handler, Arc::clone(access));
        tool.handler = Arc::new(move |call| {
            call.context.serve_as_mounted(Arc::clone(&serving));
            handler(call)
        });
        tool.relay = tool.relay.map(|relay| {
            let serving = Arc::clone(access);
            Arc::new(move |call: crate::handler::call::ToolCall| {
                call.context.serve_as_mounted(Arc::clone(&serving));
                relay(call)
            }) as crate::handler::functions::RelayFn
        });
        tool.requirements = left_to_parent(&tool.requirements);
        // The mounted server's own layers run for its tools, inside the
        // mounting server's, before the tool's.
        if !layers.is_empty() {
            let all: Vec<Arc<dyn Layer>> =
                layers.iter().chain(tool.layers.iter().flat_map(|l| l.iter())).cloned().collect();
            tool.layers = Some(all.into());
        }
        tool
    }

    fn prompt(&self, mut prompt: PromptEntry, access: &Arc<dyn ServerAccess>) -> PromptEntry {
        prompt.definition.name = mounted_name(&self.namespace, &prompt.definition.name);
        let (handler, serving) = (prompt.handler, Arc::clone(access));
        prompt.handler = Arc::new(move |call| {
            call.context.serve_as_mounted(Arc::clone(&serving));
            handler(call)
        });
        prompt.completer = prompt.completer.map(|complete| mounted_completer(complete, access));
        prompt.requirements = left_to_parent(&prompt.requirements);
        prompt
    }

    fn resource(&self, mut resource: ResourceEntry, access: &Arc<dyn ServerAccess>) -> ResourceEntry {
        match &mut resource.kind {
            ResourceKind::Fixed(r) => r.uri = mounted_uri(&self.namespace, &r.uri),
            ResourceKind::Template(t, parsed) => {
                t.uri_template = mounted_uri(&self.namespace, &t.uri_template);
                *parsed = UriTemplate::parse(&t.uri_template);
            }
        }
        let (handler, serving) = (resource.handler, Arc::clone(access));
        resource.handler = Arc::new(move |call, mime| {
            call.context.serve_as_mounted(Arc::clone(&serving));
            handler(call, mime)
        });
        resource.completer = resource.completer.map(|complete| mounted_completer(complete, access));
        resource.requirements = left_to_parent(&resource.requirements);
        resource
    }
}

fn mounted_completer(
    complete: crate::handler::functions::CompleteFn,
    access: &Arc<dyn ServerAccess>,
) -> crate::handler::functions::CompleteFn {
    let access = Arc::clone(access);
    Arc::new(move |call| {
        call.context.serve_as_mounted(Arc::clone(&access));
        complete(call)
    })
}

impl Server {
    /// Tells each mounted server that `self` serves it, so that its
    /// changes reach `self`.
    pub(crate) fn adopt(&self, mounts: &[Mount]) {
        for mount in mounts {
            let mut parents = crate::sync::lock(&mount.server.inner.parents.0);
            parents.retain(|(parent, _)| parent.strong_count() > 0);
            parents.push((Arc::downgrade(&self.inner), Arc::clone(&mount.namespace)));
        }
    }

    /// After a change of this server's entries: the servers it is mounted
    /// in serve the new ones, and their listeners hear of it.
    pub(crate) fn changed_for_parents(&self, event: &ServerEvent) {
        for (parent, namespace) in self.parents() {
            let mount = Mount { namespace, server: self.clone() };
            if let Err(e) = parent.remount(&mount, event.clone()) {
                tracing::warn!(namespace = %mount.namespace, error = %e, "a mounted server's change could not be served");
            }
        }
    }

    /// An event of this server, announced in the servers it is mounted in
    /// too (a resource's URI as they serve it).
    pub(crate) fn notify_parents(&self, event: &ServerEvent) {
        for (parent, namespace) in self.parents() {
            let event = match event {
                ServerEvent::ResourceUpdated { uri } => {
                    ServerEvent::ResourceUpdated { uri: mounted_uri(&namespace, uri) }
                }
                other => other.clone(),
            };
            parent.notify(event);
        }
    }

    fn parents(&self) -> Vec<(Server, Arc<str>)> {
        let parents = crate::sync::lock(&self.inner.parents.0);
        parents
            .iter()
            .filter_map(|(parent, namespace)| Some((Server { inner: parent.upgrade()? }, Arc::clone(namespace))))
            .collect()
    }

    /// Serves `mount`'s entries as they are now in place of those served
    /// under its namespace until now.
    fn remount(&self, mount: &Mount, event: ServerEvent) -> Result<bool, BuildError> {
        let fresh = mount.entries();
        let names = MountedNames::of(&fresh);
        let mut mounted = crate::sync::lock(&self.inner.mounted);
        let old = mounted.get(&mount.namespace).cloned().unwrap_or_default();
        let changed = self.update(
            move |entries| {
                entries.tools.retain(|t| !old.tools.contains(&t.definition.name));
                entries.prompts.retain(|p| !old.prompts.contains(&p.definition.name));
                entries.resources.retain(|r| !old.resources.contains(r.uri()));
                entries.tools.extend(fresh.tools);
                entries.prompts.extend(fresh.prompts);
                entries.resources.extend(fresh.resources);
                #[cfg(feature = "skills")]
                {
                    entries.skills.retain(|s| !old.skills.contains(&s.uri));
                    entries.skills.extend(fresh.skills);
                }
                true
            },
            event,
        )?;
        mounted.insert(Arc::clone(&mount.namespace), names);
        Ok(changed)
    }
}
