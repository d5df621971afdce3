//! What a diff finds: each change, its class, and the whole diff.

use std::fmt;

/// Whether a change can break a client built against the old catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Existing clients may fail: something they use is gone, narrowed or
    /// more dangerous.
    Breaking,
    /// Existing clients keep working: something was added, widened or
    /// reworded.
    Compatible,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Breaking => "breaking",
            Class::Compatible => "compatible",
        })
    }
}

/// One change between two snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Breaking or compatible.
    pub class: Class,
    /// What changed: `tool \`add\``, `prompt \`review\``, `resource \`notes://1\``, `server`.
    pub subject: String,
    /// How it changed, in words.
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.what)
    }
}

/// Every change between two snapshots, in catalog order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogDiff {
    /// The changes, subjects in snapshot order.
    pub changes: Vec<Change>,
}

impl CatalogDiff {
    /// Whether any change breaks existing clients.
    pub fn is_breaking(&self) -> bool {
        self.changes.iter().any(|c| c.class == Class::Breaking)
    }

    /// The changes of one class.
    pub fn of(&self, class: Class) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.class == class)
    }

    /// A short Markdown report, fit for a pull-request comment.
    pub fn render(&self) -> String {
        if self.changes.is_empty() {
            return "### Tool API: no changes\n".to_owned();
        }
        let breaking = self.of(Class::Breaking).count();
        let compatible = self.of(Class::Compatible).count();
        let mut out = format!("### Tool API: {breaking} breaking, {compatible} compatible\n");
        for (class, title) in [(Class::Breaking, "Breaking for existing clients"), (Class::Compatible, "Compatible")] {
            if self.of(class).next().is_none() {
                continue;
            }
            out.push_str(&format!("\n**{title}**\n\n"));
            for change in self.of(class) {
                out.push_str(&format!("- {change}\n"));
            }
        }
        out
    }
}

/// Collects changes for one subject.
pub(crate) struct Changes<'a> {
    pub(super) subject: String,
    pub(super) out: &'a mut Vec<Change>,
}

impl Changes<'_> {
    pub(crate) fn push(&mut self, class: Class, what: impl Into<String>) {
        self.out.push(Change { class, subject: self.subject.clone(), what: what.into() });
    }
}
