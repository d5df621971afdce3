//! The builder's tool search ([`crate::search`]).

use super::ServerBuilder;
use crate::search::ToolSearch;

#[cfg_attr(docsrs, doc(cfg(feature = "tool-search")))]
impl ServerBuilder {
    /// Lists `search_tools` and `call_tool` in place of the tools, for a
    /// server with more tools than a model should read at once (the
    /// [`search`](crate::search) module tells when, and what the two do).
    /// Every tool stays callable by its own name; a tool of the server
    /// named `search_tools` or `call_tool` is a
    /// [`BuildError::Setting`](crate::BuildError::Setting).
    ///
    /// ```
    /// use mcp_runtime::{Server, entry::ToolEntry, search::ToolSearch};
    ///
    /// let server = Server::builder("many", "1.0.0")
    ///     .tool(ToolEntry::new("add", || async { 3 }))
    ///     .tool_search(ToolSearch::bm25())
    ///     .build()
    ///     .unwrap();
    /// // The catalog keeps every tool; the listing shows the two.
    /// assert_eq!(server.tool_names(), ["add"]);
    /// ```
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.tool_search = Some(search);
        self
    }
}
