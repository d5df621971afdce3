//! Visibility by caller: an entry shown only to the callers a rule of the
//! application's own admits (a tenant, a group, a feature flag), with
//! `visible_to(rule)` on each kind of entry or `visible_to = path` in the
//! attribute macros.
//!
//! To everyone else the entry does not exist: the lists leave it out (and
//! say `cacheScope: "private"`, since they then vary with the caller),
//! `server/discover` does not count it towards a capability, tool search
//! never offers it, completion does not know it, and a call, a get or a
//! read of it is answered exactly as one of a name no entry has. The rule
//! comes on top of scopes: an entry is shown to a caller granted its
//! scopes *and* admitted by its rule.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::handler::principal::Principal;

/// The caller a visibility rule decides for.
///
/// On a server with [authorization](crate::auth) a request over HTTP has
/// the [`Principal`] its verified token stands for (an anonymous one,
/// without subject, when it carried none); over stdio, in process and on a
/// server without authorization there is no principal, since nothing
/// verified one.
///
/// ```
/// use mcp_runtime::auth::Principal;
/// use mcp_runtime::entry::Viewer;
///
/// fn staff_only(viewer: &Viewer<'_>) -> bool {
///     viewer.principal().and_then(|p| p.claim("groups")).and_then(|g| g.as_array())
///         .is_some_and(|groups| groups.iter().any(|g| g == "staff"))
/// }
///
/// let staff = Principal::new("ada").with_claims(
///     serde_json::json!({"groups": ["staff"]}).as_object().cloned().unwrap_or_default(),
/// );
/// assert!(staff_only(&Viewer::new(Some(&staff))));
/// assert!(!staff_only(&Viewer::new(Some(&Principal::new("bob")))));
/// assert!(!staff_only(&Viewer::new(None)));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Viewer<'a> {
    principal: Option<&'a Principal>,
}

impl<'a> Viewer<'a> {
    /// The viewer that is `principal`, or no one known: what the server
    /// hands a rule, and what a test of a rule makes.
    pub fn new(principal: Option<&'a Principal>) -> Self {
        Viewer { principal }
    }

    /// Who the verified token stands for, when there is one.
    pub fn principal(&self) -> Option<&'a Principal> {
        self.principal
    }
}

/// A rule an entry is shown by.
#[derive(Clone)]
pub(crate) struct Visibility(Arc<dyn Fn(&Viewer<'_>) -> bool + Send + Sync>);

impl Visibility {
    /// The rule of an entry's `visible_to(rule)`.
    pub(crate) fn new(rule: impl Fn(&Viewer<'_>) -> bool + Send + Sync + 'static) -> Self {
        Visibility(Arc::new(rule))
    }
}

impl Visibility {
    /// Whether the rule admits `viewer`. A rule that panics admits no one:
    /// the entry stays hidden rather than the request failing.
    pub(crate) fn admits(&self, viewer: &Viewer<'_>) -> bool {
        catch_unwind(AssertUnwindSafe(|| (self.0)(viewer))).unwrap_or_else(|_| {
            tracing::error!("a visibility rule panicked: the entry stays hidden");
            false
        })
    }
}

impl std::fmt::Debug for Visibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Visibility(..)")
    }
}
