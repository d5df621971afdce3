//! [`SourceLocation`]: where an entry was defined, which build errors name.

use std::fmt;

/// Where a handler was defined, for error messages (duplicate names,
/// missing state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLocation {
    /// `module_path!()` of the definition, empty when unknown.
    pub module_path: &'static str,
    /// `file!()`.
    pub file: &'static str,
    /// `line!()`.
    pub line: u32,
}

impl SourceLocation {
    /// The location of an entry another server serves through a mount
    /// (`description` names it: "the server mounted at `notes`"), which no
    /// line of this program defines. Only a remote mount makes one.
    #[cfg(any(feature = "client", test))]
    pub(crate) fn remote(description: &'static str) -> Self {
        SourceLocation { module_path: "", file: description, line: 0 }
    }

    /// Whether it is a [remote](Self::remote) entry's.
    pub(crate) fn is_remote(&self) -> bool {
        self.line == 0 && self.module_path.is_empty()
    }

    /// The location of the caller of a `#[track_caller]` function.
    #[track_caller]
    pub fn caller() -> Self {
        let l = std::panic::Location::caller();
        SourceLocation { module_path: "", file: l.file(), line: l.line() }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_remote() {
            return f.write_str(self.file);
        }
        write!(f, "{}:{}", self.file, self.line)?;
        if !self.module_path.is_empty() {
            write!(f, " (in `{}`)", self.module_path)?;
        }
        Ok(())
    }
}
