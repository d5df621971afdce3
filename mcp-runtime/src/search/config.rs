//! What `search_tools` ranks by and offers: the settings a server is
//! built with.

/// The number of results when the call gives no `limit`.
const DEFAULT_RESULTS: usize = 5;

/// How `search_tools` finds tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Bm25,
    Regex,
}

/// Tool search: what `search_tools` ranks by and offers
/// ([`ServerBuilder::tool_search`](crate::ServerBuilder::tool_search); the
/// [module](super) tells when to use it).
#[derive(Clone, Debug)]
pub struct ToolSearch {
    pub(super) mode: Mode,
    pub(super) max_results: usize,
    pub(super) keep_listed: Vec<String>,
}

impl ToolSearch {
    /// Ranks tools by BM25 over the words of their names, titles,
    /// descriptions and parameters: the query is a few words of what the
    /// model needs ("open a pull request").
    pub fn bm25() -> Self {
        ToolSearch { mode: Mode::Bm25, max_results: 20, keep_listed: Vec::new() }
    }

    /// Offers the tools whose name, title, description or parameters a
    /// regular expression matches (case-insensitive; at most 256 bytes, and
    /// a pattern whose compiled form would be large is refused), those
    /// matched by name first.
    pub fn regex() -> Self {
        ToolSearch { mode: Mode::Regex, ..Self::bm25() }
    }

    /// The most results one search may ask for with its `limit` (20
    /// unless set; at least 1). A search without a `limit` gets 5, or this
    /// when it is less.
    pub fn max_results(mut self, max: usize) -> Self {
        self.max_results = max.max(1);
        self
    }

    /// Tools listed beside `search_tools` and `call_tool`, by name: those
    /// the model needs at every turn. A name the server does not have is
    /// left out of the listing.
    pub fn keep_listed<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.keep_listed.extend(names.into_iter().map(Into::into));
        self
    }

    pub(super) fn default_results(&self) -> usize {
        DEFAULT_RESULTS.min(self.max_results)
    }
}
