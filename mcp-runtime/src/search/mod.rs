//! Tool search, for servers with more tools than a model should read at
//! once ([`ServerBuilder::tool_search`](crate::ServerBuilder::tool_search)).
//!
//! A host puts every listed tool's definition into the model's context. A
//! few dozen tools cost a few thousand tokens; a gateway of a thousand
//! costs hundreds of thousands, and models choose worse among that many.
//! With tool search on, `tools/list` shows two tools instead:
//!
//! - `search_tools` takes a `query` (and an optional `limit`) and answers
//!   with the definitions of the tools that best match it, ranked by BM25
//!   over their names, titles, descriptions and parameters, a query that
//!   names a mounted server ("… in GitLab") ranking that server's tools
//!   first ([`ToolSearch::bm25`]), or those a regular expression matches
//!   ([`ToolSearch::regex`]);
//! - `call_tool` takes a tool's `name` and `arguments` and calls it.
//!
//! Every tool stays callable by its own name too, and a call through
//! `call_tool` is that tool's call in every respect: its scopes are
//! checked, the server's layers and the tool's own run, it may run as a
//! task or ask for input. Search never offers a tool the caller may not
//! call (one outside its scopes) nor one not meant for the model (an MCP
//! Apps tool visible to its view only); a listing that depends on the
//! caller is `cacheScope: private`. The index is built for each version of
//! the catalog, so tools added or removed later (a mounted remote's, say)
//! are found or gone at once.
//!
//! **When to use it:** when the tools a host would list take more of the
//! context than the task at hand (past about fifty tools, or a gateway
//! in front of several servers), and the model can be trusted to search
//! before it acts. Keep it off for a handful of tools: a model that sees a
//! tool's definition calls it more reliably than one that must first find
//! it. Tools a model always needs can stay listed beside the two
//! ([`ToolSearch::keep_listed`]); tools with an MCP Apps view always stay
//! listed, since hosts read views from the listing.
//!
//! On 1,414 tools of 54 published servers, the listing shrinks from
//! 2.6 MB to 1.3 kB, 0.889 of the tools 109 queries ask for are among the
//! first five results, a search costs about 420,000 instructions, and the
//! index takes 85 ms to build at the first search after each change of
//! the catalog (BENCHMARKS.md in the repository).
//!
//! ```
//! use mcp_runtime::{Server, entry::ToolEntry, search::ToolSearch};
//!
//! let server = Server::builder("many", "1.0.0")
//!     .tool(ToolEntry::new("add", || async { 3 }).description("Adds two numbers."))
//!     .tool(ToolEntry::new("weather", || async { "sunny" }).description("Today's weather in a city."))
//!     .tool_search(ToolSearch::bm25().keep_listed(["add"]))
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

mod bm25;
mod config;
mod document;
mod pattern;
mod servers;
mod tools;
mod words;

use std::sync::{Arc, OnceLock};

use self::bm25::Bm25;
use self::config::Mode;
pub use self::config::ToolSearch;
use self::document::Document;
use self::servers::Servers;
use crate::protocol::Tool;
use crate::registry::catalog::Catalog;

pub(crate) use self::tools::{CALL_TOOL, SEARCH_TOOL};

/// The longest query taken by the BM25 mode, in bytes.
const QUERY_MAX: usize = 1024;

/// The search of one version of the catalog: its index, made at the first
/// search, and its listing, made at the first `tools/list`.
pub(crate) struct Searcher {
    config: Arc<Settings>,
    index: OnceLock<Index>,
    listing: OnceLock<Vec<Listed>>,
}

/// An item of the listing with search on, in name order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listed {
    /// `search_tools` or `call_tool`: its place among their definitions.
    Search(usize),
    /// A catalog tool, by position.
    Tool(usize),
}

struct Index {
    engine: Engine,
    /// Whether each tool is for the model (not an MCP Apps tool that only
    /// its view may call).
    for_model: Vec<bool>,
    /// The mounted servers the tools come from.
    servers: Servers,
}

enum Engine {
    Bm25(Bm25),
    Regex(Vec<Document>),
}

impl Searcher {
    pub(crate) fn new(config: Arc<Settings>) -> Self {
        Searcher { config, index: OnceLock::new(), listing: OnceLock::new() }
    }

    /// The tools `query` finds, best first, at most `limit` (the default
    /// when `None`), among those `allowed` lets the caller call: catalog
    /// positions. An error is a message for the model.
    pub(crate) fn search(
        &self,
        catalog: &Catalog,
        query: &str,
        limit: Option<u64>,
        allowed: impl Fn(usize) -> bool,
    ) -> Result<Vec<usize>, String> {
        let max = self.config.search.max_results;
        let limit = match limit {
            None => self.config.search.default_results(),
            Some(n) if (1..=max as u64).contains(&n) => n as usize,
            Some(n) => return Err(format!("`limit` is {n}; it must be from 1 to {max}")),
        };
        if query.trim().is_empty() {
            return Err("The query is empty: say in a few words what the tool should do".into());
        }
        let index = self.index.get_or_init(|| Index::new(catalog, &self.config));
        let scores = match &index.engine {
            Engine::Bm25(bm25) => {
                if query.len() > QUERY_MAX {
                    return Err(format!("The query is {} bytes long; at most {QUERY_MAX} are taken", query.len()));
                }
                let words = bm25.words(query);
                let mut scores = bm25.scores(&words);
                index.servers.favour_named(&words, &mut scores);
                scores
            }
            Engine::Regex(documents) => pattern::scores(documents, query)?,
        };
        let mut found: Vec<(usize, f32)> = scores
            .into_iter()
            .enumerate()
            .filter(|&(i, score)| score > 0.0 && index.for_model[i] && allowed(i))
            .collect();
        // Best first; equal scores in the catalog's order, which is by name.
        let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if found.len() > limit {
            found.select_nth_unstable_by(limit, order);
            found.truncate(limit);
        }
        found.sort_unstable_by(order);
        Ok(found.into_iter().map(|(i, _)| i).collect())
    }

    /// The listing: `search_tools`, `call_tool`, the tools kept listed and
    /// those with a view, in name order.
    pub(crate) fn listing(&self, catalog: &Catalog) -> &[Listed] {
        self.listing.get_or_init(|| {
            let mut listed: Vec<(&str, Listed)> =
                self.config.definitions.iter().enumerate().map(|(i, (name, _))| (*name, Listed::Search(i))).collect();
            for (position, tool) in catalog.tools().iter().enumerate() {
                let definition = &tool.entry().definition;
                let kept = self.config.search.keep_listed.contains(&definition.name);
                if kept || has_view(definition) {
                    listed.push((&definition.name, Listed::Tool(position)));
                }
            }
            listed.sort_by(|a, b| a.0.cmp(b.0));
            listed.into_iter().map(|(_, item)| item).collect()
        })
    }

    /// The definition of a listed `search_tools` or `call_tool`.
    pub(crate) fn definition(&self, which: usize) -> (&'static str, &serde_json::value::RawValue) {
        let (name, definition) = &self.config.definitions[which];
        (name, definition)
    }
}

/// Tool search as a server serves it: the settings, and the definitions of
/// `search_tools` and `call_tool` they give, made once.
#[derive(Debug)]
pub(crate) struct Settings {
    search: ToolSearch,
    definitions: Vec<(&'static str, Box<serde_json::value::RawValue>)>,
    /// The namespaces of the servers mounted, whose tools' names begin
    /// with `{namespace}_`.
    namespaces: Vec<String>,
}

impl Settings {
    pub(crate) fn new(search: ToolSearch, namespaces: Vec<String>) -> Self {
        let definitions = tools::definitions(&search);
        Settings { search, definitions, namespaces }
    }
}

impl Index {
    fn new(catalog: &Catalog, settings: &Settings) -> Self {
        let definitions = catalog.tools().iter().map(|t| &t.entry().definition);
        let documents: Vec<Document> = definitions.clone().map(Document::of).collect();
        let for_model = definitions.clone().map(for_model).collect();
        let servers = Servers::new(&settings.namespaces, definitions.map(|d| d.name.as_str()));
        let engine = match settings.search.mode {
            Mode::Bm25 => Engine::Bm25(Bm25::new(&documents)),
            Mode::Regex => Engine::Regex(documents),
        };
        Index { engine, for_model, servers }
    }
}

/// A tool of the catalog whose name one of tool search's own would hide.
pub(crate) fn check_names(catalog: &Catalog) -> Result<(), crate::registry::error::BuildError> {
    for name in [SEARCH_TOOL, CALL_TOOL] {
        if catalog.tool_position(name).is_some() {
            return Err(crate::registry::error::BuildError::Setting {
                setting: "ServerBuilder::tool_search",
                reason: format!(
                    "the server has a tool named `{name}`, the name of one of tool search's own tools: rename it"
                ),
            });
        }
    }
    Ok(())
}

/// Whether `tool` is for the model: not an MCP Apps tool whose
/// `visibility` leaves the model out.
pub(crate) fn for_model(tool: &Tool) -> bool {
    let visibility = tool.meta.as_ref().and_then(|m| m.get("ui")).and_then(|ui| ui.get("visibility"));
    match visibility.and_then(|v| v.as_array()) {
        Some(audiences) => audiences.iter().any(|a| a == "model"),
        None => true,
    }
}

/// Whether `tool` has an MCP Apps view (or is one's own tool).
fn has_view(tool: &Tool) -> bool {
    tool.meta.as_ref().is_some_and(|m| m.contains_key("ui"))
}
