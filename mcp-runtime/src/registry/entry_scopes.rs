//! `scopes(...)` on each kind of entry: what a caller must be granted to
//! see and use it on an authenticated server (see [`crate::auth`]).

use crate::registry::entry::{PromptEntry, ResourceEntry, ToolEntry};

fn collect<S: Into<String>>(scopes: impl IntoIterator<Item = S>) -> Option<Vec<String>> {
    Some(scopes.into_iter().map(Into::into).collect())
}

impl ToolEntry {
    /// The scopes a caller must be granted, every one, to see the tool in
    /// `tools/list` and call it, on an authenticated server (see
    /// [`crate::auth`]); what `#[tool(scopes = [...])]` declares. Each is an
    /// RFC 6749 scope token (visible ASCII but `"` and `\`), none twice, at
    /// least one: a server with a tool declaring otherwise fails to build
    /// with [`BuildError::Scope`](crate::BuildError::Scope).
    ///
    /// ```
    /// use mcp_runtime::{Server, entry::ToolEntry};
    ///
    /// let server = Server::builder("notes", "1.0.0")
    ///     .tool(ToolEntry::new("delete_note", || async { "deleted" }).scopes(["notes:write"]))
    ///     .build()?;
    /// assert_eq!(server.declared_scopes().into_iter().collect::<Vec<_>>(), ["notes:write"]);
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// ```
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = collect(scopes);
        self
    }

    /// The scopes the tool declares (empty for none).
    pub fn declared_scopes(&self) -> &[String] {
        self.scopes.as_deref().unwrap_or_default()
    }
}

impl PromptEntry {
    /// The scopes a caller must be granted to see the prompt in
    /// `prompts/list` and get it, on an authenticated server; what
    /// `#[prompt(scopes = [...])]` declares. The rules of
    /// [`ToolEntry::scopes`] apply.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = collect(scopes);
        self
    }

    /// The scopes the prompt declares (empty for none).
    pub fn declared_scopes(&self) -> &[String] {
        self.scopes.as_deref().unwrap_or_default()
    }
}

impl ResourceEntry {
    /// The scopes a caller must be granted to see the resource (or the
    /// template) in `resources/list` (`resources/templates/list`) and read
    /// it (any URI the template matches), on an authenticated server; what
    /// `#[resource(scopes = [...])]` declares. The rules of
    /// [`ToolEntry::scopes`] apply.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = collect(scopes);
        self
    }

    /// The scopes the resource or template declares (empty for none).
    pub fn declared_scopes(&self) -> &[String] {
        self.scopes.as_deref().unwrap_or_default()
    }
}
