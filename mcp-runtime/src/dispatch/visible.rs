//! What a caller is shown of a server that checks scopes: the capabilities
//! of the entries it may use, and nothing of the others.

use crate::protocol::ServerCapabilities;
use crate::registry::catalog::{Catalog, Listed};
use crate::registry::scopes::Access;
use crate::tasks::TASKS_EXTENSION;

/// A capability that offers entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Visible {
    Tools,
    Prompts,
    /// Resources and resource templates.
    Resources,
}

fn any<E>(items: &[Listed<E>], shown: impl Fn(&E) -> bool) -> bool {
    items.iter().any(|item| shown(item.entry()))
}

/// Whether the caller may see at least one entry `capability` offers.
pub(crate) fn offers(c: &Catalog, access: &Access, capability: Visible) -> bool {
    match capability {
        Visible::Tools => any(c.tools(), |t| t.shown_to(access)),
        Visible::Prompts => any(c.prompts(), |p| p.shown_to(access)),
        Visible::Resources => any(c.resources(), |r| r.shown_to(access)) || any(c.templates(), |r| r.shown_to(access)),
    }
}

/// `all`, the server's capabilities, without those that offer nothing the
/// caller may see: `tools`, `prompts`, `resources`, `completions` (when no
/// visible prompt or template completes) and the tasks extension (when no
/// visible tool runs as a task).
pub(crate) fn capabilities(c: &Catalog, access: &Access, all: &ServerCapabilities) -> ServerCapabilities {
    let mut shown = all.clone();
    if !offers(c, access, Visible::Tools) {
        shown.tools = None;
    }
    if !offers(c, access, Visible::Prompts) {
        shown.prompts = None;
    }
    if !offers(c, access, Visible::Resources) {
        shown.resources = None;
    }
    let completes = c.prompts().iter().any(|p| p.entry().completer.is_some() && p.entry().shown_to(access))
        || c.templates().iter().any(|t| t.entry().completer.is_some() && t.entry().shown_to(access));
    if !completes {
        shown.completions = None;
    }
    let tasks = c.tools().iter().any(|t| t.entry().task.is_some() && t.entry().shown_to(access));
    if !tasks && let Some(extensions) = &mut shown.extensions {
        extensions.remove(TASKS_EXTENSION);
        if extensions.is_empty() {
            shown.extensions = None;
        }
    }
    shown
}
