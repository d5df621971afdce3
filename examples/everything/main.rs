//! Every feature of the framework in one server, and every fixture the
//! official MCP conformance suite calls.
//!
//! ```text
//! cargo run -p examples --bin everything -- --http 127.0.0.1:3000   # Streamable HTTP at /mcp
//! cargo run -p examples --bin everything -- --stdio                 # stdio
//! ```
//!
//! Deployment settings (Redis, the shared `requestState` key, probes...)
//! come from flags or `MCP_*` variables: see the README and `mcp_runtime::deployment`.
//!
//! Everything here is declared with `#[tool]`, `#[resource]` and `#[prompt]`
//! (but for one tool that shows the full JSON Schema dialect, see
//! `json_schema.rs`); schemas come from the Rust types.

mod fixtures;
mod json_schema;
#[path = "../observability.rs"]
mod observability;
mod prompts;
mod resources;
mod round_trips;
mod session_fixtures;
mod tasks;

/// Everything this server serves; its catalog is committed as
/// `everything/catalog.json` (see the test below and `--dump-catalog`).
fn server_builder() -> mcp_runtime::ServerBuilder {
    mcp_runtime::server!("everything", env!("CARGO_PKG_VERSION"))
        .tool(json_schema::tool())
        // Two skills, embedded and checked while compiling; the first listed
        // has a subdirectory, which the conformance suite reads as a directory.
        .skills(mcp_runtime::skills!("skills"))
        .instructions("A test server exposing every MCP feature; its tools are fixtures, not useful work.")
        // Every conformance run and interop client passes a layer, in both eras.
        .layer(mcp_runtime::middleware::Audit::new())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _telemetry = observability::init("everything")?;
    // `--stdio`, `--http ADDR`, `MCP_REDIS_URL`... (the README's table);
    // this server has no arguments of its own.
    server_builder().serve().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixtures under OpenAI strict function calling: the tool written
    /// in the full JSON Schema dialect and the one whose optional argument
    /// is mirrored into a header are refused, with their reasons; every
    /// other tool fits once its optional arguments are made nullable.
    #[test]
    fn the_openai_profile_refuses_only_the_full_dialect_fixture() {
        use mcp_runtime::{BuildError, Server, server::SchemaProfile};

        let error = server_builder().schema_profile(SchemaProfile::OpenAi).build().expect_err("refused");
        let BuildError::SchemaProfile { refused, .. } = &error else { panic!("{error}") };
        let names: Vec<&str> = refused.iter().map(|r| r.tool.as_str()).collect();
        assert_eq!(names, ["json_schema_2020_12_tool", "test_echo"]);
        let reasons = refused[0].reasons.join("\n");
        for expected in [
            "/: uses `allOf` [openai-unsupported-composition; OpenAI, \"Structured Outputs: Supported schemas\"",
            "/: uses `if` [openai-unsupported-composition",
            "/$defs/address/properties/city: an optional property under `$defs` (reached by `$ref`)",
        ] {
            assert!(reasons.contains(expected), "missing {expected:?} in:\n{reasons}");
        }
        assert_eq!(
            refused[1].reasons,
            ["the fitted schema would break an MCP rule: `x-mcp-header` of `region` is on a property with type \
              [\"string\",\"null\"]; only `string`, `integer` and `boolean` properties can be mirrored into headers"]
        );

        let plain = server_builder().build().expect("builds");
        let others = plain.tools().filter(|t| !names.contains(&t.definition().name.as_str()));
        let fitted = Server::builder("everything", "0").tools(others).schema_profile(SchemaProfile::OpenAi).build();
        let fitted = fitted.expect("every other fixture fits");
        let reports = mcp_catalog::profile::check_snapshot(SchemaProfile::OpenAi, &fitted.catalog_snapshot());
        assert_eq!(reports.len(), 34);
        assert!(
            reports.iter().all(|r| r.accepted()),
            "{}",
            mcp_catalog::profile::render_report(SchemaProfile::OpenAi, &reports)
        );
        let before = plain.catalog_snapshot();
        let changed: Vec<String> = fitted
            .tools()
            .filter(|t| {
                let old = before["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|o| o["name"] == t.definition().name.as_str());
                old.map(|o| o["inputSchema"] != serde_json::to_value(&t.definition().input_schema).unwrap_or_default())
                    .unwrap_or(true)
            })
            .map(|t| t.definition().name.clone())
            .collect();
        assert_eq!(changed, ["confirm_delete", "greet", "slow_compute", "test_elicitation", "test_sampling"]);
    }

    #[test]
    fn the_catalog_matches_its_committed_snapshot() {
        let server = server_builder().build().expect("builds");
        mcp_runtime::testing::assert_catalog_snapshot(&server, "everything/catalog.json");
    }
}
