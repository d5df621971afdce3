//! `visible_to(rule)` on each kind of entry, and whether an entry is shown
//! to, or hidden from, a request's caller (see [`crate::registry::visibility`]).

use crate::registry::entry::{PromptEntry, ResourceEntry, ToolEntry};
use crate::registry::scopes::Access;
use crate::registry::visibility::{Viewer, Visibility};

fn hidden(rule: Option<&Visibility>, access: &Access) -> bool {
    rule.is_some_and(|rule| !rule.admits(&access.viewer()))
}

fn rule(rule: impl Fn(&Viewer<'_>) -> bool + Send + Sync + 'static) -> Option<Visibility> {
    Some(Visibility::new(rule))
}

/// Whether an entry of each kind is shown to, or hidden from, a caller.
macro_rules! shown_or_hidden {
    ($($entry:ty),*) => {$(
        impl $entry {
            /// Whether the caller of `access` may see and use it: granted
            /// its scopes and admitted by its rule.
            pub(crate) fn shown_to(&self, access: &Access) -> bool {
                access.shows(self.declared_scopes(), self.visible.as_ref())
            }

            /// Whether its rule hides it from the caller of `access`: then
            /// it is unknown to that caller (scopes it lacks are refused
            /// otherwise).
            pub(crate) fn hidden_from(&self, access: &Access) -> bool {
                hidden(self.visible.as_ref(), access)
            }
        }
    )*};
}

shown_or_hidden!(ToolEntry, PromptEntry, ResourceEntry);

impl ToolEntry {
    /// Shows the tool only to the callers `rule` admits: to anyone else it
    /// is not listed, not found by tool search, and a call of it is
    /// answered as one of an unknown tool (see [`Viewer`]). What
    /// `#[tool(visible_to = path)]` declares. Scopes still apply on top.
    ///
    /// ```
    /// use mcp_runtime::{Server, entry::{ToolEntry, Viewer}};
    ///
    /// let beta = |viewer: &Viewer<'_>| viewer.principal().and_then(|p| p.claim("beta")).is_some();
    /// let server = Server::builder("notes", "1.0.0")
    ///     .tool(ToolEntry::new("summarize", || async { "..." }).visible_to(beta))
    ///     .build()?;
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// ```
    pub fn visible_to(mut self, rule_fn: impl Fn(&Viewer<'_>) -> bool + Send + Sync + 'static) -> Self {
        self.visible = rule(rule_fn);
        self
    }
}

impl PromptEntry {
    /// Shows the prompt only to the callers `rule` admits; what
    /// `#[prompt(visible_to = path)]` declares. The rules of
    /// [`ToolEntry::visible_to`] apply: to anyone else it is unknown.
    pub fn visible_to(mut self, rule_fn: impl Fn(&Viewer<'_>) -> bool + Send + Sync + 'static) -> Self {
        self.visible = rule(rule_fn);
        self
    }
}

impl ResourceEntry {
    /// Shows the resource (or the template, and every URI it matches) only
    /// to the callers `rule` admits; what `#[resource(visible_to = path)]`
    /// declares. The rules of [`ToolEntry::visible_to`] apply: to anyone
    /// else a read of it is answered as one of a resource that does not
    /// exist.
    pub fn visible_to(mut self, rule_fn: impl Fn(&Viewer<'_>) -> bool + Send + Sync + 'static) -> Self {
        self.visible = rule(rule_fn);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::principal::Principal;

    #[test]
    fn a_rule_decides_on_top_of_scopes_and_a_panicking_one_hides() {
        let alice = Principal::new("alice").with_scopes(["read"]);
        let only_alice = ToolEntry::new("t", || async { "" })
            .visible_to(|v| v.principal().and_then(Principal::subject) == Some("alice"));
        assert!(only_alice.shown_to(&Access::of(true, Some(&alice))));
        assert!(!only_alice.shown_to(&Access::of(true, Some(&Principal::new("bob")))));
        // No verified principal: over stdio, in process.
        assert!(!only_alice.shown_to(&Access::of(false, Some(&alice))));
        let scoped = only_alice.clone().scopes(["write"]);
        assert!(!scoped.shown_to(&Access::of(true, Some(&alice))));
        let panics = ToolEntry::new("p", || async { "" }).visible_to(|_| panic!("a bug in the rule"));
        assert!(!panics.shown_to(&Access::of(true, Some(&alice))));
        assert!(ToolEntry::new("open", || async { "" }).shown_to(&Access::of(false, None)));
    }
}
