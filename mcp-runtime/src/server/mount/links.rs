//! What links a mounted server and the servers it is mounted in (see
//! `mount`): kept apart from the mounting itself, since the server holds
//! these and the mounting works on the server.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, Weak};

use crate::registry::catalog::Entries;

/// What a mounted server knows of the servers it is mounted in, so that
/// its changes reach them.
pub(crate) struct Parents<S>(pub(crate) Mutex<Vec<(Weak<S>, Arc<str>)>>);

impl<S> std::fmt::Debug for Parents<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Parents")
    }
}

impl<S> Default for Parents<S> {
    fn default() -> Self {
        Parents(Mutex::new(Vec::new()))
    }
}

/// The names (and URIs) a server serves for one mounted server, so that
/// its next change replaces exactly them.
#[derive(Debug, Clone, Default)]
pub(crate) struct MountedNames {
    pub(crate) tools: HashSet<String>,
    pub(crate) prompts: HashSet<String>,
    pub(crate) resources: HashSet<String>,
    /// The URIs of the skills' `SKILL.md`.
    #[cfg(feature = "skills")]
    pub(crate) skills: HashSet<String>,
}

impl MountedNames {
    pub(crate) fn of(entries: &Entries) -> Self {
        MountedNames {
            tools: entries.tools.iter().map(|t| t.definition.name.clone()).collect(),
            prompts: entries.prompts.iter().map(|p| p.definition.name.clone()).collect(),
            resources: entries.resources.iter().map(|r| r.uri().to_owned()).collect(),
            #[cfg(feature = "skills")]
            skills: entries.skills.iter().map(|s| s.uri.clone()).collect(),
        }
    }
}

/// What a server mounted others under, by namespace.
pub(crate) type Mounted = Mutex<BTreeMap<Arc<str>, MountedNames>>;
