//! The catalog snapshot of a [`Server`]: what it serves, as JSON, and the
//! dump `--dump-catalog` asks for (see [`CatalogDump`]).

use serde_json::{Map, Value};

use super::Server;
use crate::registry::catalog_dump::CatalogDump;

impl CatalogDump {
    /// Writes `server`'s catalog here.
    pub fn write(&self, server: &Server) -> std::io::Result<()> {
        self.write_text(&server.catalog_json())
    }
}

impl Server {
    /// The catalog snapshot as JSON: `discover` (the `server/discover`
    /// result), then `tools`, `prompts`, `resources` and
    /// `resourceTemplates` as their lists show them, each sorted as the
    /// lists are. An entry that declares scopes also has them, as
    /// `scopes`: no list shows them, but a scope added to a tool takes it
    /// away from callers lacking it, which `mcp-catalog diff` reports.
    ///
    /// ```
    /// use mcp_runtime::{Server, entry::ToolEntry};
    /// let server = Server::builder("demo", "1.0.0")
    ///     .tool(ToolEntry::new("ping", || async { "pong" }))
    ///     .tool(ToolEntry::new("reset", || async { "done" }).scopes(["admin"]))
    ///     .build()?;
    /// let catalog = server.catalog_snapshot();
    /// assert_eq!(catalog["tools"][0]["name"], "ping");
    /// assert!(catalog["tools"][0].get("scopes").is_none());
    /// assert_eq!(catalog["tools"][1]["scopes"], serde_json::json!(["admin"]));
    /// assert!(catalog["discover"]["capabilities"]["tools"].is_object());
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// ```
    pub fn catalog_snapshot(&self) -> Value {
        let snapshot = self.snapshot();
        let catalog = snapshot.catalog();
        // The definition as listed, and the scopes it declares, which no
        // list shows but which decide who sees it.
        let parse = |raw: &serde_json::value::RawValue, scopes: &[String]| {
            let mut item = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
            if let (Value::Object(item), false) = (&mut item, scopes.is_empty()) {
                item.insert("scopes".into(), scopes.into());
            }
            item
        };
        let mut out = Map::new();
        out.insert("discover".into(), serde_json::to_value(snapshot.discover()).unwrap_or(Value::Null));
        let tools = catalog.tools().iter().map(|t| parse(t.json(), t.entry().declared_scopes()));
        out.insert("tools".into(), tools.collect());
        let prompts = catalog.prompts().iter().map(|p| parse(p.json(), p.entry().declared_scopes()));
        out.insert("prompts".into(), prompts.collect());
        let resources = catalog.resources().iter().map(|r| parse(r.json(), r.entry().declared_scopes()));
        out.insert("resources".into(), resources.collect());
        let templates = catalog.templates().iter().map(|t| parse(t.json(), t.entry().declared_scopes()));
        out.insert("resourceTemplates".into(), templates.collect());
        Value::Object(out)
    }

    /// [`catalog_snapshot`](Self::catalog_snapshot) in its stable text
    /// form: object members sorted by name, two-space indentation, a final
    /// newline. This is what `--dump-catalog` writes and what
    /// [`testing::assert_catalog_snapshot`](crate::testing::assert_catalog_snapshot)
    /// compares.
    pub fn catalog_json(&self) -> String {
        mcp_catalog::snapshot::to_text(&self.catalog_snapshot())
    }

    /// Writes the catalog snapshot if it was asked for (`--dump-catalog`
    /// among the process's arguments, unless
    /// [`ServerBuilder::catalog_flag(false)`](crate::ServerBuilder::catalog_flag),
    /// or [`ServerBuilder::dump_catalog`](crate::ServerBuilder::dump_catalog),
    /// which wins) and returns `true`: the caller then returns without
    /// serving. Every serve helper calls it before anything else (binding,
    /// reading stdin, connecting to Redis); a `main` that serves by other
    /// means, say an `McpService` nested in axum, calls it after `build()`:
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = mcp_runtime::server!().build()?;
    /// if server.answer_catalog_dump()? {
    ///     return Ok(());
    /// }
    /// // ... nest `server.into_service()` in a router and serve it
    /// # Ok(()) }
    /// ```
    ///
    /// A dump that cannot be written is an error naming where it was going.
    pub fn answer_catalog_dump(&self) -> std::io::Result<bool> {
        let Some(to) = &self.settings().catalog_dump else { return Ok(false) };
        to.write(self).map(|()| true).map_err(|e| {
            std::io::Error::new(e.kind(), format!("the catalog could not be written to {to} (--dump-catalog): {e}"))
        })
    }
}

impl std::fmt::Display for CatalogDump {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CatalogDump::Stdout => f.write_str("standard output"),
            CatalogDump::File(path) => write!(f, "{}", path.display()),
        }
    }
}
